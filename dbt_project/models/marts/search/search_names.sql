-- The name index of the home-page search (docs/search.md): one row per (ABN, name) for every
-- legal, business, trading, other and DGR name whose normalised form is not empty, with
-- what a search result shows (the ABN's legal name, status, state, postcode), so a tier
-- answers from the rows it finds without a second lookup (int_search__names).
--
-- Ordered by (search_key, abn, name); name_id follows that order (macros/search/ids.sql).
-- A prefix lookup is a range of key_code (macro search_code: the first 11 characters as an
-- order-preserving integer), which DuckDB's zone maps (min/max per row group) prune to the
-- one or two row groups holding the prefix. Integer filters matter: comparing a compressed
-- string column costs DuckDB a decode of the whole segment.
--
-- Incremental: a week deletes the rows of the ABNs whose inputs changed, and of those gone
-- (the pre-hook, by entities.input_hash: macros/search/changed_rows.sql), and appends those
-- ABNs' rows, in name_id order, with ids between their neighbours'. A week after the
-- model's code, or the code of what it reads, changed rebuilds it whole
-- (macros/search/ids.sql).
-- The appended rows are a sorted run of their own at the table's end, which zone maps
-- prune as well; the serving snapshot stores the table in name_id order when it copies it
-- whole (docs/decisions/33-a-weeks-search-index-is-placed-between-its-ids.md).

{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    search_index_abn_inputs='search_names_abn_inputs',
    search_index_reads=['entities', 'entity_names', 'int_search__name_trigram_counts', 'int_search__names'],
    pre_hook="{{ bvs.search_index_pre_hook(bvs.search_index_changed_abns(this, 'abn')) }}",
    post_hook=[
        "{{ bvs.search_index_record_state(this, 'abn') }}",
        "{{ bvs.record_search_index_code() }}",
    ],
) }}

-- depends_on: {{ ref('entities') }}

{%- set whole = bvs.search_index_whole_build() %}

with

names as (

    select * from {{ ref('int_search__names') }}

),

{% if not whole %}

new_rows as (

    select
        names.*,
        struct_pack(search_key := names.search_key, abn := names.abn, name := names.name) as sort_key,
        {{ bvs.search_code('names.search_key') }} as code
    from names
    where names.abn in (select abn from {{ bvs.search_index_changed(this) }})

),

kept_rows as (

    select
        struct_pack(search_key := search_key, abn := abn, name := name) as sort_key,
        key_code as code,
        name_id as id
    from {{ this }}

),

placed as (

    {{ bvs.place_between('new_rows', 'kept_rows', 'name_id') }}

),

{% else %}

placed as (

    select
        *,
        row_number() over (order by search_key, abn, name) * {{ bvs.search_id_spacing() }} as name_id
    from names

),

{% endif %}

final as (

    select
        name_id,
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
    from placed

)

select * from final
order by name_id
