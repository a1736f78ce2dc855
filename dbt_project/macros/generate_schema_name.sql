{#
    Use a model's custom schema verbatim (`staging`, `intermediate`, `marts`) instead of dbt's
    default `<target schema>_<custom schema>`: the API and the Dagster asset keys address
    tables as `marts.entities`. Models without a custom schema land in the target schema.
#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
