-- What the run records about each verified supplier to compare with the next run
-- (docs/decisions/16-changes-between-runs.md), in two kinds of row:
--
--   kind 'supplier' (one per supplier): value = a JSON object of every tile's status
--       (`tile_<check id>`), every flag that fired (`flag_<flag id>`: its severity), the risk
--       level, the assurance score and the ABN's register status. Two runs' objects are equal
--       when nothing of these changed, so the next run compares one row per supplier.
--   kind 'director', 'adverse_record', 'enforcement', 'insolvency' (one per fact; subject =
--       the director's name, the record): the facts of int_ledger_abn_facts.
--
-- Kept as the run's states.parquet; the next run of the ledger reads it back as
-- stg_ledgers__previous_states. Narrow, so the history's contract does not move when a
-- check is added.

{{ config(materialized='table') }}

{%- set state_members = [] %}
{%- for check_id in bvs.check_ids() %}
{%- do state_members.append(('tile_' ~ check_id, 'suppliers.' ~ check_id ~ '_status')) %}
{%- endfor %}
{%- for flag_id in bvs.flag_ids() %}
{%- do state_members.append(('flag_' ~ flag_id, 'flags_wide.flag_' ~ flag_id)) %}
{%- endfor %}
{%- do state_members.extend([
    ('risk_level', 'suppliers.risk_level'),
    ('score', 'suppliers.assurance_score'),
    ('abn_status', 'suppliers.abn_register_status'),
]) %}

with

suppliers as (

    select * from {{ ref('ledger_verifications') }}
    where abn is not null

),

supplier_flags as (

    select * from {{ ref('int_ledger_supplier_flags') }}

),

flags_wide as (

    select
        supplier_id,
        {%- for flag_id in bvs.flag_ids() %}
        max(case when flag_id = '{{ flag_id }}' then severity end) as flag_{{ flag_id }}
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from supplier_flags
    group by supplier_id

),

facts as (

    select * from {{ ref('int_ledger_abn_facts') }}

),

states as (

    select
        suppliers.customer,
        suppliers.ledger,
        suppliers.run_id,
        suppliers.supplier_key,
        suppliers.abn,
        'supplier' as kind,
        cast(null as {{ dbt.type_string() }}) as subject,
        {{ bvs.json_object(state_members) }} as value
    from suppliers
    left join flags_wide
        on suppliers.supplier_id = flags_wide.supplier_id

    union all

    select
        suppliers.customer,
        suppliers.ledger,
        suppliers.run_id,
        suppliers.supplier_key,
        suppliers.abn,
        facts.kind,
        facts.subject,
        facts.subject
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
