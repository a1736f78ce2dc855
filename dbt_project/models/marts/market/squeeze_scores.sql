-- The Squeeze Score per instrument and day (docs/market.md): four equally weighted signals, each
-- scaled to 0-100 on a basis that means the same for its instrument class
-- (macros/market/squeeze.sql): ASX on the SPEC scales; crypto and forex scale the stand-in
-- for short interest and momentum against the instrument's own trailing year. A signal that
-- cannot be computed is null and named in missing_signals; signals_used names the others.
-- The score is their mean (null when there is none), capped at the ceiling of the tier
-- those signals could reach in a composite of four (score_ceiling): no value is invented,
-- and fewer signals do not claim more. Every ASX product with prices is scored, not only
-- the core list (is_core marks it).
--
-- Incremental, one row per row of int_squeeze__inputs: a build rescores the days on or after
-- the earliest date that int_squeeze__inputs recomputed since this model's last build (its
-- rows newer than built_at here), and drops days int_squeeze__inputs no longer has. The
-- trailing years of the rescored days are read from int_squeeze__inputs (a change on a day
-- moves only the scores of that day and later ones, which are rescored with it).

{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='append_new_columns',
    pre_hook="{{ bvs.delete_rescored_days() }}",
) }}

{%- set rescore_from = bvs.squeeze_rescore_from() %}
{%- set partial = rescore_from not in [none, 'all'] %}
{%- set from_date = "cast('" ~ rescore_from ~ "' as date)" %}

with

inputs as (

    select * from {{ ref('int_squeeze__inputs') }}
    {%- if rescore_from is none %}
    where 1 = 0
    {%- elif partial %}
    where trade_date >= {{ from_date }}
    {%- endif %}

),

-- crypto and forex days within reach of a rescored day's trailing year: its 365 days, and
-- for the stand-in 14 more (a day uses an observation up to 14 days old, whose year starts
-- 365 days before the observation)
trailing_days as (

    select market, ticker, trade_date, short_interest_as_of, short_interest_pct, momentum
    from {{ ref('int_squeeze__inputs') }}
    where market <> 'asx'
    {%- if rescore_from is none %}
        and 1 = 0
    {%- elif partial %}
        and trade_date > {{ dbt.dateadd('day', -(bvs.trailing_days() | int) - 14, from_date) }}
    {%- endif %}

),

-- each observation of the stand-in once (forex reports weekly; a day uses the newest)
stand_in_observations as (

    select distinct market, ticker, short_interest_as_of as position_date, short_interest_pct
    from trailing_days
    where short_interest_pct is not null

),

-- the mean and standard deviation of each observation's trailing year (rounded: a sum's
-- last bit may differ between two runs of a parallel plan)
stand_in_years as (

    select
        observed.market,
        observed.ticker,
        observed.position_date,
        count(*) as observations,
        round(avg(earlier.short_interest_pct), 12) as stand_in_mean,
        round(stddev_samp(earlier.short_interest_pct), 12) as stand_in_spread
    from stand_in_observations as observed
    inner join stand_in_observations as earlier
        on observed.market = earlier.market
        and observed.ticker = earlier.ticker
        and earlier.position_date <= observed.position_date
        and earlier.position_date > {{ dbt.dateadd('day', -(bvs.trailing_days() | int), 'observed.position_date') }}
    group by observed.market, observed.ticker, observed.position_date

),

-- the spread of each rescored day's momentum over its trailing year (root mean square
-- about flat; rounded: a sum's last bit may differ between two runs of a parallel plan)
momentum_spreads as (

    select
        scored_day.market,
        scored_day.ticker,
        scored_day.trade_date,
        count(earlier.momentum) as momentum_days,
        round(sqrt(avg(earlier.momentum * earlier.momentum)), 12) as momentum_spread
    from inputs as scored_day
    inner join trailing_days as earlier
        on scored_day.market = earlier.market
        and scored_day.ticker = earlier.ticker
        and earlier.trade_date <= scored_day.trade_date
        and earlier.trade_date > {{ dbt.dateadd('day', -(bvs.trailing_days() | int), 'scored_day.trade_date') }}
    where scored_day.market <> 'asx'
    group by scored_day.market, scored_day.ticker, scored_day.trade_date

),

coverage as (

    select * from {{ ref('squeeze_coverage') }}

),

signals as (

    select
        inputs.*,
        stand_in_years.observations as stand_in_observations,
        momentum_spreads.momentum_days,
        case
            when inputs.market = 'asx'
                then {{ bvs.short_interest_signal('inputs.short_interest_pct') }}
            else {{ bvs.trailing_level_signal(
                'inputs.short_interest_pct', 'stand_in_years.stand_in_mean',
                'stand_in_years.stand_in_spread', 'stand_in_years.observations') }}
        end as short_interest_signal,
        {{ bvs.days_to_cover_signal('inputs.days_to_cover') }} as days_to_cover_signal,
        case
            when inputs.market = 'asx' then {{ bvs.momentum_signal('inputs.momentum') }}
            else {{ bvs.trailing_momentum_signal(
                'inputs.momentum', 'momentum_spreads.momentum_spread',
                'momentum_spreads.momentum_days') }}
        end as momentum_signal,
        {{ bvs.volume_ratio_signal('inputs.volume_ratio') }} as volume_ratio_signal
    from inputs
    left join stand_in_years
        on inputs.market = stand_in_years.market
        and inputs.ticker = stand_in_years.ticker
        and inputs.short_interest_as_of = stand_in_years.position_date
    left join momentum_spreads
        on inputs.market = momentum_spreads.market
        and inputs.ticker = momentum_spreads.ticker
        and inputs.trade_date = momentum_spreads.trade_date

),

scored as (

    select
        *,
        (
            case when short_interest_signal is null then 0 else 1 end
            + case when days_to_cover_signal is null then 0 else 1 end
            + case when momentum_signal is null then 0 else 1 end
            + case when volume_ratio_signal is null then 0 else 1 end
        ) as signals_available,
        (
            coalesce(short_interest_signal, 0) + coalesce(days_to_cover_signal, 0)
            + coalesce(momentum_signal, 0) + coalesce(volume_ratio_signal, 0)
        ) as signal_sum
    from signals

),

final as (

    select
        scored.market,
        scored.ticker,
        scored.trade_date as score_date,
        coalesce(coverage.is_core, false) as is_core,
        scored.close,
        scored.volume,
        scored.short_interest_pct,
        scored.short_interest_as_of,
        scored.days_to_cover,
        scored.momentum,
        scored.volume_ratio,
        round(scored.short_interest_signal, 1) as short_interest_signal,
        round(scored.days_to_cover_signal, 1) as days_to_cover_signal,
        round(scored.momentum_signal, 1) as momentum_signal,
        round(scored.volume_ratio_signal, 1) as volume_ratio_signal,
        cast(scored.signals_available as integer) as signals_available,
        nullif(concat_ws(', ',
            case when scored.short_interest_signal is null then
                case
                    when scored.short_interest_pct is null then 'short_interest: no short data within 14 days'
                    else 'short_interest: fewer than {{ bvs.trailing_minimum() }} observations in its trailing year'
                end
            end,
            case when scored.days_to_cover is null then
                case
                    when scored.market <> 'asx' then 'days_to_cover: no short position size for this market'
                    when scored.days_of_history < 20 then 'days_to_cover: fewer than 20 trading days of history'
                    else 'days_to_cover: no short position or volume'
                end
            end,
            case when scored.momentum_signal is null then
                case
                    when scored.momentum is null then 'momentum: fewer than 20 trading days of history'
                    else 'momentum: fewer than {{ bvs.trailing_minimum() }} days of momentum in its trailing year'
                end
            end,
            case when scored.volume_ratio is null then 'volume_ratio: no volume over the previous 20 trading days' end
        ), '') as missing_signals,
        nullif(concat_ws(', ',
            case when scored.short_interest_signal is not null then 'short_interest' end,
            case when scored.days_to_cover_signal is not null then 'days_to_cover' end,
            case when scored.momentum_signal is not null then 'momentum' end,
            case when scored.volume_ratio_signal is not null then 'volume_ratio' end
        ), '') as signals_used,
        {{ bvs.squeeze_score_ceiling('scored.signals_available') }} as score_ceiling,
        case when scored.signals_available > 0
            then round(least(
                scored.signal_sum / scored.signals_available,
                {{ bvs.squeeze_score_ceiling('scored.signals_available') }}
            ), 1)
        end as score,
        scored.built_at
    from scored
    left join coverage
        on scored.market = coverage.market
        and scored.ticker = coverage.ticker

),

tiered as (

    select
        *,
        {{ bvs.squeeze_tier('score') }} as tier,
        {{ bvs.squeeze_signal_tier('score') }} as signal_tier
    from final

)

select * from tiered
