{#
    The pre-hook of int_matching__name_similarities: on `--full-refresh`, drop the record of
    what the join last ran on (pipelines/matching/similarity_week.py), so it runs whole.
    Otherwise a statement that does nothing.
#}
{% macro name_similarities_reset() -%}
    {%- if flags.FULL_REFRESH -%}
        drop table if exists meta.name_similarities__built
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}
