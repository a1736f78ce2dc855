-- The word postings of the home-page search (SPEC 4.4, tiers T2 and T3b, "all query words
-- present", and T4's candidates): one row per (word, indexed name) for every distinct word
-- of every name in search_names, with the name's result columns copied in. word_code is
-- search_code(word), so a word is looked up on an integer.
--
-- Physically ordered by word, then legal names before business names, active ABNs before
-- cancelled ones, shorter names first (then search_key, abn through name_id); posting_id
-- numbers the rows in that order. A tier scans the postings of the query's rarest word
-- (search_word_frequencies), keeps the names holding every other query word, and stops
-- after n rows with `order by posting_id limit n`: the rows come out best first and
-- contiguous, so the scan touches the first row groups of one word only.

with

names as (

    select * from {{ ref('search_names') }}

),

name_words as (

    {{ bvs.select_word_rows('names', 'name_id', 'search_key') }}

),

final as (

    select
        row_number() over (
            order by
                name_words.word,
                case when names.is_legal_name then 0 else 1 end,
                case when names.is_active then 0 else 1 end,
                names.key_length,
                names.name_id
        ) as posting_id,
        {{ bvs.search_code('name_words.word') }} as word_code,
        name_words.word,
        names.name_id,
        names.abn_id,
        names.search_key,
        names.key_length,
        names.trigram_count,
        names.name,
        names.name_kind,
        names.is_legal_name,
        names.bn_status,
        names.legal_name,
        names.abn_status,
        names.is_active,
        names.state,
        names.postcode
    from name_words
    inner join names
        on name_words.name_id = names.name_id

)

select * from final
order by posting_id
