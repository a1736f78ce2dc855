-- Per ABN, a hash of everything its `entities` row and its `entity_names` rows are computed
-- from: its ABR record, its ABR other names, its business-name registrations, and every ASIC
-- company `entities` could match it to (the company whose ACN is its ASIC number, the one
-- whose ACN is the last 9 digits of the ABN, whichever the entity type, and those that list
-- the ABN). Two builds with the same inputs for an ABN give it the same rows, so a week
-- recomputes only the ABNs whose hash changed (macros/materializations/sliced_table.sql;
-- docs/weekly-refresh.md, "The incremental week"). Each input row is hashed without its
-- source_file and source_line: the ABR's file names carry the extract's date, and a line
-- number moves with every record inserted before it. A new input of `entities` or
-- `entity_names` joins the terms below; tests/e2e/test_incremental_week.py fails when one is
-- left out.

{{ config(materialized='table') }}

{%- set located = ['source_file', 'source_line'] %}

with

-- the hash of the ABR record the ABN's staged row is made from (stg_abr__abn_record_hashes)
abns as (

    select
        abn,
        asic_number,
        input_hash as row_hash
    from {{ ref('stg_abr__abns') }}

),

-- the names listed against the ABN, a sum of their row hashes: a sum, not an exclusive or,
-- so that two equal rows do not cancel out
{%- for alias, model in [
    ('other_names', 'stg_abr__other_names'),
    ('business_names', 'stg_asic__business_names'),
] %}
{{ alias }} as (

    select
        abn,
        sum(hash({{ alias }})) as rows_hash
    from (
        select {{ bvs.input_columns(ref(model), exclude=located) }}
        from {{ ref(model) }}
    ) as {{ alias }}
    group by abn

),
{% endfor %}
companies as (

    select
        acn,
        abn,
        hash(companies) as row_hash
    from (
        select {{ bvs.input_columns(ref('stg_asic__companies'), exclude=located) }}
        from {{ ref('stg_asic__companies') }}
    ) as companies

),

companies_by_abn as (

    select
        abn,
        sum(row_hash) as rows_hash
    from companies
    where abn is not null
    group by abn

),

final as (

    select
        abns.abn,
        hash(
            abns.row_hash,
            other_names.rows_hash,
            business_names.rows_hash,
            by_asic_number.row_hash,
            by_abn_suffix.row_hash,
            companies_by_abn.rows_hash
        ) as input_hash
    from abns
    left join other_names
        on abns.abn = other_names.abn
    left join business_names
        on abns.abn = business_names.abn
    left join companies as by_asic_number
        on abns.asic_number = by_asic_number.acn
    left join companies as by_abn_suffix
        on {{ dbt.right('abns.abn', 9) }} = by_abn_suffix.acn
    left join companies_by_abn
        on abns.abn = companies_by_abn.abn

)

select * from final
