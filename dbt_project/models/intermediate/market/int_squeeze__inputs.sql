-- The Squeeze Score's inputs per instrument and day (docs/market.md), before any scaling:
--   short_interest_pct  ASX: reported short positions as a percent of the product in issue
--                       (ASIC, the newest position at or before the day, at most 14 days
--                       old: ASIC publishes about four business days late); crypto and
--                       forex: the positioning proxy (short share of open interest)
--   days_to_cover       short position / average daily volume of the last 20 trading days
--                       (ASX only: the others have no position size)
--   momentum            5-day price change relative to the 20-day average close:
--                       (close - close 5 trading days earlier) / mean close of the last 20
--   volume_ratio        the day's volume / mean volume of the 20 trading days before it
-- A value that cannot be computed is null (fewer than 20 trading days of history, no short
-- data, no volume); int_squeeze__signals says which.
--
-- The newest short data at or before a day is carried forward along each instrument's
-- timeline (prices and short rows in date order, a running max of the position date):
-- one sort instead of a range join of every day against 14 days of positions.
--
-- Incremental (macros/market/incremental.sql): a build recomputes only the days on or after
-- the earliest date whose files changed since the last build (a new day: that day; a
-- version 002 or a corrected file: its date), reading the 20 trading days before it per
-- instrument for the windows. Rows record what they were built from (source_loads), when
-- (built_at) and from which date (recomputed_from; null for a whole rebuild).


{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='append_new_columns',
    pre_hook="{{ bvs.delete_recomputed_days('trade_date', bvs.market_recompute_from(bvs.squeeze_raw_inputs())) }}",
) }}
-- depends_on: {{ source('meta', 'manifest') }}

{%- set raw_inputs = bvs.squeeze_raw_inputs() %}
{%- set recompute_from = bvs.market_recompute_from(raw_inputs) %}
{%- set partial = recompute_from not in [none, 'all'] %}
{%- set from_date = "cast('" ~ recompute_from ~ "' as date)" %}

with

all_prices as (

    select * from {{ ref('stg_prices__daily') }}
    {%- if recompute_from is none %} where 1 = 0{% endif %}

),

{% if partial -%}
-- the 20 trading days before the first recomputed day, per instrument: looked for in the
-- 62 days before it (about 43 trading days), and in the whole history only for an
-- instrument with fewer than 20 days there (a suspension, a new listing)
recent_days as (

    select
        market,
        ticker,
        count(*) as days
    from all_prices
    where trade_date < {{ from_date }}
        and trade_date >= {{ dbt.dateadd('day', -62, from_date) }}
    group by market, ticker

),

history_start as (

    select
        market,
        ticker,
        min(trade_date) as first_needed
    from (
        select
            all_prices.market,
            all_prices.ticker,
            all_prices.trade_date,
            row_number() over (
                partition by all_prices.market, all_prices.ticker
                order by all_prices.trade_date desc
            ) as days_back
        from all_prices
        left join recent_days
            on all_prices.market = recent_days.market
            and all_prices.ticker = recent_days.ticker
        where all_prices.trade_date < {{ from_date }}
            and (
                all_prices.trade_date >= {{ dbt.dateadd('day', -62, from_date) }}
                or coalesce(recent_days.days, 0) < 20
            )
    ) as history
    where days_back <= 20
    group by market, ticker

),

prices as (

    select all_prices.*
    from all_prices
    left join history_start
        on all_prices.market = history_start.market
        and all_prices.ticker = history_start.ticker
    where all_prices.trade_date >= coalesce(history_start.first_needed, {{ from_date }})

),
{%- else -%}
prices as (

    select * from all_prices

),
{%- endif %}

asx_short_positions as (

    select * from {{ ref('stg_asic__short_positions') }}

),

positioning as (

    select * from {{ ref('stg_positioning__short_interest') }}

),

short_interest as (

    select
        'asx' as market,
        ticker,
        position_date,
        short_position_pct as short_interest_pct,
        reported_short_positions as short_position
    from asx_short_positions

    union all

    select
        prices_markets.market,
        positioning.ticker,
        positioning.position_date,
        positioning.short_interest_pct,
        cast(null as bigint) as short_position
    from positioning
    inner join (
        select distinct market, ticker from all_prices where market in ('crypto', 'forex')
    ) as prices_markets
        on positioning.ticker = prices_markets.ticker

),

-- short rows that can be the newest at or before a day being built (only the days built
-- need short data; the earlier days are window history)
short_interest_in_reach as (

    select * from short_interest
    {%- if partial %}
    where position_date > {{ dbt.dateadd('day', -14, from_date) }}
    {%- endif %}

),

-- each instrument's days and short rows in date order (a short row first on its own day),
-- with the newest position date at or before each
timeline as (

    select
        market,
        ticker,
        day,
        is_price_day,
        close,
        volume,
        max(position_date) over (
            partition by market, ticker order by day, is_price_day
            rows between unbounded preceding and current row
        ) as newest_position_date
    from (
        select
            market, ticker, trade_date as day, 1 as is_price_day, close, volume,
            cast(null as date) as position_date
        from prices
        union all
        select
            market, ticker, position_date as day, 0 as is_price_day, null as close,
            null as volume, position_date
        from short_interest_in_reach
    ) as days_and_positions

),

priced as (

    select
        market,
        ticker,
        day as trade_date,
        close,
        volume,
        -- at most 14 days old: ASIC publishes about four business days late
        case
            when newest_position_date > {{ dbt.dateadd('day', -14, 'day') }}
                then newest_position_date
        end as short_interest_as_of,
        lag(close, 5) over instrument_days as close_5_days_before,
        avg(close) over last_20_days as close_mean_20_days,
        count(close) over last_20_days as days_of_history,
        avg(volume) over last_20_days as volume_mean_20_days,
        avg(volume) over previous_20_days as volume_mean_previous_20_days,
        count(volume) over previous_20_days as volume_days_before
    from timeline
    where is_price_day = 1
    window
        instrument_days as (partition by market, ticker order by day),
        last_20_days as (
            partition by market, ticker order by day
            rows between 19 preceding and current row
        ),
        previous_20_days as (
            partition by market, ticker order by day
            rows between 20 preceding and 1 preceding
        )

),

final as (

    select
        priced.market,
        priced.ticker,
        priced.trade_date,
        priced.close,
        priced.volume,
        short_interest.position_date as short_interest_as_of,
        short_interest.short_interest_pct,
        short_interest.short_position,
        -- rounded to 12 decimals: a window's floating-point sum may differ in its last bit
        -- with DuckDB's parallel plan, and a ratio such as -0.175 must scale to the same
        -- signal (6.25, shown 6.3) in every build, incremental or whole
        round(case
            when priced.days_of_history >= 20 and priced.volume_mean_20_days > 0
                then short_interest.short_position / priced.volume_mean_20_days
        end, 12) as days_to_cover,
        round(case
            when priced.days_of_history >= 20 and priced.close_mean_20_days > 0
                then (priced.close - priced.close_5_days_before) / priced.close_mean_20_days
        end, 12) as momentum,
        round(case
            when priced.volume_days_before >= 20 and priced.volume_mean_previous_20_days > 0
                then priced.volume / priced.volume_mean_previous_20_days
        end, 12) as volume_ratio,
        priced.days_of_history,
        {{ bvs.current_source_loads(raw_inputs) }} as source_loads,
        {{ bvs.build_stamp() }} as built_at,
        {% if partial %}{{ from_date }}{% else %}cast(null as date){% endif %} as recomputed_from
    from priced
    left join short_interest
        on priced.market = short_interest.market
        and priced.ticker = short_interest.ticker
        and priced.short_interest_as_of = short_interest.position_date
    {%- if partial %}
    where priced.trade_date >= {{ from_date }}
    {%- endif %}

)

select * from final
