{#
    JSON building for tile evidence, as text (a JSON document in a varchar column, readable
    by every engine's JSON functions and by the API as it is).

        {{ bvs.json_object([('acn', 'acn'), ('status', 'company_status')]) }}
        {{ bvs.json_array_agg(bvs.json_object([...]), order_by='published_date desc') }}

    `pairs` is a list of (key, SQL expression). Dates become ISO strings, nulls JSON null.
#}

{% macro json_object(pairs) -%}
    {{ return(adapter.dispatch('json_object', 'bvs')(pairs)) }}
{%- endmacro %}

{# Trino #}
{% macro default__json_object(pairs) -%}
    json_format(cast(map(
        array[{% for key, _ in pairs %}'{{ key }}'{% if not loop.last %}, {% endif %}{% endfor %}],
        array[{% for _, expr in pairs %}cast({{ expr }} as json){% if not loop.last %}, {% endif %}{% endfor %}]
    ) as json))
{%- endmacro %}

{% macro duckdb__json_object(pairs) -%}
    cast(json_object(
        {%- for key, expr in pairs %}
        '{{ key }}', {{ expr }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    ) as varchar)
{%- endmacro %}

{% macro postgres__json_object(pairs) -%}
    cast(json_build_object(
        {%- for key, expr in pairs %}
        '{{ key }}', {{ expr }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    ) as text)
{%- endmacro %}

{#
    A JSON object of `pairs`, with `note` (a (key, expression) pair) added only where its value
    is not null: a note few rows carry (identifier_note, docs/decisions/19-a-records-own-identifier.md) stays out of the
    others' JSON.
#}
{% macro json_object_noting(pairs, note) -%}
    case
        when {{ note[1] }} is null then {{ bvs.json_object(pairs) }}
        else {{ bvs.json_object(pairs + [note]) }}
    end
{%- endmacro %}

{#
    A JSON array of the JSON texts `expr` of a group (an aggregate), in `order_by` order.
#}
{% macro json_array_agg(expr, order_by=none) -%}
    {{ return(adapter.dispatch('json_array_agg', 'bvs')(expr, order_by)) }}
{%- endmacro %}

{% macro default__json_array_agg(expr, order_by) -%}
    '[' || array_join(array_agg({{ expr }}{% if order_by %} order by {{ order_by }}{% endif %}), ',') || ']'
{%- endmacro %}

{#
    DuckDB: an aggregate with its own ORDER BY keeps every row of every group in memory (it
    cannot spill), so at 20 M ABNs the licences' evidence alone (68 M matches) failed within
    8 GB. Here the rows are gathered unordered, as (sort key, text) pairs, which spills like
    any hash aggregate, and each group's list is sorted after: `create_sort_key` gives the
    bytes that sort as `order_by` does (each term ASC or DESC, nulls last as DuckDB's ORDER
    BY puts them); rows the order leaves tied are ordered by their text. Rows whose text is
    null are left out, and a group without one gives null, as string_agg does. `order_by`
    is terms separated by commas, each a column (or an expression without parentheses) and
    an optional ASC or DESC; anything else (NULLS FIRST, a function call) is refused when the
    model compiles rather than sorted otherwise than the other engines sort it.
#}
{% macro duckdb__json_array_agg(expr, order_by) -%}
    {%- if not order_by -%}
    '[' || string_agg({{ expr }}, ',') || ']'
    {%- else -%}
    {%- set terms = [] -%}
    {%- for term in order_by.split(',') -%}
        {%- set words = term.strip().split() -%}
        {%- if not words or 'nulls' in (words | map('lower') | list) or '(' in term or ')' in term -%}
            {{ exceptions.raise_compiler_error(
                "json_array_agg: order term '" ~ term ~ "' of '" ~ order_by ~ "' is not a column"
                ~ " (or an expression without parentheses) with an optional ASC or DESC") }}
        {%- endif -%}
        {%- if words[-1] | lower in ('asc', 'desc') -%}
            {%- do terms.append((words[:-1] | join(' '), words[-1] | upper)) -%}
        {%- else -%}
            {%- do terms.append((words | join(' '), 'ASC')) -%}
        {%- endif -%}
    {%- endfor -%}
    '[' || array_to_string(list_transform(list_sort(list({
        'sort_key': create_sort_key(
            {%- for column, direction in terms %}{{ column }}, '{{ direction }} NULLS LAST'{% if not loop.last %}, {% endif %}{% endfor -%}
        ),
        'item': {{ expr }}
    }) filter (where ({{ expr }}) is not null)), lambda pair: pair.item), ',') || ']'
    {%- endif -%}
{%- endmacro %}

{% macro postgres__json_array_agg(expr, order_by) -%}
    '[' || string_agg({{ expr }}, ','{% if order_by %} order by {{ order_by }}{% endif %}) || ']'
{%- endmacro %}

{#
    The text of one top-level member of a JSON object held as text, e.g. the status of one
    tile in a supplier's recorded state:

        {{ bvs.json_text('value', 'tile_abn_status') }}

    `key` is a fixed name (letters, digits, '_'); a missing member or JSON null is null.
#}
{% macro json_text(expr, key) -%}
    {{ return(adapter.dispatch('json_text', 'bvs')(expr, key)) }}
{%- endmacro %}

{# Trino, Spark #}
{% macro default__json_text(expr, key) -%}
    json_extract_scalar({{ expr }}, '$.{{ key }}')
{%- endmacro %}

{% macro duckdb__json_text(expr, key) -%}
    json_extract_string({{ expr }}, '$.{{ key }}')
{%- endmacro %}

{% macro postgres__json_text(expr, key) -%}
    (cast({{ expr }} as json) ->> '{{ key }}')
{%- endmacro %}
