-- One row per ABN from the ABR bulk extract, with the extract's placeholder values resolved
-- (LANDING.md, ABR): postcode 0000 and empty state -> null, 1900-01-01 dates (the GST `NON`
-- dummy date 19000101) -> null. Status codes (ACT/CAN, GST ACT/CAN/NON) are kept as given.
--
-- A table, where staging is otherwise views: its cleaning and de-duplication cost about 4 s
-- a read at 2 M ABNs, and a week's `entities` and `entity_names` each read only the ABNs
-- whose inputs changed, which DuckDB filters out of a table but not before a view's window
-- (docs/weekly-refresh.md, "The incremental week").
{{ config(materialized='table') }}

with

source as (

    select * from {{ source('abr', 'abns') }}

),

renamed as (

    select
        {{ bvs.clean_identifier('abn') }} as abn,
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
        {{ bvs.null_if_dummy_date('record_last_updated_date') }} as record_last_updated_date,
        source_file,
        source_line
    from source

),

records_ranked_by_recency as (

    select
        *,
        row_number() over (
            partition by abn
            order by record_last_updated_date desc nulls last, source_file desc, source_line desc
        ) as recency_rank
    from renamed
    where abn is not null

),

-- An ABN listed twice (overlapping extract files) keeps its most recently updated record.
final as (

    select
        abn,
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
        source_file,
        source_line
    from records_ranked_by_recency
    where recency_rank = 1

)

select * from final
