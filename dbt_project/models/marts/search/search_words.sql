-- The word postings of the home-page search (docs/search.md, tiers T2 and T3b, "all query words
-- present", and T4's candidates): one row per (word, indexed name) for every distinct word
-- of every name in search_names, with the name's result columns copied in. word_code is
-- search_code(word), so a word is looked up on an integer.
--
-- Ordered by word, then legal names before business names, active ABNs before cancelled
-- ones, shorter names first, then name_id; posting_id follows that order
-- (macros/search/ids.sql). A tier scans the postings of the query's rarest word
-- (search_word_frequencies), keeps the names holding every other query word, and stops
-- after n rows with `order by posting_id limit n`: the rows come out best first, and each
-- run of rows in posting_id order (the whole build, then each week's) holds a word's
-- postings together, so the scan touches a few row groups.
--
-- The postings are ordered on narrow rows (word, name_id and the three sort keys) before
-- the name's result columns join them: a window over the wide rows sorted (and at 20 M
-- ABNs spilled) every column twice, once for row_number and once for the table's order.
--
-- Incremental: a week deletes the postings of the ABNs whose names search_names wrote again
-- or dropped (the pre-hook, by the ABNs' input hashes and name ids:
-- macros/search/changed_rows.sql) and appends those of the names without postings, with
-- ids between their neighbours'. It counts, per word, the postings it deletes and appends,
-- which search_word_frequencies adds to its counts (macros/search/word_deltas.sql). A week
-- after the model's code, or search_names', changed rebuilds it whole (macros/search/ids.sql).

{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    search_index_abn_inputs='search_words_abn_inputs',
    search_index_reads=['search_names'],
    pre_hook="{{ bvs.search_index_pre_hook(bvs.search_index_changed_abns(
        this, 'abn_id', before_delete=bvs.record_word_deltas(this, -1))) }}",
    post_hook=[
        "{{ bvs.record_word_deltas_after_build(this) }}",
        "{{ bvs.search_index_record_state(this, 'abn_id') }}",
        "{{ bvs.record_search_index_code() }}",
    ],
) }}

{%- set whole = bvs.search_index_whole_build() %}

with

names as (

    select * from {{ ref('search_names') }}

),

{% if not whole %}

-- the names of the ABNs whose postings the pre-hook deleted that have none: the ABNs are
-- found first, so that the kept postings are not all grouped by name to find the few
-- names without any
names_to_post as (

    select names.*
    from names
    semi join {{ bvs.search_index_changed(this) }} as changed
        on names.abn = changed.abn
    anti join (select name_id from {{ this }}) as posted
        on names.name_id = posted.name_id

),

{% else %}

names_to_post as (

    select * from names

),

{% endif %}

name_words as (

    {{ bvs.select_word_rows('names_to_post', 'name_id', 'search_key') }}

),

ranked_words as (

    select
        name_words.word,
        case when names_to_post.is_legal_name then 0 else 1 end as legal_rank,
        case when names_to_post.is_active then 0 else 1 end as active_rank,
        names_to_post.key_length,
        name_words.name_id
    from name_words
    inner join names_to_post
        on name_words.name_id = names_to_post.name_id

),

{% if not whole %}

kept_rows as (

    select
        struct_pack(
            word := word,
            legal_rank := case when is_legal_name then 0 else 1 end,
            active_rank := case when is_active then 0 else 1 end,
            key_length := key_length,
            name_id := name_id
        ) as sort_key,
        word_code as code,
        posting_id as id
    from {{ this }}

),

new_rows as (

    select
        word,
        name_id,
        struct_pack(
            word := word,
            legal_rank := legal_rank,
            active_rank := active_rank,
            key_length := key_length,
            name_id := name_id
        ) as sort_key,
        {{ bvs.search_code('word') }} as code
    from ranked_words

),

postings as (

    {{ bvs.place_between('new_rows', 'kept_rows', 'posting_id') }}

),

{% else %}

postings as (

    select
        word,
        name_id,
        row_number() over (
            order by word, legal_rank, active_rank, key_length, name_id
        ) * {{ bvs.search_id_spacing() }} as posting_id
    from ranked_words

),

{% endif %}

final as (

    select
        postings.posting_id,
        {{ bvs.search_code('postings.word') }} as word_code,
        postings.word,
        names_to_post.name_id,
        names_to_post.abn_id,
        names_to_post.search_key,
        names_to_post.key_length,
        names_to_post.trigram_count,
        names_to_post.name,
        names_to_post.name_kind,
        names_to_post.is_legal_name,
        names_to_post.bn_status,
        names_to_post.legal_name,
        names_to_post.abn_status,
        names_to_post.is_active,
        names_to_post.state,
        names_to_post.postcode
    from postings
    inner join names_to_post
        on postings.name_id = names_to_post.name_id

)

select * from final
order by posting_id
