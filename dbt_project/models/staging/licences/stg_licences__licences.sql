-- Trade licences, one row per (register, licence_number). trade is lower case as
-- published (building, electrical, plumbing, gas_fitting, other); register and status are
-- upper-cased codes.

with

source as (

    select * from {{ source('licences', 'licences') }}

),

renamed as (

    select
        {{ bvs.clean_code('register') }} as register,
        {{ bvs.clean_text('licence_number') }} as licence_number,
        {{ bvs.clean_text('licensee_name') }} as licensee_name,
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_identifier('acn') }} as acn,
        {{ bvs.clean_text('licence_class') }} as licence_class,
        nullif(lower(trim(trade)), '') as trade,
        {{ bvs.clean_code('status') }} as status,
        granted_date,
        expiry_date,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
