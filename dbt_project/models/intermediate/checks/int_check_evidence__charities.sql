-- Per ABN: its ACNC charity register entry (ABN exact). The published register lists
-- registered charities only, so an entry found is a charity with status Registered.

with

matches as (

    select * from {{ ref('match_charities') }}

),

charities as (

    select * from {{ ref('stg_acnc__charities') }}

),

final as (

    select
        matches.abn,
        count(*) as registered_count,
        {{ bvs.json_array_agg(bvs.json_object([
            ('charity_legal_name', 'charities.charity_legal_name'), ('status', "'Registered'"),
            ('registration_date', 'charities.registration_date'),
            ('charity_size', 'charities.charity_size'),
        ]), order_by='charities.charity_legal_name') }} as charities
    from matches
    inner join charities
        on matches.abn = charities.abn
        and matches.charity_legal_name = charities.charity_legal_name
    group by matches.abn

)

select * from final
