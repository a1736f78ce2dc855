-- The Squeeze Score per instrument and day (SPEC 2.6): four equally weighted signals, each
-- scaled to 0-100 (macros/market/squeeze.sql), averaged. A signal that cannot be computed is
-- null and named in missing_signals, and the score is the mean of the others (it is null
-- when none can be computed): no value is invented. Every ASX product with prices is
-- scored, not only the core list (is_core marks it).
--
-- Incremental, one row per row of int_squeeze__inputs: a build rescores the days on or after
-- the earliest date that int_squeeze__inputs recomputed since this model's last build (its
-- rows newer than built_at here), and drops days int_squeeze__inputs no longer has.

{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='append_new_columns',
    pre_hook="{{ bvs.delete_rescored_days() }}",
) }}

{%- set rescore_from = bvs.squeeze_rescore_from() %}

with

inputs as (

    select * from {{ ref('int_squeeze__inputs') }}
    {%- if rescore_from is none %}
    where 1 = 0
    {%- elif rescore_from != 'all' %}
    where trade_date >= cast('{{ rescore_from }}' as date)
    {%- endif %}

),

coverage as (

    select * from {{ ref('squeeze_coverage') }}

),

signals as (

    select
        *,
        {{ bvs.short_interest_signal('short_interest_pct') }} as short_interest_signal,
        {{ bvs.days_to_cover_signal('days_to_cover') }} as days_to_cover_signal,
        {{ bvs.momentum_signal('momentum') }} as momentum_signal,
        {{ bvs.volume_ratio_signal('volume_ratio') }} as volume_ratio_signal
    from inputs

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
            case when scored.short_interest_pct is null then 'short_interest: no short data within 14 days' end,
            case when scored.days_to_cover is null then
                case
                    when scored.market <> 'asx' then 'days_to_cover: no short position size for this market'
                    when scored.days_of_history < 20 then 'days_to_cover: fewer than 20 trading days of history'
                    else 'days_to_cover: no short position or volume'
                end
            end,
            case when scored.momentum is null then 'momentum: fewer than 20 trading days of history' end,
            case when scored.volume_ratio is null then 'volume_ratio: no volume over the previous 20 trading days' end
        ), '') as missing_signals,
        case when scored.signals_available > 0
            then round(scored.signal_sum / scored.signals_available, 1)
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
