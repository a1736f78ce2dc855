{#
    The Squeeze Score's transforms (docs/market.md, "What each class is scaled
    on"): each signal scaled to 0-100 on a basis that means the same for its instrument
    class, linear between two anchors and clamped.

      signal          ASX (the equities' scales)           crypto and forex
      short interest  0 % -> 0, 20 % of issue -> 100        the stand-in (short share of open
                                                            interest) in its own trailing
                                                            year: its mean (or less) -> 0,
                                                            3 standard deviations above -> 100
      days to cover   0 -> 0, 5 days (where squeeze risk    (no position size)
                      becomes meaningful) -> 50, 10 -> 100
      momentum        -20 % -> 0, flat -> 50, +20 % -> 100  in its own trailing year's spread:
                                                            -4 -> 0, flat -> 50, +4 -> 100
      volume ratio    1x its 20-day average (or less) -> 0, 4x -> 100 (every class: already
                      relative to the instrument's own volume; forex has none)

    The composite is the mean of the signals used, at most the ceiling of the tier that
    those signals could reach in a composite of four (squeeze_score_ceiling).
#}

{% macro scaled(expr, low, high) -%}
    case
        when {{ expr }} is null then null
        else least(100.0, greatest(0.0, 100.0 * ({{ expr }} - ({{ low }})) / (({{ high }}) - ({{ low }}))))
    end
{%- endmacro %}

{% macro short_interest_signal(pct) -%}{{ bvs.scaled(pct, 0, 20) }}{%- endmacro %}
{% macro days_to_cover_signal(days) -%}{{ bvs.scaled(days, 0, 10) }}{%- endmacro %}
{% macro momentum_signal(momentum) -%}{{ bvs.scaled(momentum, -0.2, 0.2) }}{%- endmacro %}
{% macro volume_ratio_signal(ratio) -%}{{ bvs.scaled(ratio, 1, 4) }}{%- endmacro %}

{#  Crypto and forex. The trailing year: the instrument's own observations dated within the
    365 days up to the day (none after it), at least 20 of them (trailing_minimum), else the
    signal is null (missing_signals says so).
    The stand-in: standard deviations above the year's mean, 0 (its usual level, or less)
    -> 0, 3 -> 100. A market is always partly short, so its usual level says as little as no
    short interest does for a stock; three standard deviations above it is as rare as the
    top of the equities' scale.
    Momentum: in units of the root mean square of the year's momentum (its spread about
    flat), -4 -> 0, flat -> 50, +4 -> 100. A liquid ASX name's five-day move has a spread of
    about 4-5 %, so the equities' +-20 % is four to five of its spreads; crypto and forex
    take four, so a move of about the same rarity scores about the same in every class. #}
{% macro trailing_minimum() -%}20{%- endmacro %}
{% macro trailing_days() -%}365{%- endmacro %}

{% macro trailing_level_signal(value, mean, spread, observations) -%}
    case
        when {{ observations }} >= {{ bvs.trailing_minimum() }} and {{ spread }} > 0
            then {{ bvs.scaled('round((' ~ value ~ ' - ' ~ mean ~ ') / ' ~ spread ~ ', 12)', 0, 3) }}
    end
{%- endmacro %}

{% macro trailing_momentum_signal(momentum, spread, observations) -%}
    case
        when {{ observations }} >= {{ bvs.trailing_minimum() }} and {{ spread }} > 0
            then {{ bvs.scaled('round(' ~ momentum ~ ' / ' ~ spread ~ ', 12)', -4, 4) }}
    end
{%- endmacro %}

{#  docs/market.md: "composite of four equally weighted signals". A composite of fewer signals is
    their mean (a signal that could not be computed is unknown, not zero), but it may not
    claim a tier they could not reach in a composite of four: there k signals carry at most
    25 k points (three: 75, HIGH; two: 50, MED; one: 25, LOW), so the score stops at the top
    of that tier (85: not extreme; 69.9: not HIGH; 39.9: LOW). #}
{% macro squeeze_score_ceiling(signals) -%}
    cast(case {{ signals }}
        when 4 then 100.0
        when 3 then 85.0
        when 2 then 69.9
        when 1 then 39.9
    end as double)
{%- endmacro %}

{#  Tiers of a score: the tile's HIGH (70-100), MED (40-69), LOW (below 40), and the list's
    signal_tier, which also names "extreme" (above 85). #}
{% macro squeeze_tier(score) -%}
    case
        when {{ score }} is null then null
        when {{ score }} >= 70 then 'HIGH'
        when {{ score }} >= 40 then 'MED'
        else 'LOW'
    end
{%- endmacro %}

{% macro squeeze_signal_tier(score) -%}
    case
        when {{ score }} is null then null
        when {{ score }} > 85 then 'extreme'
        when {{ score }} >= 70 then 'high'
        when {{ score }} >= 40 then 'medium'
        else 'low'
    end
{%- endmacro %}
