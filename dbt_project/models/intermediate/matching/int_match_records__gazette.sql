-- Company insolvency gazette notices (SPEC 3.3): ABN and ACN exact; a notice that names
-- neither, by name trigram similarity above 0.72 (decision, docs/matching.md "A record's own
-- identifier").

with

notices as (

    select * from {{ ref('stg_gazette__notices') }}

),

final as (

    select
        notice_id,
        abn,
        acn,
        company_name as match_name,
        {{ bvs.normalise_name('company_name') }} as match_name_normalised,
        case when abn is null and acn is null then 0.72 end as name_threshold,
        false as name_threshold_inclusive
    from notices

)

select * from final
