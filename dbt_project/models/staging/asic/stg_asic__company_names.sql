-- Every name row of the ASIC Company Dataset: the current name (current_name_indicator = Y)
-- and one row per former name, which repeats the company's current name in `current_name`.
-- Status codes (REGD, DRGD, EXAD, SOFF, DISS, ...) and types are kept as published.

with

source as (

    select * from {{ source('asic', 'companies') }}

),

renamed as (

    select
        {{ bvs.clean_identifier('acn') }} as acn,
        {{ bvs.clean_text('company_name') }} as company_name,
        coalesce(upper(trim(current_name_indicator)) = 'Y', false) as is_current_name,
        {{ bvs.clean_text('current_name') }} as current_name,
        {{ bvs.null_if_dummy_date('current_name_start_date') }} as current_name_start_date,
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_code(adapter.quote('type')) }} as company_type,
        {{ bvs.clean_code(adapter.quote('class')) }} as company_class,
        {{ bvs.clean_code('sub_class') }} as company_sub_class,
        {{ bvs.clean_code('status') }} as company_status,
        {{ bvs.null_if_dummy_date('date_of_registration') }} as registration_date,
        {{ bvs.null_if_dummy_date('date_of_deregistration') }} as deregistration_date,
        {{ bvs.clean_code('previous_state_of_registration') }} as previous_state_of_registration,
        {{ bvs.clean_text('state_registration_number') }} as state_registration_number,
        {{ bvs.clean_code('modified_since_last_report') }} as modified_since_last_report,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
