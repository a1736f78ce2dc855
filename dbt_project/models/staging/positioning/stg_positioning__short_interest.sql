-- Crypto and forex short-interest proxies, one row per symbol and date (a percent).

with

source as (

    select * from {{ source('positioning', 'short_interest') }}

),

final as (

    select
        date as position_date,
        upper(trim(symbol)) as ticker,
        short_interest_pct,
        {{ bvs.clean_text('source') }} as proxy_source,
        source_file,
        source_line
    from source

)

select * from final
