-- ASIC AFS licensees (docs/rules.md, financial services licence): the licensee's ABN or ACN
-- exact (the register's ABN_ACN column holds either); a licensee whose listed ABN or
-- ACN names no entity (or that lists none) by its name, at least 0.8 (no rule
-- in the spec; the business-names register's, as for licences).

with

licensees as (

    select * from {{ ref('stg_asic__afs_licensees') }}

),

final as (

    select
        licence_number,
        abn,
        acn,
        licensee_name as match_name,
        {{ bvs.normalise_name('licensee_name') }} as match_name_normalised,
        case when {{ bvs.listed_identifier_found('licensees', 'abn', 'acn') }} then null else 0.8 end
            as name_threshold,
        true as name_threshold_inclusive
    from licensees

)

select * from final
