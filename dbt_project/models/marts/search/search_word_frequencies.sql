-- How many indexed names hold each word (its document frequency): the search looks its
-- query words up here and scans the postings of the rarest one first.
--
-- Incremental (dbt's own, by word): a week adds to the counts of the words whose postings
-- search_words deleted or appended the week's deltas (macros/search/word_deltas.sql), and
-- deletes the words no name holds any more (the post-hook). It counts every posting again
-- when search_words was built whole since, when the record of the deltas is missing, and
-- a week after its code changed, as the other search tables (macros/search/ids.sql).

{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='word',
    on_schema_change='fail',
    search_index_reads=['search_words'],
    search_index_deltas=true,
    pre_hook="{{ bvs.search_index_pre_hook('') }}",
    post_hook=[
        "delete from {{ this }} where name_count = 0",
        "{{ bvs.word_deltas_counted() }}",
        "{{ bvs.record_search_index_code() }}",
    ],
) }}

{%- set whole = bvs.search_index_whole_build() %}
{%- if execute and not whole %}
    {%- set words = run_query(
        "select count(distinct word) from " ~ bvs.word_deltas_relation()
    ).columns[0].values()[0] %}
    {{- log(this.identifier ~ ': ' ~ words ~ ' words whose postings changed counted again', info=True) }}
{%- endif %}

with

{% if whole %}

postings as (

    select * from {{ ref('search_words') }}

),

final as (

    select
        word_code,
        word,
        cast(count(*) as integer) as name_count,
        cast(sum(case when is_legal_name then 1 else 0 end) as integer) as legal_name_count
    from postings
    group by word_code, word

)

{% else %}

deltas as (

    select
        word_code,
        word,
        sum(name_count) as name_count,
        sum(legal_name_count) as legal_name_count
    from {{ bvs.word_deltas_relation() }}
    group by word_code, word

),

-- a word whose count falls to 0 is written with it, and deleted by the post-hook
final as (

    select
        deltas.word_code,
        deltas.word,
        cast(coalesce(counted.name_count, 0) + deltas.name_count as integer) as name_count,
        cast(
            coalesce(counted.legal_name_count, 0) + deltas.legal_name_count as integer
        ) as legal_name_count
    from deltas
    left join {{ this }} as counted
        on deltas.word = counted.word
    where deltas.name_count <> 0 or deltas.legal_name_count <> 0

)

{% endif %}

select * from final
order by word
