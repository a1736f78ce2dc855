-- Per financial adviser: the prohibitions in force on the as-of date, from where the real
-- registers record them (issue 19). The financial advisers register's
-- OVERALL_REGISTRATION_STATUS reads `Registered` or `Not registered`; it does not say why an
-- adviser stopped. A banning order is published in the ASIC banned and disqualified persons
-- register, as a financial-services banning type (`AFS Banned & Disqualified`, `Banned
-- Securities`, `Banned Futures`): an adviser is prohibited when such a ban, in force on the
-- as-of date (started, and permanent or ending on or after it), names the adviser by the
-- person-name rule (surname equal, given names compatible: macros/persons.sql). A status
-- word of `Banned` (some extracts carry it) counts as well.
-- Credit bannings (`Credit Banned & Disqualified`) and director disqualifications are not
-- financial-advice prohibitions: they count in the banned and disqualified tile only.

{%- set advice_banning_types = "('AFS BANNED & DISQUALIFIED', 'BANNED SECURITIES', 'BANNED FUTURES')" %}

with

advisers as (

    select distinct adviser_number, adviser_name
    from {{ ref('stg_asic__financial_advisers') }}
    where adviser_name is not null

),

bans as (

    select person_name, banning_type, document_number, start_date, end_date
    from {{ ref('stg_asic__banned_persons') }}
    where upper(banning_type) in {{ advice_banning_types }}
        and (start_date is null or start_date <= {{ bvs.as_of_date() }})
        and (end_date is null or end_date >= {{ bvs.as_of_date() }})

),

adviser_keys as (

    {{ bvs.select_person_keys('advisers', 'adviser_name') }}

),

ban_keys as (

    {{ bvs.select_person_keys('bans', 'person_name') }}

),

final as (

    select
        adviser_keys.adviser_number,
        count(*) as ban_count,
        {{ bvs.json_array_agg(bvs.json_object([
            ('person_name', 'ban_keys.person_name'), ('banning_type', 'ban_keys.banning_type'),
            ('document_number', 'ban_keys.document_number'),
            ('start_date', 'ban_keys.start_date'), ('end_date', 'ban_keys.end_date'),
        ]), order_by='ban_keys.document_number') }} as bans
    from adviser_keys
    inner join ban_keys
        on adviser_keys.person_surname = ban_keys.person_surname
        and adviser_keys.first_initial = ban_keys.first_initial
    where {{ bvs.person_given_names_match('adviser_keys', 'ban_keys') }}
    group by adviser_keys.adviser_number

)

select * from final
