-- Per ABN: the financial advisers register entries it matches. The tile reads the entity's
-- own matches (ABN exact, name at least 0.8, a sole trader's own name); FINANCIAL_ADVISER_BANNED
-- reads its current directors' matches (method director_name).
-- An entry is banned (a prohibition order is active) when a financial-services banning in
-- force names the adviser (int_check_evidence__adviser_bans, from the banned and
-- disqualified persons register) or its overall registration status is Banned; registered
-- when Registered; otherwise (Not registered, a ceased role) ceased.

with

matches as (

    select * from {{ ref('match_financial_advisers') }}

),

adviser_bans as (

    select * from {{ ref('int_check_evidence__adviser_bans') }}

),

registered as (

    select
        adviser_number,
        max(adviser_name) as adviser_name,
        max(case when upper(overall_registration_status) = 'BANNED' then 1 else 0 end) = 1
            as has_banned_status,
        max(case when upper(overall_registration_status) = 'REGISTERED' then 1 else 0 end) = 1
            as is_registered,
        max(overall_registration_status) as overall_registration_status
    from {{ ref('stg_asic__financial_advisers') }}
    group by adviser_number

),

advisers as (

    select
        registered.adviser_number,
        registered.adviser_name,
        registered.has_banned_status or adviser_bans.adviser_number is not null as is_banned,
        registered.is_registered,
        registered.overall_registration_status,
        adviser_bans.bans
    from registered
    left join adviser_bans
        on registered.adviser_number = adviser_bans.adviser_number

),

joined as (

    select
        matches.abn,
        matches.method,
        matches.score,
        matches.matched_name,
        matches.method = 'director_name' as is_director_match,
        advisers.adviser_number,
        advisers.adviser_name,
        advisers.is_banned,
        advisers.is_registered,
        advisers.overall_registration_status,
        {{ bvs.json_object_noting([
            ('adviser_number', 'advisers.adviser_number'), ('adviser_name', 'advisers.adviser_name'),
            ('status', 'advisers.overall_registration_status'),
            ('banned', 'advisers.is_banned'), ('bans', 'cast(advisers.bans as json)'),
            ('method', 'matches.method'), ('score', 'matches.score'),
            ('matched_name', 'matches.matched_name'),
        ], ('identifier_note', 'matches.identifier_note')) }} as record_json
    from matches
    inner join advisers
        on matches.adviser_number = advisers.adviser_number

),

final as (

    select
        abn,
        sum(case when not is_director_match then 1 else 0 end) as entity_match_count,
        sum(case when not is_director_match and is_banned then 1 else 0 end) as banned_count,
        sum(case when not is_director_match and is_registered then 1 else 0 end) as registered_count,
        {{ bvs.json_array_agg('case when not is_director_match then record_json end',
            order_by='adviser_number') }} as records,
        sum(case when is_director_match and is_banned then 1 else 0 end) as banned_director_count,
        {{ bvs.json_array_agg('case when is_director_match and is_banned then record_json end',
            order_by='adviser_number') }} as banned_director_records
    from joined
    group by abn

)

select * from final
