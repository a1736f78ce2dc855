{#
    Regular expressions behind dispatching macros, so models stay portable to Spark and Trino.

    `pattern` and `replacement` are plain regex text (not SQL literals); each implementation
    quotes them for its engine. Patterns stick to the syntax that RE2 (DuckDB), Java (Spark,
    Trino's re2j option) and Joni (Trino) share: character classes, `\p{L}`, `\s`, `\x{00A0}`,
    anchors, alternation. Replacements used in this project contain no group references
    (DuckDB writes them `\1`, Spark and Trino `$1`).

    In a Jinja string literal write the backslash twice ('[^\\p{L}]'); Jinja, like Python,
    reads backslash escapes. Call through the dispatcher:
        {{ bvs.regexp_replace('name', '[^\\p{L}\\p{N}]+', ' ') }}
        {{ bvs.regexp_full_match('acn', '[0-9]{9}') }}
#}

{% macro sql_regex_literal(text) -%}
    {{ return(adapter.dispatch('sql_regex_literal', 'bvs')(text)) }}
{%- endmacro %}

{# ANSI SQL string literal: only the quote is escaped (DuckDB, Trino, Postgres). #}
{% macro default__sql_regex_literal(text) -%}
    '{{ text | replace("'", "''") }}'
{%- endmacro %}

{# Spark SQL treats a backslash in a string literal as an escape character. #}
{% macro spark__sql_regex_literal(text) -%}
    '{{ text | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}


{% macro regexp_replace(expr, pattern, replacement) -%}
    {{ return(adapter.dispatch('regexp_replace', 'bvs')(expr, pattern, replacement)) }}
{%- endmacro %}

{# Spark, Trino and Snowflake replace every match by default. #}
{% macro default__regexp_replace(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ bvs.sql_regex_literal(pattern) }}, {{ bvs.sql_regex_literal(replacement) }})
{%- endmacro %}

{# DuckDB (like Postgres) replaces only the first match unless given the 'g' option. #}
{% macro duckdb__regexp_replace(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ bvs.sql_regex_literal(pattern) }}, {{ bvs.sql_regex_literal(replacement) }}, 'g')
{%- endmacro %}

{% macro postgres__regexp_replace(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ bvs.sql_regex_literal(pattern) }}, {{ bvs.sql_regex_literal(replacement) }}, 'g')
{%- endmacro %}


{# True when the whole of `expr` matches `pattern` (null when `expr` is null). #}
{% macro regexp_full_match(expr, pattern) -%}
    {{ return(adapter.dispatch('regexp_full_match', 'bvs')(expr, pattern)) }}
{%- endmacro %}

{# Spark 3.2+ and Trino: regexp_like finds a match anywhere, hence the anchors. #}
{% macro default__regexp_full_match(expr, pattern) -%}
    regexp_like({{ expr }}, {{ bvs.sql_regex_literal('^(' ~ pattern ~ ')$') }})
{%- endmacro %}

{% macro duckdb__regexp_full_match(expr, pattern) -%}
    regexp_full_match({{ expr }}, {{ bvs.sql_regex_literal(pattern) }})
{%- endmacro %}


{# True when `pattern` matches somewhere in `expr` (null when `expr` is null). #}
{% macro regexp_contains(expr, pattern) -%}
    {{ return(adapter.dispatch('regexp_contains', 'bvs')(expr, pattern)) }}
{%- endmacro %}

{% macro default__regexp_contains(expr, pattern) -%}
    regexp_like({{ expr }}, {{ bvs.sql_regex_literal(pattern) }})
{%- endmacro %}

{% macro duckdb__regexp_contains(expr, pattern) -%}
    regexp_matches({{ expr }}, {{ bvs.sql_regex_literal(pattern) }})
{%- endmacro %}
