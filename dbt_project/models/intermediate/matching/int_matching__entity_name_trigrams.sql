-- The trigram index of entity names: one row per (distinct name, trigram), what a pg_trgm
-- GIN index holds, as a table. int_matching__name_similarities looks candidates up here.

{{ config(materialized='table') }}

with

names as (

    select * from {{ ref('int_matching__entity_names_keyed') }}

),

final as (

    {{ bvs.select_trigram_rows('names', 'name_id', 'name_normalised') }}

)

select * from final
