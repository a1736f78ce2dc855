-- Every officeholder row the warehouse has ever loaded (the current version of each
-- appointment in the directors__officeholders snapshot), with the person-name key the
-- phoenix match joins on: person_surname and first_initial (the blocking key), the first
-- given name and up to four middle names (macros/persons.sql, the rule of
-- pipelines/matching/persons.py).
--
-- A table rather than a view: phoenix_links reads it twice (current directors, and
-- officeholders of deregistered companies) and phoenix_assessments once more, and the
-- name folding is regular-expression work on every row.

{{ config(materialized='table') }}

with

officeholder_versions as (

    select * from {{ ref('directors__officeholders') }}

),

officeholders as (

    select
        acn,
        person_name,
        role,
        appointed_date,
        ceased_date,
        birth_date,
        extracted_date
    from officeholder_versions
    where dbt_valid_to is null
        and acn is not null

),

officeholders_keyed as (

    {{ bvs.select_person_keys('officeholders', 'person_name') }}

),

final as (

    select
        acn,
        person_name,
        role,
        appointed_date,
        ceased_date,
        birth_date,
        extracted_date,
        person_surname,
        person_given_names,
        first_given_name,
        first_initial,
        {%- for i in range(1, bvs.person_middle_name_slots() + 1) %}
        middle_name_{{ i }},
        {%- endfor %}
        middle_name_count
    from officeholders_keyed

)

select * from final
