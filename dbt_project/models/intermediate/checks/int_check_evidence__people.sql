-- Per ABN: its current directors who are registered liquidators (LIQUIDATOR_LINKED, docs/rules.md#risk-flags), and its current PPSR registrations as grantor (Shape B ppsr.registrations).
-- "Registered" is the register's own status on the as-of date: LIQ_STATUS 'Registered' and
-- registered by then. A cancelled or suspended registration, or one that starts later, is
-- in match_liquidators (the name matches) but links nothing here.

with

liquidator_matches as (

    select * from {{ ref('match_liquidators') }}

),

liquidators as (

    select * from {{ ref('stg_asic__liquidators') }}

),

ppsr_matches as (

    select * from {{ ref('match_ppsr') }}

),

registrations as (

    select * from {{ ref('stg_ppsr__registrations') }}

),

liquidator_links as (

    select
        liquidator_matches.abn,
        count(*) as liquidator_director_count,
        {{ bvs.json_array_agg(bvs.json_object([
            ('liquidator_number', 'liquidators.liquidator_number'),
            ('liquidator_name', 'liquidators.liquidator_name'), ('firm', 'liquidators.firm'),
            ('director', 'liquidator_matches.matched_name'), ('score', 'liquidator_matches.score'),
        ]), order_by='liquidators.liquidator_number') }} as liquidator_directors
    from liquidator_matches
    inner join liquidators
        on liquidator_matches.liquidator_number = liquidators.liquidator_number
    where liquidator_matches.method = 'director_name'
        and upper(liquidators.status) = 'REGISTERED'
        and (liquidators.start_date is null or liquidators.start_date <= {{ bvs.as_of_date() }})
    group by liquidator_matches.abn

),

ppsr as (

    select
        ppsr_matches.abn,
        sum(case when registrations.is_current then 1 else 0 end) as current_ppsr_count
    from ppsr_matches
    inner join registrations
        on ppsr_matches.registration_number = registrations.registration_number
    group by ppsr_matches.abn

),

final as (

    select
        coalesce(liquidator_links.abn, ppsr.abn) as abn,
        coalesce(liquidator_links.liquidator_director_count, 0) as liquidator_director_count,
        liquidator_links.liquidator_directors,
        coalesce(ppsr.current_ppsr_count, 0) as current_ppsr_count
    from liquidator_links
    full outer join ppsr
        on liquidator_links.abn = ppsr.abn

)

select * from final
