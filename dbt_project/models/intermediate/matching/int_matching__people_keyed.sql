-- The people the person registers (banned persons, liquidators, financial advisers) are
-- matched against (macro person_matches), keyed once for the three: each sole trader's own
-- name (method person_name) and each director of an ABN's company current on the as-of date
-- (director_name), with the person-name key (macros/persons.sql: person_surname and
-- first_initial, the blocking key; the first given name and up to four middle names).
--
-- A table: each of the three match tables folded and split the million sole traders' names
-- again (about a second each at 2 M ABNs).

{{ config(materialized='table') }}

with

entities as (

    select * from {{ ref('entities') }}

),

sole_traders as (

    select
        abn,
        legal_name as person_name
    from entities
    where is_individual
        and legal_name is not null

),

sole_traders_keyed as (

    {{ bvs.select_person_keys('sole_traders', 'person_name') }}

),

officeholders as (

    select * from {{ ref('int_officeholders_keyed') }}

),

current_directors as (

    select
        entities.abn,
        officeholders.*
    from officeholders
    inner join entities
        on officeholders.acn = entities.acn
    where {{ bvs.is_current_director('officeholders') }}

),

{%- set key_columns %}
        person_name,
        person_surname,
        first_initial,
        first_given_name,
        {%- for i in range(1, bvs.person_middle_name_slots() + 1) %}
        middle_name_{{ i }},
        {%- endfor %}
        middle_name_count
{%- endset %}

final as (

    select
        abn,
        'person_name' as method,
        4 as method_rank,
        {{- key_columns }}
    from sole_traders_keyed
    union all
    select
        abn,
        'director_name' as method,
        5 as method_rank,
        {{- key_columns }}
    from current_directors

)

select * from final
