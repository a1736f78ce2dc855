-- Every (ABN, name) the home-page search finds, with what a result shows: the columns
-- search_names is computed from. A view: search_names reads it twice a week (the rows that
-- changed, and the new rows to place), and a table of it would be written whole every
-- week. search_names derives its other columns (key_code, ...) for the rows it writes only.

{{ config(materialized='view') }}

with

entity_names as (

    select * from {{ ref('entity_names') }}

),

entities as (

    select * from {{ ref('entities') }}

),

-- pg_trgm's |B| of each name, counted once per distinct name and kept between weeks
trigram_counts as (

    select * from {{ ref('int_search__name_trigram_counts') }}

),

searchable_names as (

    select
        entity_names.abn,
        entity_names.name,
        entity_names.name_normalised as search_key,
        entity_names.name_kind,
        entity_names.is_legal_name,
        entity_names.bn_status,
        entities.legal_name,
        entities.abn_status,
        entities.state,
        entities.postcode,
        trigram_counts.trigram_count
    from entity_names
    inner join entities
        on entity_names.abn = entities.abn
    inner join trigram_counts
        on entity_names.name_normalised = trigram_counts.name_normalised
    where entity_names.name_normalised <> ''

),

final as (

    select
        abn,
        name,
        search_key,
        name_kind,
        is_legal_name,
        bn_status,
        legal_name,
        abn_status,
        state,
        postcode,
        trigram_count
    from searchable_names

)

select * from final
