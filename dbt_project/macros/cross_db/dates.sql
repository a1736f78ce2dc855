{#
    Lenient date parsing for free-text date columns (BD_ORG_END_DT holds `Permanent banning`
    as well as dates; ACNC dates are not typed at ingest). The value is trimmed; anything that
    is not a real calendar date gives null, never an error.

        {{ bvs.try_dmy_date('bd_org_end_dt') }}     -- DD/MM/YYYY (one-digit day/month too)
#}

{% macro try_dmy_date(expr) -%}
    {{ return(adapter.dispatch('try_dmy_date', 'bvs')(expr)) }}
{%- endmacro %}

{# Trino #}
{% macro default__try_dmy_date(expr) -%}
    cast(try(date_parse(trim({{ expr }}), '%d/%m/%Y')) as date)
{%- endmacro %}

{% macro duckdb__try_dmy_date(expr) -%}
    cast(try_strptime(trim({{ expr }}), '%d/%m/%Y') as date)
{%- endmacro %}

{% macro spark__try_dmy_date(expr) -%}
    cast(try_to_timestamp(trim({{ expr }}), 'd/M/yyyy') as date)
{%- endmacro %}
