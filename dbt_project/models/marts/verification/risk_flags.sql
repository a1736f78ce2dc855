-- Every risk flag that fires, one row per (ABN, flag), with its severity and evidence. The
-- triggers are docs/rules.md#risk-flags, in its order; flags are independent of the tiles' statuses
-- (docs/decisions/03-flags-and-tiles-are-independent.md) and fire only on evidence the warehouse holds.

with

outcomes as (

    select * from {{ ref('int_check_outcomes') }}

),

flags as (

    select * from {{ ref('flag_definitions') }}

),

-- WARN_CLUSTER: four or more WARN tiles while the entity has no domain or no web presence,
-- after the domain-cascade filter (macros/verification/scoring.sql).
warn_counts as (

    select
        abn,
        {{ bvs.warn_cluster_columns() }}
    from outcomes

),

fired as (

    -- PHOENIX_PATTERN: an ACN, and a director is an officeholder of a company deregistered
    -- within the past 36 months (phoenix_links).
    select abn, 'PHOENIX_PATTERN' as flag_id, phoenix_links as evidence
    from outcomes
    where phoenix_status = 'FAIL'

    union all

    -- ADVERSE_ACTIVE: an active record of severity HIGH or CRITICAL from ACCC, QBCC, NSW
    -- Fair Trading, VBA/BPC or QLD OFT, matched by name or ABN.
    select abn, 'ADVERSE_ACTIVE', conduct_records
    from outcomes
    where conduct_active_high_critical_count > 0

    union all

    -- FINANCIAL_ADVISER_BANNED: a current director matches by name a banned adviser.
    select abn, 'FINANCIAL_ADVISER_BANNED', banned_adviser_directors
    from outcomes
    where banned_adviser_director_count > 0

    union all

    -- LIQUIDATOR_LINKED: a current director matches a registered liquidator.
    select abn, 'LIQUIDATOR_LINKED', liquidator_directors
    from outcomes
    where liquidator_director_count > 0

    union all

    -- LICENCE_MISMATCH: the industry code maps to a licensed trade and no licence of that
    -- trade is in force (ACTIVE or CONDITIONAL) in any state register. Not while the
    -- licence registers are unloaded (the licence tile is then N/A).
    select
        abn,
        'LICENCE_MISMATCH',
        {{ bvs.json_object([('trade', 'licensed_trade'), ('licences', 'cast(licence_records as json)')]) }}
    from outcomes
    where licensed_trade is not null
        and licence_status <> 'N/A'
        and licences_in_force_correct_count = 0

    union all

    -- WARN_CLUSTER (see warn_counts).
    select abn, 'WARN_CLUSTER', {{ bvs.warn_cluster_evidence() }}
    from warn_counts
    where {{ bvs.warn_cluster_fires() }}

    union all

    -- LICENCE_SUSPENDED_ACTIVE: a suspended or cancelled licence and no active alternative:
    -- both of the entity's trade (its licensed trade; for an entity of no licensed trade,
    -- any licence), as the licence tile reads them, so the flag fires exactly where that
    -- tile FAILs on a suspended or cancelled licence.
    select abn, 'LICENCE_SUSPENDED_ACTIVE', licence_records
    from outcomes
    where licences_suspended_cancelled_correct_count > 0
        and licences_in_force_correct_count = 0

    union all

    -- ADVERSE_PATTERN: three or more adverse records within 24 months from two or more
    -- authorities.
    select abn, 'ADVERSE_PATTERN', conduct_records
    from outcomes
    where conduct_24_month_count >= 3
        and conduct_24_month_regulator_count >= 2

    union all

    -- COMPLIANCE_DUAL_FAILURE: the licence and the adverse-records tiles both FAIL.
    select abn, 'COMPLIANCE_DUAL_FAILURE', cast(null as {{ dbt.type_string() }})
    from outcomes
    where licence_status = 'FAIL'
        and conduct_status = 'FAIL'

),

final as (

    select
        fired.abn,
        fired.flag_id,
        flags.severity,
        flags.severity_rank,
        flags.trigger,
        fired.evidence
    from fired
    inner join flags
        on fired.flag_id = flags.flag_id

)

select * from final
