-- ASIC Business Names Dataset, one row per registration. BN_NAME comes padded with leading
-- spaces (trimmed here); BN_STATUS is kept as published (Registered, Cancelled and the
-- undocumented Deregistered); BN_ABN may be empty (-> null).

with

source as (

    select * from {{ source('asic', 'business_names') }}

),

renamed as (

    select
        {{ bvs.clean_text('bn_name') }} as business_name,
        {{ bvs.clean_identifier('bn_abn') }} as abn,
        {{ bvs.clean_text('bn_status') }} as bn_status,
        {{ bvs.null_if_dummy_date('bn_reg_dt') }} as registration_date,
        {{ bvs.null_if_dummy_date('bn_cancel_dt') }} as cancellation_date,
        {{ bvs.clean_text('bn_state_num') }} as state_number,
        {{ bvs.clean_code('bn_state_of_reg') }} as state_of_registration,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
