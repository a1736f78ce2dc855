{#
    The words of the normalised names in `relation`, one row per (key, word) with set
    semantics: a select over `relation`. Names reaching this macro are normalised
    (normalise_name: upper case, letters, digits and single spaces), so the words are the
    pieces between spaces.

    Dispatched: DuckDB (the default) splits into a list, drops a name's repeated words in
    the list (list_distinct) and unnests it in the select list, so the rows need no
    aggregate: at 20 M ABNs a `group by key, word` over the 81 M words hashed and spilled
    what a list of a few words does in place; PostgreSQL has regexp_split_to_table; Spark
    would use explode(array_distinct(split(...))).
#}
{% macro select_word_rows(relation, key_column, name_column) -%}
    {{ return(adapter.dispatch('select_word_rows', 'bvs')(relation, key_column, name_column)) }}
{%- endmacro %}

{% macro default__select_word_rows(relation, key_column, name_column) -%}
    select
        {{ key_column }},
        unnest(list_distinct(string_split({{ name_column }}, ' '))) as word
    from {{ relation }}
    where {{ name_column }} is not null
{%- endmacro %}

{% macro postgres__select_word_rows(relation, key_column, name_column) -%}
    select distinct {{ key_column }}, regexp_split_to_table({{ name_column }}, ' ') as word
    from {{ relation }}
    where {{ name_column }} is not null
{%- endmacro %}

{#
    search_code(expr): an order-preserving BIGINT of the first 11 characters of a normalised
    name or word, so search lookups filter and prune on an integer instead of a string
    (DuckDB decodes a whole compressed string segment to compare one value; an integer
    filter costs a fraction of that). The Python twin is pipelines.serving.search.search_code
    (tests/serving/test_search.py holds them equal on every name of its snapshot).

    Each character is a digit in base 39: space 1, 0-9 2-11, A-Z 12-37, end of text 0. Any
    other character (a letter or digit outside ASCII) is 38 and ends the code: the digits
    after it are 0. Normalised names hold only upper-case letters, digits and single spaces,
    and binary string order puts the space before digits, digits before A-Z and every
    non-ASCII character after Z, so s <= t implies code(s) <= code(t): the code is monotone
    in the order of the index tables. Texts that share their first 11 characters, or their
    text up to a non-ASCII character, share a code; a lookup that needs more then compares
    the text itself.
#}
{% macro search_code(expr) -%}
    {#- The text before the first character that is not a space, 0-9 or A-Z. -#}
    {%- set head = bvs.regexp_replace(expr, '[^ 0-9A-Z].*$', '') -%}
    (
    {%- for i in range(11) %}
        {% if not loop.first %}+ {% endif %}cast({{ bvs.search_code_digit('substring(' ~ head ~ ', ' ~ (i + 1) ~ ', 1)') }} as bigint) * {{ 39 ** (10 - i) }}
    {%- endfor %}
        + case
            when length({{ expr }}) = length({{ head }}) then 0
        {%- for i in range(11) %}
            when length({{ head }}) = {{ i }} then {{ 38 * 39 ** (10 - i) }}
        {%- endfor %}
            else 0
        end
    )
{%- endmacro %}

{% macro search_code_digit(character) -%}
    case
        when {{ character }} = '' then 0
        when {{ character }} = ' ' then 1
        when {{ character }} between '0' and '9' then ascii({{ character }}) - 46
        else ascii({{ character }}) - 53
    end
{%- endmacro %}
