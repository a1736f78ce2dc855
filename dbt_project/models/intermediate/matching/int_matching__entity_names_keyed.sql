-- Every distinct normalised entity name (legal, business, trading and other names of every
-- ABN) once, with a compact integer id: the entity side of the trigram index. Name
-- matching works on distinct names, then fans out to ABNs through entity_names.
--
-- Incremental (dbt's own): the pre-hook deletes the names no entity has any more, and a
-- week appends the names no entity had before, numbered after the largest id kept; a whole
-- build numbers every name in name order. The ids are the similarity join's own keys for
-- the names of one run (pipelines/matching/similarity.py), read nowhere else, so a week
-- need not renumber the names to keep them in order: a whole build sorts and writes every
-- name, a week writes the 1 % that are new (alone on a 2 M-ABN warehouse, 1.5 s against
-- 2.3 s, medians of three; docs/weekly-refresh.md).
-- Which names are keyed is `bvs.entity_names_to_key()`; a week's pre-hook finds them once,
-- into a temporary table that the delete and the model both read.

{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{% if is_incremental() %}
        create or replace temporary table {{ bvs.entity_names_now() }} as {{ bvs.entity_names_to_key() }};
        {{ bvs.delete_names_gone(this, bvs.entity_names_now()) }}
    {% endif %}",
    post_hook="drop table if exists {{ bvs.entity_names_now() }}",
) }}

with

{% if is_incremental() %}

new_names as (

    select names.name_normalised
    from {{ bvs.entity_names_now() }} as names
    anti join {{ this }} as keyed
        on names.name_normalised = keyed.name_normalised

),

final as (

    select
        (select coalesce(max(name_id), 0) from {{ this }})
            + row_number() over (order by name_normalised) as name_id,
        name_normalised
    from new_names

)

{% else %}

distinct_names as (

    {{ bvs.entity_names_to_key() }}

),

final as (

    select
        row_number() over (order by name_normalised) as name_id,
        name_normalised
    from distinct_names

)

{% endif %}

select * from final
