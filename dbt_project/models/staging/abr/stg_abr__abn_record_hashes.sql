-- Per ABN, a hash of the ABR record stg_abr__abns keeps for it: the one updated last, then
-- the last in the extract's file order (the same order as stg_abr__abns), hashed as published
-- without its source_file and source_line. The ABR's file names carry the extract's date and
-- a line number moves with every record inserted before it, so those two change for every
-- record every week; the kept record's content changes only when the ABR changed it. Two
-- builds with the same hash give the ABN the same staged row, so a week's stg_abr__abns
-- cleans again only the records of the ABNs whose hash changed
-- (macros/materializations/sliced_table.sql).

{{ config(materialized='table') }}

{%- set located = ['source_file', 'source_line'] %}

with

source as (

    select * from {{ source('abr', 'abns') }}

),

records as (

    select
        {{ bvs.clean_identifier('abn') }} as abn,
        hash(*columns(* exclude ({{ located | join(', ') }}))) as record_hash,
        -- stg_abr__abns' order: updated last (no date, or the dummy date, first), then the
        -- last in file order
        (
            coalesce({{ bvs.null_if_dummy_date('record_last_updated_date') }}, cast('0001-01-01' as date)),
            source_file,
            source_line
        ) as recency
    from source

),

final as (

    select
        abn,
        arg_max(record_hash, recency) as input_hash
    from records
    where abn is not null
    group by abn

)

select * from final
