-- Every (registered liquidator, ABN) pair: the register has no ABN, so people only (docs/rules.md#risk-flags LIQUIDATOR_LINKED): a current director of the entity's company (director_name) or a
-- sole trader (person_name) who is the liquidator by the person-name rule.

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['stg_asic__liquidators'],
) }}

with

liquidators as (

    select * from {{ ref('stg_asic__liquidators') }}

),

person_matches as (

    {{ bvs.person_matches('liquidators', ['liquidator_number'], 'liquidator_name', 'compatible') }}

),

final as (

    {{ bvs.best_match_per_pair('person_matches', ['liquidator_number']) }}

)

select * from final
