-- ASIC Financial Advisers register, one row per adviser role with a licensee: adviser_number
-- recurs across roles, licensees and periods, so it is no key here.

with

source as (

    select * from {{ source('asic', 'financial_advisers') }}

),

renamed as (

    select
        {{ bvs.clean_text('adv_name') }} as adviser_name,
        {{ bvs.clean_text('adv_number') }} as adviser_number,
        {{ bvs.clean_text('adv_role') }} as role,
        {{ bvs.clean_text('adv_role_status') }} as role_status,
        {{ bvs.clean_identifier('adv_abn') }} as abn,
        {{ bvs.clean_text('licence_name') }} as licence_name,
        {{ bvs.clean_text('licence_number') }} as licence_number,
        {{ bvs.clean_identifier('licence_abn') }} as licence_abn,
        adv_start_dt as start_date,
        adv_end_dt as end_date,
        {{ bvs.clean_text('overall_registration_status') }} as overall_registration_status,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
