{#-
    The columns of `relation` that are inputs of another row, for an input hash
    (int_check_inputs, int_entity_inputs): all but the bookkeeping beside a row,
    `as_of_date` (the stamp of the date a row was computed for, which changes every week
    and no rule reads: a rule reads the date itself) and `input_hash` (the hash a row was
    computed from), and but the columns `exclude` names. `*` while dbt parses.
-#}
{% macro input_columns(relation, exclude=[]) -%}
    {%- if not execute -%}
        *
    {%- else -%}
        {%- set left_out = ['as_of_date', 'input_hash'] + exclude -%}
        {%- set names = [] -%}
        {%- for column in adapter.get_columns_in_relation(relation) if column.name | lower not in left_out -%}
            {%- do names.append(adapter.quote(column.name)) -%}
        {%- endfor -%}
        {{ names | join(', ') }}
    {%- endif -%}
{%- endmacro %}
