-- End-of-day prices of every market, one row per (market, ticker, trade date). market is
-- the landing folder: asx, crypto or forex. Forex volume is 0 where none exists: null here,
-- so no volume signal is invented from it.

with

{%- set markets = ['asx', 'crypto', 'forex'] %}

unioned as (

    {%- for market in markets %}
    select
        '{{ market }}' as market,
        upper(trim(ticker)) as ticker,
        trade_date,
        open,
        high,
        low,
        close,
        case when volume > 0 then volume end as volume,
        source_file,
        source_line
    from {{ source('prices', market) }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}

),

final as (

    select * from unioned

)

select * from final
