-- How many indexed names hold each word (its document frequency), ordered by word: the
-- search looks its query words up here and scans the postings of the rarest one first.

with

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

select * from final
order by word
