-- Every sole trader's own name with its person-name key (macros/persons.sql: the folding,
-- the surname and given names split out of it), for the person matches
-- (int_matching__people_keyed).
--
-- Incremental by ABN (macros/materializations/sliced_table.sql): a week keys again only
-- the sole traders whose `entities` inputs changed (int_matching__sole_trader_inputs), new
-- or gone. Folding and splitting a million names was most of int_matching__people_keyed's
-- time every week (4.0 of its 6.1 CPU seconds at 2 M ABNs).

{{ config(
    materialized=bvs.sliced_table_materialization(),
    incremental_key='abn',
    incremental_inputs='int_matching__sole_trader_inputs',
) }}

with

sole_traders as (

    select
        abn,
        input_hash,
        person_name
    from {{ ref('int_matching__sole_trader_inputs') }}
    where {{ bvs.in_slice('abn') }}

),

keyed as (

    {{ bvs.select_person_keys('sole_traders', 'person_name') }}

)

select * exclude (person_name_folded, person_given_names) from keyed
