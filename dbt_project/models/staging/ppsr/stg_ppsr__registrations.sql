-- PPSR registrations against a grantor, one row per registration_number. A registration
-- is current while end_date is null or after the as-of date (is_current).

with

source as (

    select * from {{ source('ppsr', 'registrations') }}

),

renamed as (

    select
        {{ bvs.clean_text('registration_number') }} as registration_number,
        {{ bvs.clean_identifier('grantor_abn') }} as grantor_abn,
        {{ bvs.clean_identifier('grantor_acn') }} as grantor_acn,
        {{ bvs.clean_text('grantor_name') }} as grantor_name,
        {{ bvs.clean_code('collateral_class') }} as collateral_class,
        start_date,
        end_date,
        (end_date is null or end_date > {{ bvs.as_of_date() }}) as is_current,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
