{#
    Fold accented letters to their base letter: `CAFÉ` -> `CAFE`.

    DuckDB has strip_accents (Unicode decomposition, marks dropped). Elsewhere `translate`
    (Spark, Trino, Postgres, Snowflake) maps the accented capitals of Latin-1 and Latin
    Extended-A; apply it after upper(). Letters without a decomposition (Ł, Ø, Æ) stay as
    they are on every engine, as they do with strip_accents and Python's NFKD.
#}
{% macro fold_accents(expr) -%}
    {{ return(adapter.dispatch('fold_accents', 'bvs')(expr)) }}
{%- endmacro %}

{% macro default__fold_accents(expr) -%}
    translate(
        {{ expr }},
        'ÀÁÂÃÄÅĀĂĄÇĆČĎÈÉÊËĒĖĘĚÌÍÎÏĪĮĞĶĹĻĽÑŃŅŇÒÓÔÕÖŌŐŔŘŚŞŠŢŤÙÚÛÜŪŮŰŲÝŸŹŻŽ',
        'AAAAAAAAACCCDEEEEEEEEIIIIIIGKLLLNNNNOOOOOOORRSSSTTUUUUUUUUYYZZZ'
    )
{%- endmacro %}

{% macro duckdb__fold_accents(expr) -%}
    strip_accents({{ expr }})
{%- endmacro %}
