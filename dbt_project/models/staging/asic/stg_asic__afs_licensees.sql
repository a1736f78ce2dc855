-- ASIC AFS Licensee dataset, one row per AFS licence. AFS_LIC_ABN_ACN holds an ABN or an ACN
-- (check digits verified at ingest): split into abn / acn by length. Conditions span lines
-- and keep their line breaks.

with

source as (

    select * from {{ source('asic', 'afs_licensees') }}

),

renamed as (

    select
        {{ bvs.clean_text('afs_lic_num') }} as licence_number,
        {{ bvs.clean_text('afs_lic_name') }} as licensee_name,
        {{ bvs.abn_of_abn_or_acn('afs_lic_abn_acn') }} as abn,
        {{ bvs.acn_of_abn_or_acn('afs_lic_abn_acn') }} as acn,
        afs_lic_start_dt as start_date,
        {{ bvs.clean_code('afs_lic_pre_fsr') }} as pre_fsr,
        {{ bvs.clean_text('afs_lic_add_local') }} as locality,
        {{ bvs.clean_code('afs_lic_add_state') }} as state,
        {{ bvs.clean_text('afs_lic_add_pcode') }} as postcode,
        {{ bvs.clean_code('afs_lic_add_country') }} as country,
        try_cast(afs_lic_lat as double) as latitude,
        try_cast(afs_lic_lng as double) as longitude,
        {{ bvs.clean_long_text('afs_lic_condition') }} as conditions,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
