-- Published notices about companies, one row per notice_id. notice_type kept as
-- published (WINDING_UP_APPLICATION, APPOINTMENT_OF_LIQUIDATOR, ..., OTHER).

with

source as (

    select * from {{ source('gazette', 'notices') }}

),

renamed as (

    select
        {{ bvs.clean_text('notice_id') }} as notice_id,
        published_date,
        {{ bvs.clean_code('notice_type') }} as notice_type,
        {{ bvs.clean_text('company_name') }} as company_name,
        {{ bvs.clean_identifier('acn') }} as acn,
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_text('summary') }} as summary,
        {{ bvs.clean_text('url') }} as url,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
