-- Per ABN, a hash of its ABR record as published, without its source_file and source_line.
-- The ABR's file names carry the extract's date and a line number moves with every record
-- inserted before it, so those two change for every record every week; the record's content
-- changes only when the ABR changed it. Two builds with the same hash give the ABN the same
-- staged row, so a week's stg_abr__abns cleans again only the records of the ABNs whose hash
-- changed (macros/materializations/sliced_table.sql).
--
-- One record per ABN, as raw.abr__abns holds them: its key is the ABN, checked before a load
-- is swapped in (pipelines/warehouse/quality.py, key_unique, blocking), so an extract that
-- lists an ABN twice is refused with the files that hold it, and the last good one stays.

{{ config(materialized='table') }}

{%- set located = ['source_file', 'source_line'] %}

with

source as (

    select * from {{ source('abr', 'abns') }}

),

final as (

    select
        {{ bvs.clean_identifier('abn') }} as abn,
        hash(*columns(* exclude ({{ located | join(', ') }}))) as input_hash
    from source

)

select * from final
where abn is not null
