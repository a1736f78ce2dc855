-- ANZSIC industry classification, one row per ABN.

with

source as (

    select * from {{ source('industry', 'abn_industry') }}

),

renamed as (

    select
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_code('anzsic_code') }} as anzsic_code,
        {{ bvs.clean_text('anzsic_description') }} as anzsic_description,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
