-- The number of distinct pg_trgm trigrams of every distinct normalised entity name: |B| of
-- the home-page search's similarity (search_names.trigram_count). Incremental (dbt's own):
-- a week counts only the names no entity had before, and the names no entity has any more
-- are deleted (the post-hook), so the table is the one a whole build gives. A week after
-- its code changed (the trigram macros) counts every name again (macros/search/ids.sql).

{{ config(
    materialized='incremental',
    incremental_strategy='append',
    pre_hook="{{ bvs.search_index_pre_hook('') }}",
    post_hook=[
        "{{ bvs.delete_names_gone(this, ref('int_matching__entity_names_keyed')) }}",
        "{{ bvs.record_search_index_code() }}",
    ],
) }}

{%- set whole = bvs.search_index_whole_build() %}

with

names as (

    select name_normalised from {{ ref('int_matching__entity_names_keyed') }}

),

{% if not whole %}
new_names as (

    select names.name_normalised
    from names
    anti join {{ this }} as counted
        on names.name_normalised = counted.name_normalised

),
{% else %}
new_names as (

    select * from names

),
{% endif %}

final as (

    select
        name_normalised,
        cast(len({{ bvs.trigram_array('name_normalised') }}) as integer) as trigram_count
    from new_names

)

select * from final
