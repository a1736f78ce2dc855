-- Every (banned or disqualified person, ABN) pair: docs/rules.md "person name similarity at
-- least 0.75", against a sole trader's own name (person_name) and against the current
-- directors of the entity's company (director_name). Keyed by name and start date: the
-- register has no record id.

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['stg_asic__banned_persons'],
) }}

with

banned_persons as (

    select * from {{ ref('stg_asic__banned_persons') }}

),

person_matches as (

    {{ bvs.person_matches('banned_persons', ['person_name', 'start_date'], 'person_name', 'similarity', 0.75) }}

),

final as (

    {{ bvs.best_match_per_pair('person_matches', ['person_name', 'start_date']) }}

)

select * from final
