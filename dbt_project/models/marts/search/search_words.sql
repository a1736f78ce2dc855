-- The word postings of the home-page search (docs/search.md, tiers T2 and T3b, "all query words
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
--
-- The postings are numbered on narrow rows (word, name_id and the three sort keys) before
-- the name's result columns join them: a window over the wide rows sorted (and at 20 M
-- ABNs spilled) every column twice, once for row_number and once for the table's order.

with

names as (

    select * from {{ ref('search_names') }}

),

name_words as (

    {{ bvs.select_word_rows('names', 'name_id', 'search_key') }}

),

postings as (

    select
        name_words.word,
        name_words.name_id,
        row_number() over (
            order by
                name_words.word,
                case when names.is_legal_name then 0 else 1 end,
                case when names.is_active then 0 else 1 end,
                names.key_length,
                names.name_id
        ) as posting_id
    from name_words
    inner join names
        on name_words.name_id = names.name_id

),

final as (

    select
        postings.posting_id,
        {{ bvs.search_code('postings.word') }} as word_code,
        postings.word,
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
    from postings
    inner join names
        on postings.name_id = names.name_id

)

select * from final
order by posting_id
