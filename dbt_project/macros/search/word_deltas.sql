{#
    What a week changed in each word's postings, for search_word_frequencies
    (docs/search.md, "A week's index").

    meta.search_words__word_deltas: per word, the postings search_words' builds deleted
    (negative counts) and appended (positive), all names and legal names, appended build
    after build until search_word_frequencies adds them to its counts and empties the
    record, in the transaction of its rows. A whole build of search_words leaves one row
    with a null word instead: the counts must be taken again from every posting. No record
    at all (a warehouse from before it) means the same.

    search_words counts its changed ABNs' postings in its pre-hook, before it deletes them,
    and again in its post-hook, after it appended their new ones: the pre-hook deletes every
    posting of those ABNs, and the week appends postings for those ABNs only
    (macros/search/changed_rows.sql), so the two counts are what left and what came.
#}

{% macro word_deltas_relation() -%}
    meta.search_words__word_deltas
{%- endmacro %}

{#- One row per word, or the mark (`marked`): a null word. -#}
{% macro word_deltas_rows(marked) -%}
    select null::bigint as word_code, null::varchar as word,
        null::bigint as name_count, null::bigint as legal_name_count
    {%- if not marked %} limit 0{% endif %}
{%- endmacro %}

{#- A record that is missing has lost what came before: it starts with the mark. -#}
{% macro word_deltas_ddl() -%}
    create table if not exists {{ bvs.word_deltas_relation() }} as {{ bvs.word_deltas_rows(true) }}
{%- endmacro %}

{#- search_words' hook: the postings of the ABNs this build rewrites, counted per word with
    `sign` (-1 before the delete, 1 after the append). `relation` is search_words. -#}
{% macro record_word_deltas(relation, sign) -%}
    {{ bvs.word_deltas_ddl() }};
    insert into {{ bvs.word_deltas_relation() }}
    select
        word_code,
        word,
        {{ sign }} * count(*),
        {{ sign }} * count(*) filter (where is_legal_name)
    from {{ relation }}
    where abn_id in (
        select {{ bvs.search_index_abn_as('abn', 'abn_id') }}
        from {{ bvs.search_index_changed(relation) }}
    )
    group by word_code, word
{%- endmacro %}

{#- search_words' post-hook: after a whole build, the mark that every count must be taken
    again; after a week, what it appended. -#}
{% macro record_word_deltas_after_build(relation) -%}
    {%- if bvs.search_index_whole_build() -%}
        create or replace table {{ bvs.word_deltas_relation() }} as {{ bvs.word_deltas_rows(true) }}
    {%- else -%}
        {{ bvs.record_word_deltas(relation, 1) }}
    {%- endif -%}
{%- endmacro %}

{#- search_word_frequencies' post-hook: the deltas are in its counts now. -#}
{% macro word_deltas_counted() -%}
    create or replace table {{ bvs.word_deltas_relation() }} as {{ bvs.word_deltas_rows(false) }}
{%- endmacro %}

{#- Whether the record holds every delta since search_word_frequencies last counted: it is
    there, without the mark of a whole build of search_words. -#}
{% macro word_deltas_known() -%}
    {%- if not bvs.meta_table_exists('search_words__word_deltas') -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set marked = run_query(
        "select count(*) from " ~ bvs.word_deltas_relation() ~ " where word is null"
    ).columns[0].values()[0] -%}
    {{ return(marked == 0) }}
{%- endmacro %}
