-- Other names of an ABN, one row per name the extract lists: trading (TRD), business (BN),
-- other (OTN) and deductible-gift-recipient fund (DGR) names. Names trimmed and
-- whitespace-collapsed; an empty name (a DGR entry without a fund name) becomes null.

with

source as (

    select * from {{ source('abr', 'other_names') }}

),

renamed as (

    select
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_code('name_type') }} as name_type,
        {{ bvs.clean_text('name') }} as name,
        {{ bvs.clean_code('dgr_status') }} as dgr_status,
        {{ bvs.null_if_dummy_date('dgr_status_from_date') }} as dgr_status_from_date,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
