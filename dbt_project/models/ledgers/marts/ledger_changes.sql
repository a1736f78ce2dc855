-- The changes of each supplier since the previous run of its ledger (docs/decisions/16-changes-between-runs.md),
-- one row per change: a tile's status, a flag raised or cleared, the risk level, the
-- assurance score moving by 10 points or more, the ABN's status, a director added or
-- removed, a new adverse record, insolvency notice or external administration, a new
-- enforcement action.
--
-- `is_alert`: a change for the worse, and every change of the last four kinds (docs/decisions/16-changes-between-runs.md: a
-- material change), raises an alert. A supplier is followed when the previous run verified
-- it under the same supplier_key and the same ABN; a ledger's first run, and a supplier new
-- to the ledger, have no changes. "Worse": a tile PASS or N/A -> WARN -> FAIL (squeeze
-- signal LOW -> MED -> HIGH), a risk level up, the score down, the ABN no longer active.
--
-- Each run records one 'supplier' state per supplier (ledger_supplier_states): only the
-- suppliers whose state differs from the previous run's are taken apart, tile by tile.

{{ config(materialized='table') }}

{%- set tile_rank = "case when {v} in ('FAIL', 'HIGH') then 2 when {v} in ('WARN', 'MED') then 1 else 0 end" %}
{%- set level_rank = "case {v} when 'critical' then 3 when 'high' then 2 when 'medium' then 1 else 0 end" %}

with

current_states as (

    select * from {{ ref('ledger_supplier_states') }}

),

previous_states as (

    select * from {{ ref('stg_ledgers__previous_states') }}

),

-- the suppliers in both runs with the same ABN, their states, and whether these differ:
-- compared once here, not in each of the tile and flag selects below that read `moved`
-- (an inlined CTE: comparing the two states there cost a scan of every followed supplier's
-- two JSON texts per select, half of this model's time at 100,000 suppliers)
followed as (

    select
        current_states.customer,
        current_states.ledger,
        current_states.supplier_key,
        current_states.value as after_state,
        previous_states.value as before_state,
        previous_states.run_id as previous_run_id,
        current_states.value <> previous_states.value as has_moved
    from current_states
    inner join previous_states
        on current_states.customer = previous_states.customer
        and current_states.ledger = previous_states.ledger
        and current_states.supplier_key = previous_states.supplier_key
        and current_states.abn = previous_states.abn
        and previous_states.kind = 'supplier'
    where current_states.kind = 'supplier'

),

moved as (

    select * from followed
    where has_moved

),

state_changes as (

    {%- for check_id in bvs.check_ids() %}
    select
        customer, ledger, supplier_key, previous_run_id,
        'tile' as kind,
        '{{ check_id }}' as subject,
        {{ bvs.json_text('before_state', 'tile_' ~ check_id) }} as before_value,
        {{ bvs.json_text('after_state', 'tile_' ~ check_id) }} as after_value
    from moved
    union all
    {%- endfor %}

    {%- for flag_id in bvs.flag_ids() %}
    select
        customer, ledger, supplier_key, previous_run_id,
        'flag',
        '{{ flag_id }}',
        {{ bvs.json_text('before_state', 'flag_' ~ flag_id) }},
        {{ bvs.json_text('after_state', 'flag_' ~ flag_id) }}
    from moved
    union all
    {%- endfor %}

    {%- for member in ['risk_level', 'score', 'abn_status'] %}
    select
        customer, ledger, supplier_key, previous_run_id,
        '{{ member }}',
        '{{ "assurance_score" if member == "score" else member }}',
        {{ bvs.json_text('before_state', member) }},
        {{ bvs.json_text('after_state', member) }}
    from moved
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}

),

-- facts (directors, records) of the followed suppliers, paired between the runs
current_facts as (

    select current_states.*, followed.previous_run_id
    from current_states
    inner join followed
        on current_states.customer = followed.customer
        and current_states.ledger = followed.ledger
        and current_states.supplier_key = followed.supplier_key
    where current_states.kind <> 'supplier'

),

previous_facts as (

    select previous_states.*, followed.previous_run_id
    from previous_states
    inner join followed
        on previous_states.customer = followed.customer
        and previous_states.ledger = followed.ledger
        and previous_states.supplier_key = followed.supplier_key
    where previous_states.kind <> 'supplier'

),

fact_changes as (

    select
        coalesce(current_facts.customer, previous_facts.customer) as customer,
        coalesce(current_facts.ledger, previous_facts.ledger) as ledger,
        coalesce(current_facts.supplier_key, previous_facts.supplier_key) as supplier_key,
        coalesce(current_facts.previous_run_id, previous_facts.previous_run_id) as previous_run_id,
        coalesce(current_facts.kind, previous_facts.kind) as kind,
        coalesce(current_facts.subject, previous_facts.subject) as subject,
        previous_facts.value as before_value,
        current_facts.value as after_value
    from current_facts
    full outer join previous_facts
        on current_facts.customer = previous_facts.customer
        and current_facts.ledger = previous_facts.ledger
        and current_facts.supplier_key = previous_facts.supplier_key
        and current_facts.kind = previous_facts.kind
        and current_facts.subject = previous_facts.subject

),

paired as (

    select * from state_changes
    union all
    select * from fact_changes

),

ranked as (

    select
        *,
        case kind
            when 'tile' then {{ tile_rank.format(v='before_value') }}
            when 'risk_level' then {{ level_rank.format(v='before_value') }}
        end as before_rank,
        case kind
            when 'tile' then {{ tile_rank.format(v='after_value') }}
            when 'risk_level' then {{ level_rank.format(v='after_value') }}
        end as after_rank,
        case when kind = 'score' then cast(after_value as double) - cast(before_value as double) end
            as score_delta
    from paired

),

changes as (

    select
        *,
        case
            when kind = 'flag' and before_value is null then 'flag_raised'
            when kind = 'flag' then 'flag_cleared'
            else kind
        end as change_kind,
        case
            when kind in ('tile', 'risk_level') then after_rank > before_rank
            when kind = 'flag' then before_value is null
            when kind = 'score' then score_delta < 0
            when kind = 'abn_status' then after_value <> 'ACT'
            when kind in ('director', 'adverse_record', 'insolvency', 'enforcement') then true
            else false
        end as is_alert
    from ranked
    where
        (kind in ('tile', 'risk_level', 'abn_status')
            and before_value is not null and after_value is not null and before_value <> after_value)
        or (kind = 'flag' and (before_value is null) <> (after_value is null))
        or (kind = 'score' and abs(score_delta) >= 10)
        or (kind = 'director' and (before_value is null) <> (after_value is null))
        or (kind in ('adverse_record', 'insolvency', 'enforcement') and before_value is null and after_value is not null)

),

suppliers as (

    select * from {{ ref('ledger_verifications') }}
    where abn is not null

),

final as (

    select
        suppliers.customer,
        suppliers.ledger,
        suppliers.run_id,
        suppliers.run_date,
        changes.previous_run_id,
        suppliers.supplier_key,
        suppliers.supplier_ref,
        suppliers.abn,
        changes.change_kind as kind,
        changes.subject,
        changes.before_value,
        changes.after_value,
        changes.is_alert
    from changes
    inner join suppliers
        on changes.customer = suppliers.customer
        and changes.ledger = suppliers.ledger
        and changes.supplier_key = suppliers.supplier_key

)

select * from final
