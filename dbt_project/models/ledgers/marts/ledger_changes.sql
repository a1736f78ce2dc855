-- The changes of each supplier since the previous run of its ledger (CONTRACT decision 16),
-- one row per change: a tile's status, a flag raised or cleared, the risk level, the
-- assurance score moving by 10 points or more, the ABN's status, a director added or
-- removed, a new adverse record, insolvency notice or external administration, a new
-- enforcement action.
--
-- `alert`: a change for the worse, and every change of the last four kinds (SPEC 6.2: a
-- material change), raises an alert. A supplier is followed when the previous run verified
-- it under the same supplier_key and the same ABN; a ledger's first run, and a supplier new
-- to the ledger, have no changes. "Worse": a tile PASS or N/A -> WARN -> FAIL (squeeze
-- signal LOW -> MED -> HIGH), a risk level up, the score down, the ABN no longer active.

{{ config(materialized='table') }}

with

current_states as (

    select * from {{ ref('ledger_supplier_states') }}

),

previous_states as (

    select * from {{ ref('stg_ledgers__previous_states') }}

),

suppliers as (

    select * from {{ ref('ledger_verifications') }}
    where abn is not null

),

followed as (

    select distinct
        previous_states.customer,
        previous_states.ledger,
        previous_states.supplier_key,
        previous_states.run_id as previous_run_id
    from previous_states
    inner join suppliers
        on previous_states.customer = suppliers.customer
        and previous_states.ledger = suppliers.ledger
        and previous_states.supplier_key = suppliers.supplier_key
        and previous_states.abn = suppliers.abn

),

current_followed as (

    select current_states.*
    from current_states
    inner join followed
        on current_states.customer = followed.customer
        and current_states.ledger = followed.ledger
        and current_states.supplier_key = followed.supplier_key

),

previous_followed as (

    select previous_states.*
    from previous_states
    inner join followed
        on previous_states.customer = followed.customer
        and previous_states.ledger = followed.ledger
        and previous_states.supplier_key = followed.supplier_key

),

paired as (

    select
        coalesce(current_followed.customer, previous_followed.customer) as customer,
        coalesce(current_followed.ledger, previous_followed.ledger) as ledger,
        coalesce(current_followed.supplier_key, previous_followed.supplier_key) as supplier_key,
        coalesce(current_followed.kind, previous_followed.kind) as kind,
        coalesce(current_followed.subject, previous_followed.subject) as subject,
        previous_followed.value as before_value,
        current_followed.value as after_value,
        previous_followed.run_id as previous_run_id
    from current_followed
    full outer join previous_followed
        on current_followed.customer = previous_followed.customer
        and current_followed.ledger = previous_followed.ledger
        and current_followed.supplier_key = previous_followed.supplier_key
        and current_followed.kind = previous_followed.kind
        and current_followed.subject = previous_followed.subject

),

ranked as (

    select
        *,
        case kind
            when 'tile' then
                case when before_value in ('FAIL', 'HIGH') then 2 when before_value in ('WARN', 'MED') then 1 else 0 end
            when 'risk_level' then
                case before_value when 'critical' then 3 when 'high' then 2 when 'medium' then 1 else 0 end
        end as before_rank,
        case kind
            when 'tile' then
                case when after_value in ('FAIL', 'HIGH') then 2 when after_value in ('WARN', 'MED') then 1 else 0 end
            when 'risk_level' then
                case after_value when 'critical' then 3 when 'high' then 2 when 'medium' then 1 else 0 end
        end as after_rank,
        case when kind = 'score' then cast(after_value as double) - cast(before_value as double) end
            as score_delta
    from paired

),

changes as (

    select
        *,
        case
            when kind = 'tile' then 'tile'
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
