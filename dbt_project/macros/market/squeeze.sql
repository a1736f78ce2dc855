{#
    The Squeeze Score's transforms (SPEC 2.6; docs/market.md): each signal scaled to 0-100,
    linear between two anchors and clamped.

      short interest   0 % -> 0,  20 % of issue (or of open interest) -> 100
      days to cover    0 -> 0, 5 days (where squeeze risk becomes meaningful) -> 50, 10 -> 100
      momentum         -20 % -> 0, flat -> 50, +20 % -> 100
      volume ratio     1x its 20-day average (or less) -> 0, 4x -> 100
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
