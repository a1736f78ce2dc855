-- Per ABN: banned and disqualified organisations (ACN exact, name at least 0.75) and persons
-- (person name at least 0.75: a sole trader's own name, or a current director) it matches.
-- A ban is active on the as-of date when it has started and has no end date (permanent) or
-- ends on or after it; expired when it ended before it.

with

organisation_matches as (

    select * from {{ ref('match_banned_organisations') }}

),

organisations as (

    select * from {{ ref('stg_asic__banned_organisations') }}

),

person_matches as (

    select * from {{ ref('match_banned_persons') }}

),

persons as (

    select * from {{ ref('stg_asic__banned_persons') }}

),

bans as (

    select
        organisation_matches.abn,
        'organisation' as party,
        organisations.organisation_name as name,
        organisations.banning_type,
        organisations.start_date,
        organisations.end_date,
        organisations.end_date_text,
        organisation_matches.method,
        organisation_matches.score,
        organisation_matches.matched_name,
        organisation_matches.identifier_note
    from organisation_matches
    inner join organisations
        on organisation_matches.organisation_name = organisations.organisation_name

    union all

    select
        person_matches.abn,
        'person' as party,
        persons.person_name as name,
        persons.banning_type,
        persons.start_date,
        persons.end_date,
        cast(null as {{ dbt.type_string() }}) as end_date_text,
        person_matches.method,
        person_matches.score,
        person_matches.matched_name,
        cast(null as {{ dbt.type_string() }}) as identifier_note
    from person_matches
    inner join persons
        on person_matches.person_name = persons.person_name
        and person_matches.start_date = persons.start_date

),

classified as (

    select
        *,
        (start_date is null or start_date <= {{ bvs.as_of_date() }})
            and (end_date is null or end_date >= {{ bvs.as_of_date() }}) as is_active,
        end_date < {{ bvs.as_of_date() }} as is_expired
    from bans

),

final as (

    select
        abn,
        sum(case when is_active then 1 else 0 end) as active_count,
        sum(case when is_expired then 1 else 0 end) as expired_count,
        {{ bvs.json_array_agg(bvs.json_object_noting([
            ('party', 'party'), ('name', 'name'), ('banning_type', 'banning_type'),
            ('start_date', 'start_date'), ('end_date', 'coalesce(cast(end_date as ' ~ dbt.type_string() ~ '), end_date_text)'),
            ('active', 'is_active'), ('method', 'method'), ('score', 'score'),
            ('matched_name', 'matched_name'),
        ], ('identifier_note', 'identifier_note')), order_by='party, name, start_date') }} as records
    from classified
    group by abn

)

select * from final
