{#-
    The columns of `relation` that are inputs of a check outcome, for int_check_inputs'
    hash: all but `as_of_date`, the stamp of the date a row was computed for, which
    changes every week and no rule reads (a rule reads the date itself). `*` while dbt
    parses.
-#}
{% macro input_columns(relation) -%}
    {%- if not execute -%}
        *
    {%- else -%}
        {%- set names = [] -%}
        {%- for column in adapter.get_columns_in_relation(relation) if column.name | lower != 'as_of_date' -%}
            {%- do names.append(adapter.quote(column.name)) -%}
        {%- endfor -%}
        {{ names | join(', ') }}
    {%- endif -%}
{%- endmacro %}
