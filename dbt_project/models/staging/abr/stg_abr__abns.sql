-- One row per ABN from the ABR bulk extract, with the extract's placeholder values resolved
-- (LANDING.md, ABR): postcode 0000 and empty state -> null, 1900-01-01 dates (the GST `NON`
-- dummy date 19000101) -> null. Status codes (ACT/CAN, GST ACT/CAN/NON) are kept as given.
--
-- The file and line of a record are raw.abr__abns' only: they change every week for every
-- record (the file names carry the extract's date). One record per ABN: raw.abr__abns' key
-- is the ABN, checked before a load is swapped in (pipelines/warehouse/quality.py,
-- key_unique, blocking); a record without an ABN has no row.
--
-- A table, where staging is otherwise views: its cleaning costs seconds a read at 2 M ABNs,
-- and a week's `entities` and `entity_names` each read only the ABNs whose inputs changed.
-- A week's build cleans again only the records of the ABNs whose record changed
-- (stg_abr__abn_record_hashes; macros/materializations/sliced_table.sql;
-- docs/weekly-refresh.md, "The incremental week").
{{ config(
    materialized=bvs.sliced_table_materialization(),
    incremental_key='abn',
    incremental_inputs='stg_abr__abn_record_hashes',
) }}

with

source as (

    select
        {{ bvs.clean_identifier('abn') }} as abn_cleaned,
        *
    from {{ source('abr', 'abns') }}

),

-- before anything is cleaned: a week's build keeps only the changed ABNs' records here
source_records as (

    select * from source where {{ bvs.in_slice('abn_cleaned') }}

),

record_hashes as (

    select * from {{ ref('stg_abr__abn_record_hashes') }} where {{ bvs.in_slice('abn') }}

),

renamed as (

    select
        abn_cleaned as abn,
        {{ bvs.clean_text('entity_name') }} as legal_name,
        {{ bvs.clean_code('entity_type_code') }} as entity_type_code,
        {{ bvs.clean_text('entity_type_text') }} as entity_type_text,
        is_individual,
        {{ bvs.clean_text('name_title') }} as name_title,
        {{ bvs.clean_text('given_name') }} as given_name,
        {{ bvs.clean_text('other_given_name') }} as other_given_name,
        {{ bvs.clean_text('family_name') }} as family_name,
        {{ bvs.clean_code('abn_status') }} as abn_status,
        {{ bvs.null_if_dummy_date('abn_status_from_date') }} as abn_status_from_date,
        {{ bvs.clean_code('gst_status') }} as gst_status,
        {{ bvs.null_if_dummy_date('gst_status_from_date') }} as gst_status_from_date,
        {{ bvs.clean_code('state') }} as state,
        case
            when trim(postcode) = '0000' then null  -- 0000 means "unknown"
            else nullif(trim(postcode), '')
        end as postcode,
        {{ bvs.clean_identifier('asic_number') }} as asic_number,
        {{ bvs.clean_text('asic_number_type') }} as asic_number_type,
        coalesce(upper(trim(replaced)) = 'Y', false) as is_replaced,
        {{ bvs.null_if_dummy_date('record_last_updated_date') }} as record_last_updated_date
    from source_records

),

final as (

    select
        renamed.abn,
        legal_name,
        entity_type_code,
        entity_type_text,
        is_individual,
        name_title,
        given_name,
        other_given_name,
        family_name,
        abn_status,
        abn_status_from_date,
        gst_status,
        gst_status_from_date,
        state,
        postcode,
        asic_number,
        asic_number_type,
        is_replaced,
        record_last_updated_date,
        record_hashes.input_hash
    from renamed
    inner join record_hashes
        on renamed.abn = record_hashes.abn

)

select * from final
