-- Per ABN: the insolvency gazette notices it matches (ABN or ACN exact, name above 0.72),
-- most recent notice first (docs/rules.md).

with

matches as (

    select * from {{ ref('match_gazette') }}

),

notices as (

    select * from {{ ref('stg_gazette__notices') }}

),

joined as (

    select
        matches.abn,
        matches.method,
        matches.score,
        matches.matched_name,
        matches.identifier_note,
        notices.notice_id,
        notices.published_date,
        notices.notice_type,
        notices.company_name,
        notices.url
    from matches
    inner join notices
        on matches.notice_id = notices.notice_id

),

final as (

    select
        abn,
        count(*) as notice_count,
        max(published_date) as latest_published_date,
        {{ bvs.json_array_agg(bvs.json_object_noting([
            ('notice_id', 'notice_id'), ('published_date', 'published_date'),
            ('notice_type', 'notice_type'), ('company_name', 'company_name'), ('url', 'url'),
            ('method', 'method'), ('score', 'score'), ('matched_name', 'matched_name'),
        ], ('identifier_note', 'identifier_note')), order_by='published_date desc, notice_id') }} as notices
    from joined
    group by abn

)

select * from final
