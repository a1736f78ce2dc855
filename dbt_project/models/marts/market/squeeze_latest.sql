-- The latest Squeeze Score of every instrument (the squeeze endpoint and the squeeze_signal
-- tile), with the score of its previous day, so a watch can tell a crossing from a stay.

-- The newest day and the day before it per instrument by grouping (two hash aggregates and
-- equality joins) rather than a window sorting every instrument's year of scores.

with

-- the newest score on or before the as-of date: a price or position file dated later has
-- not happened yet on it (CONTRACT: `--as-of` fixes today)
scores as (

    select * from {{ ref('squeeze_scores') }}
    where score_date <= {{ bvs.as_of_date() }}

),

newest as (

    select
        market,
        ticker,
        max(score_date) as score_date
    from scores
    group by market, ticker

),

previous as (

    select
        scores.market,
        scores.ticker,
        max(scores.score_date) as score_date
    from scores
    inner join newest
        on scores.market = newest.market
        and scores.ticker = newest.ticker
        and scores.score_date < newest.score_date
    group by scores.market, scores.ticker

),

final as (

    select
        latest.*,
        previous_scores.score as previous_score,
        previous.score_date as previous_score_date
    from newest
    inner join scores as latest
        on newest.market = latest.market
        and newest.ticker = latest.ticker
        and newest.score_date = latest.score_date
    left join previous
        on newest.market = previous.market
        and newest.ticker = previous.ticker
    left join scores as previous_scores
        on previous.market = previous_scores.market
        and previous.ticker = previous_scores.ticker
        and previous.score_date = previous_scores.score_date

)

select
    market, ticker, score_date, is_core, close, volume, short_interest_pct, short_interest_as_of,
    days_to_cover, momentum, volume_ratio, short_interest_signal, days_to_cover_signal,
    momentum_signal, volume_ratio_signal, signals_available, missing_signals, signals_used,
    score_ceiling, score, tier, signal_tier, previous_score, previous_score_date
from final
