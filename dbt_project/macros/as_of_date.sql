{#
    "Today" for age and recency rules, as a SQL date literal: the `as_of` var (YYYY-MM-DD),
    which defaults to the current date in Australia/Brisbane (see dbt_project.yml).
    A malformed value fails at compile time rather than producing wrong ages.
#}
{% macro as_of_date() -%}
    {%- set raw = var('as_of') | string | trim -%}
    {%- if not modules.re.match('^[0-9]{4}-[0-9]{2}-[0-9]{2}$', raw) -%}
        {{ exceptions.raise_compiler_error("var 'as_of' must be a date YYYY-MM-DD, got '" ~ raw ~ "'") }}
    {%- endif -%}
    {%- do modules.datetime.date.fromisoformat(raw) -%}
    cast('{{ raw }}' as date)
{%- endmacro %}
