{#
    Calendar-month arithmetic for age and recency rules (docs/decisions/09-ages.md: ages are
    calendar months counted back from the as-of date), on dbt's cross-database dateadd and
    datediff.

        {{ bvs.months_before(bvs.as_of_date(), 36) }}       -- the date 36 months earlier
        {{ bvs.full_months_between('d', bvs.as_of_date()) }}

    months_before clamps to the end of a shorter month (2026-05-31 minus 3 months is
    2026-02-28), as dateadd does on every engine.
#}

{% macro months_before(date_expr, months) -%}
    cast({{ dbt.dateadd('month', -1 * months, date_expr) }} as date)
{%- endmacro %}

{#
    Whole calendar months from `earlier` to `later`: the largest m with
    earlier <= later minus m months. So a date exactly 36 months before the as-of date is 36
    months before it, and the day after that is 35.
#}
{% macro full_months_between(earlier, later) -%}
    {%- set boundaries = dbt.datediff(earlier, later, 'month') -%}
    (
        {{ boundaries }}
        - case
            when cast({{ dbt.dateadd('month', '-1 * ' ~ boundaries, later) }} as date) < {{ earlier }}
                then 1
            else 0
        end
    )
{%- endmacro %}

{#
    The first day (1 July) of the Australian financial year that holds `date_expr`, moved
    `years_back` financial years earlier: for 2026-11-28, 2026-07-01 (0) or 2025-07-01 (1).
#}
{% macro financial_year_start(date_expr, years_back=0) -%}
    make_date(
        cast(extract(year from {{ date_expr }}) as integer)
            - case when extract(month from {{ date_expr }}) >= 7 then 0 else 1 end
            - {{ years_back }},
        7,
        1
    )
{%- endmacro %}
