-- Every ACN in entities is 9 digits (LANDING.md: ACN 9 digits with leading zeros). A shorter
-- value means leading zeros were lost on the way in; it would miss every ASIC join.

with

entities as (

    select * from {{ ref('entities') }}

),

final as (

    select abn, acn, asic_match_method
    from entities
    where acn is not null
        and not {{ bvs.regexp_full_match('acn', '[0-9]{9}') }}

)

select * from final
