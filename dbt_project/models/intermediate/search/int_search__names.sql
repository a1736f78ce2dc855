-- Every (ABN, name) the home-page search finds, with what a result shows: search_names
-- without its ids. A view: search_names reads it twice a week (the rows that changed, and
-- the new rows to place), and a table of it would be written whole every week.

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
        {{ bvs.search_code('search_key') }} as key_code,
        search_key,
        cast(length(search_key) as integer) as key_length,
        cast(trigram_count as integer) as trigram_count,
        cast(abn as bigint) as abn_id,
        abn,
        name,
        name_kind,
        is_legal_name,
        bn_status,
        legal_name,
        abn_status,
        coalesce(abn_status = 'ACT', false) as is_active,
        state,
        postcode
    from searchable_names

)

select * from final
