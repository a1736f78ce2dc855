-- The latest Squeeze Score of every instrument (the squeeze endpoint and the squeeze_signal
-- tile), with the score of its previous day, so a watch can tell a crossing from a stay.

with

scores as (

    select * from {{ ref('squeeze_scores') }}

),

ranked as (

    select
        *,
        lag(score) over (partition by market, ticker order by score_date) as previous_score,
        lag(score_date) over (partition by market, ticker order by score_date) as previous_score_date,
        row_number() over (partition by market, ticker order by score_date desc) as newest_first
    from scores

),

final as (

    select * from ranked where newest_first = 1

)

select
    market, ticker, score_date, is_core, close, volume, short_interest_pct, short_interest_as_of,
    days_to_cover, momentum, volume_ratio, short_interest_signal, days_to_cover_signal,
    momentum_signal, volume_ratio_signal, signals_available, missing_signals, score, tier,
    signal_tier, previous_score, previous_score_date
from final
