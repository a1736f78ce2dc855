{#
    pg_trgm trigrams in SQL (docs/decisions/08-similarity.md; the Python twin is
    pipelines/matching/trigram.py, held equal by tests/matching/test_trigram_sql.py).

    pg_trgm splits a string into words of letters and digits, pads each word with two spaces
    in front and one behind, and takes every 3-character window: `CAT` -> `  C`, ` CA`,
    `CAT`, `AT `. Names reaching these macros are already normalised (normalise_name: upper
    case, letters, digits and single spaces), so pg_trgm's lower-casing changes nothing and
    the word split is a split on spaces.

    Trick: pad the whole name as `'  ' || replace(name, ' ', '   ') || ' '` and slide a
    3-character window over it. The windows inside a word and at its edges are exactly the
    word's trigrams; the windows that straddle two words end in two spaces (`T  `, `   `),
    which no real trigram does, and are dropped.

    Dispatched: DuckDB builds lists with lambdas; PostgreSQL has pg_trgm itself
    (`show_trgm`, `similarity`), so a deployment on Postgres gets the reference
    implementation. Spark and Trino have the same list functions under other names
    (transform/filter/array_distinct/array_intersect) and would get their own
    implementation here.
#}

{% macro trigram_padded(name) -%}
    ('  ' || replace({{ name }}, ' ', '   ') || ' ')
{%- endmacro %}

{# The distinct trigrams of a normalised name, as an array. #}
{% macro trigram_array(name) -%}
    {{ return(adapter.dispatch('trigram_array', 'bvs')(name)) }}
{%- endmacro %}

{#
    The padded name is bound once, as the parameter of a lambda over a one-element list:
    written inline in the window lambda, an expression `name` (normalise_name's chain of
    regular expressions) would be evaluated again for every window of every name.
#}
{% macro default__trigram_array(name) -%}
    list_distinct(flatten(list_transform(
        [{{ bvs.trigram_padded(name) }}],
        lambda padded: list_filter(
            list_transform(range(1, length(padded) - 1), lambda i: substring(padded, i, 3)),
            lambda t: t not like '%  '
        )
    )))
{%- endmacro %}

{% macro postgres__trigram_array(name) -%}
    show_trgm({{ name }})
{%- endmacro %}

{# pg_trgm similarity() of two trigram arrays: shared over all, 0 when either is empty. #}
{% macro trigram_array_similarity(a, b) -%}
    {{ return(adapter.dispatch('trigram_array_similarity', 'bvs')(a, b)) }}
{%- endmacro %}

{% macro default__trigram_array_similarity(a, b) -%}
    case
        when len({{ a }}) = 0 or len({{ b }}) = 0 then 0.0
        else len(list_intersect({{ a }}, {{ b }}))
            / (len({{ a }}) + len({{ b }}) - len(list_intersect({{ a }}, {{ b }})))
    end
{%- endmacro %}

{% macro postgres__trigram_array_similarity(a, b) -%}
    case
        when cardinality({{ a }}) = 0 or cardinality({{ b }}) = 0 then 0.0
        else cardinality(array(select unnest({{ a }}) intersect select unnest({{ b }})))::float
            / cardinality(array(select unnest({{ a }}) union select unnest({{ b }})))
    end
{%- endmacro %}

{#
    Whether a similarity meets a register's threshold: docs/rules.md says "above" (strictly
    greater) for some registers and "at least" for others (docs/decisions/08-similarity.md). Scores are
    compared after rounding to 6 decimals, as pg_trgm's float4 result would be.
#}
{% macro similarity_meets(score, threshold, inclusive) -%}
    (round({{ score }}, 6) > {{ threshold }} or ({{ inclusive }} and round({{ score }}, 6) = {{ threshold }}))
{%- endmacro %}

{#
    The trigrams of the normalised names in `relation`, one row per (key, trigram) with
    set semantics: a select over `relation`. For the big side (every entity name) this is
    several times faster than building arrays: a position series per name and one
    substring per position, no lambdas.
#}
{% macro select_trigram_rows(relation, key_column, name_column) -%}
    {{ return(adapter.dispatch('select_trigram_rows', 'bvs')(relation, key_column, name_column)) }}
{%- endmacro %}

{% macro default__select_trigram_rows(relation, key_column, name_column) -%}
    select {{ key_column }}, trigram
    from (
        select
            {{ key_column }},
            substring(padded, position, 3) as trigram
        from (
            select
                {{ key_column }},
                padded,
                unnest(range(1, length(padded) - 1)) as position
            from (
                select {{ key_column }}, {{ bvs.trigram_padded(name_column) }} as padded
                from {{ relation }}
            ) as padded_names
        ) as positions
    ) as windows
    where trigram not like '%  '
    group by {{ key_column }}, trigram
{%- endmacro %}

{% macro postgres__select_trigram_rows(relation, key_column, name_column) -%}
    select distinct {{ key_column }}, unnest(show_trgm({{ name_column }})) as trigram
    from {{ relation }}
{%- endmacro %}
