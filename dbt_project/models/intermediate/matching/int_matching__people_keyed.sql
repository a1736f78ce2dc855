-- The people the person registers (banned persons, liquidators, financial advisers) are
-- matched against (macro person_matches), keyed once for the three: each sole trader's own
-- name (method person_name) and each director of an ABN's company current on the as-of date
-- (director_name), with the person-name key (macros/persons.sql: person_surname and
-- first_initial, the blocking key; the first given name and up to four middle names).
--
-- A table: each of the three match tables folded and split the million sole traders' names
-- again (about a second each at 2 M ABNs). The sole traders' keys are kept from week to
-- week (int_matching__sole_traders_keyed); the directors current on the as-of date are
-- found again each build.

-- The post-hook records when it was built, for the match tables
-- (macros/materializations/match_table.sql).
{{ config(
    materialized='table',
    post_hook="{{ bvs.record_match_input_build() }}",
) }}

with

entities as (

    select * from {{ ref('entities') }}

),

sole_traders_keyed as (

    select * from {{ ref('int_matching__sole_traders_keyed') }}

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
