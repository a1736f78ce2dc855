-- The name index of the home-page search (docs/search.md): one row per (ABN, name) for every
-- legal, business, trading, other and DGR name whose normalised form is not empty, with
-- what a search result shows (the ABN's legal name, status, state, postcode), so a tier
-- answers from the rows it finds without a second lookup.
--
-- Physically ordered by (search_key, abn); name_id numbers the rows in that order. A
-- prefix lookup is a range of key_code (macro search_code: the first 11 characters as an
-- order-preserving integer), which DuckDB's zone maps (min/max per row group) prune to the
-- one or two row groups holding the prefix, and `order by name_id limit n` stops once n
-- rows are found. Integer filters matter: comparing a compressed string column costs
-- DuckDB a decode of the whole segment. The serving snapshot copies tables with
-- `create table as select *`, which keeps this order.

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
        row_number() over (order by search_key, abn) as name_id,
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
order by name_id
