-- Every (financial adviser, ABN) pair: the adviser's ABN, the adviser's name against the
-- entity's names (at least 0.8, docs/rules.md), and people: a sole trader who is the adviser,
-- or a current director of the entity's company who is (FINANCIAL_ADVISER_BANNED reads
-- these with the adviser's status).

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['int_match_records__financial_advisers', 'stg_asic__financial_advisers'],
) }}

with

register_matches as (

    {{ bvs.register_matches(ref('int_match_records__financial_advisers'), ['adviser_number']) }}

),

advisers as (

    select * from {{ ref('stg_asic__financial_advisers') }}

),

person_matches as (

    {{ bvs.person_matches('advisers', ['adviser_number'], 'adviser_name', 'compatible') }}

),

unioned as (

    select * from register_matches
    union all
    select *, cast(null as {{ dbt.type_string() }}) as identifier_note from person_matches

),

final as (

    {{ bvs.best_match_per_pair('unioned', ['adviser_number'], extra_columns=['identifier_note']) }}

)

select * from final
