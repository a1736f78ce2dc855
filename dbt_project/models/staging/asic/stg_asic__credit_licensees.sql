-- ASIC Credit Licensee dataset, one row per credit licence. CRED_LIC_ABN_ACN holds an ABN or
-- an ACN (check digits verified at ingest): split into abn / acn by length.

with

source as (

    select * from {{ source('asic', 'credit_licensees') }}

),

renamed as (

    select
        {{ bvs.clean_text('cred_lic_num') }} as licence_number,
        {{ bvs.clean_text('cred_lic_name') }} as licensee_name,
        cred_lic_start_dt as start_date,
        cred_lic_end_dt as end_date,
        {{ bvs.clean_text('cred_lic_status') }} as status,
        {{ bvs.abn_of_abn_or_acn('cred_lic_abn_acn') }} as abn,
        {{ bvs.acn_of_abn_or_acn('cred_lic_abn_acn') }} as acn,
        {{ bvs.clean_text('cred_lic_afsl_num') }} as afs_licence_number,
        {{ bvs.clean_long_text('cred_lic_status_history') }} as status_history,
        {{ bvs.clean_text('cred_lic_locality') }} as locality,
        {{ bvs.clean_code('cred_lic_state') }} as state,
        {{ bvs.clean_text('cred_lic_pcode') }} as postcode,
        try_cast(cred_lic_lat as double) as latitude,
        try_cast(cred_lic_lng as double) as longitude,
        {{ bvs.clean_text('cred_lic_edrs') }} as dispute_resolution_scheme,
        {{ bvs.clean_long_text('cred_lic_bn') }} as business_names,
        {{ bvs.clean_long_text('cred_lic_authorisations') }} as authorisations,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
