-- ASX listed companies, one row per ASX code. Maps tickers to company names (and, through
-- name matching, to ABNs).

with

source as (

    select * from {{ source('asx', 'listed_companies') }}

),

renamed as (

    select
        {{ bvs.clean_code('asx_code') }} as asx_code,
        {{ bvs.clean_text('company_name') }} as company_name,
        {{ bvs.clean_text('gics_industry_group') }} as gics_industry_group,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
