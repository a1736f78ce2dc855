-- What the run records about each verified supplier to compare with the next run, one row
-- per (supplier, kind, subject) with its value (CONTRACT decision 16):
--
--   tile / <check id>            the tile's status
--   flag / <flag id>             the flag fired (value: its severity)
--   risk_level, score            the risk level and the assurance score
--   abn_status                   the ABN's register status (ACT, CAN)
--   director / <name>            a current director
--   adverse_record, enforcement, insolvency / <record>   (int_ledger_abn_facts)
--
-- Kept as the run's states.parquet; the next run of the ledger reads it back as
-- stg_ledgers__previous_states. Long and narrow, so the history's contract does not move
-- when a check is added.

{{ config(materialized='table') }}

with

suppliers as (

    select * from {{ ref('ledger_verifications') }}
    where abn is not null

),

supplier_flags as (

    select * from {{ ref('int_ledger_supplier_flags') }}

),

facts as (

    select * from {{ ref('int_ledger_abn_facts') }}

),

states as (

    {%- for check_id in bvs.check_ids() %}
    select customer, ledger, run_id, supplier_key, abn, 'tile' as kind, '{{ check_id }}' as subject,
        {{ check_id }}_status as value
    from suppliers
    union all
    {%- endfor %}

    select suppliers.customer, suppliers.ledger, suppliers.run_id, suppliers.supplier_key,
        suppliers.abn, 'flag', supplier_flags.flag_id, supplier_flags.severity
    from suppliers
    inner join supplier_flags
        on suppliers.customer = supplier_flags.customer
        and suppliers.ledger = supplier_flags.ledger
        and suppliers.supplier_key = supplier_flags.supplier_key

    union all

    select customer, ledger, run_id, supplier_key, abn, 'risk_level', 'risk_level', risk_level
    from suppliers

    union all

    select customer, ledger, run_id, supplier_key, abn, 'score', 'assurance_score',
        cast(assurance_score as {{ dbt.type_string() }})
    from suppliers

    union all

    select customer, ledger, run_id, supplier_key, abn, 'abn_status', 'abn_status', abn_register_status
    from suppliers

    union all

    select suppliers.customer, suppliers.ledger, suppliers.run_id, suppliers.supplier_key,
        suppliers.abn, facts.kind, facts.subject, facts.subject
    from suppliers
    inner join facts
        on suppliers.abn = facts.abn

),

final as (

    select
        customer,
        ledger,
        run_id,
        supplier_key,
        abn,
        kind,
        subject,
        value
    from states

)

select * from final
