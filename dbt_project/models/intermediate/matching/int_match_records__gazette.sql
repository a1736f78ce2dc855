-- Company insolvency gazette notices (docs/rules.md: name trigram similarity above 0.72): a
-- notice whose listed ACN or ABN names an entity is that entity's alone (decision); a notice
-- whose listed identifiers name no entity, or that lists none, by the SPEC's name rule
-- (docs/decisions/19-a-records-own-identifier.md, docs/matching.md "A record's own identifier").

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
        case when {{ bvs.listed_identifier_found('notices', 'abn', 'acn') }} then null else 0.72 end
            as name_threshold,
        false as name_threshold_inclusive
    from notices

)

select * from final
