-- ASIC Registered Liquidators, one row per registered liquidator. The register carries no
-- ABN: liquidators are matched by person name only.

with

source as (

    select * from {{ source('asic', 'liquidators') }}

),

renamed as (

    select
        {{ bvs.clean_text('liq_num') }} as liquidator_number,
        {{ bvs.clean_text('liq_name') }} as liquidator_name,
        {{ bvs.clean_text('off_liq_num') }} as official_liquidator_number,
        liq_start_dt as start_date,
        off_liq_start_dt as official_liquidator_start_date,
        {{ bvs.clean_text('liq_status') }} as status,
        liq_susp_dt as suspension_date,
        {{ bvs.clean_text('liq_add_local') }} as locality,
        {{ bvs.clean_code('liq_add_state') }} as state,
        {{ bvs.clean_text('liq_add_pcode') }} as postcode,
        {{ bvs.clean_code('liq_add_country') }} as country,
        {{ bvs.clean_text('liq_firm') }} as firm,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
