-- The Squeeze Score's inputs per instrument and day (SPEC 2.6), before any scaling:
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

{{ config(materialized='table') }}

with

prices as (

    select * from {{ ref('stg_prices__daily') }}

),

asx_short_positions as (

    select * from {{ ref('stg_asic__short_positions') }}

),

positioning as (

    select * from {{ ref('stg_positioning__short_interest') }}

),

priced as (

    select
        market,
        ticker,
        trade_date,
        close,
        volume,
        lag(close, 5) over instrument_days as close_5_days_before,
        avg(close) over last_20_days as close_mean_20_days,
        count(close) over last_20_days as days_of_history,
        avg(volume) over last_20_days as volume_mean_20_days,
        avg(volume) over previous_20_days as volume_mean_previous_20_days,
        count(volume) over previous_20_days as volume_days_before
    from prices
    window
        instrument_days as (partition by market, ticker order by trade_date),
        last_20_days as (
            partition by market, ticker order by trade_date
            rows between 19 preceding and current row
        ),
        previous_20_days as (
            partition by market, ticker order by trade_date
            rows between 20 preceding and 1 preceding
        )

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
        select distinct market, ticker from prices where market in ('crypto', 'forex')
    ) as prices_markets
        on positioning.ticker = prices_markets.ticker

),

-- the newest short interest at or before each day, at most 14 days old
short_interest_as_of as (

    select
        priced.market,
        priced.ticker,
        priced.trade_date,
        short_interest.position_date,
        short_interest.short_interest_pct,
        short_interest.short_position,
        row_number() over (
            partition by priced.market, priced.ticker, priced.trade_date
            order by short_interest.position_date desc
        ) as newest_first
    from priced
    inner join short_interest
        on priced.market = short_interest.market
        and priced.ticker = short_interest.ticker
        and short_interest.position_date <= priced.trade_date
        and short_interest.position_date > {{ dbt.dateadd('day', -14, 'priced.trade_date') }}

),

final as (

    select
        priced.market,
        priced.ticker,
        priced.trade_date,
        priced.close,
        priced.volume,
        short_interest_as_of.position_date as short_interest_as_of,
        short_interest_as_of.short_interest_pct,
        short_interest_as_of.short_position,
        case
            when priced.days_of_history >= 20 and priced.volume_mean_20_days > 0
                then short_interest_as_of.short_position / priced.volume_mean_20_days
        end as days_to_cover,
        case
            when priced.days_of_history >= 20 and priced.close_mean_20_days > 0
                then (priced.close - priced.close_5_days_before) / priced.close_mean_20_days
        end as momentum,
        case
            when priced.volume_days_before >= 20 and priced.volume_mean_previous_20_days > 0
                then priced.volume / priced.volume_mean_previous_20_days
        end as volume_ratio,
        priced.days_of_history
    from priced
    left join short_interest_as_of
        on priced.market = short_interest_as_of.market
        and priced.ticker = short_interest_as_of.ticker
        and priced.trade_date = short_interest_as_of.trade_date
        and short_interest_as_of.newest_first = 1

)

select * from final
