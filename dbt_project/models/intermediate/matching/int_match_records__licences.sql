-- State licence registers (QBCC, NSW Fair Trading, VBA, SA CBS). docs/rules.md names no match
-- rule for licences: ABN and ACN exact, and a licence whose listed ABN or ACN names no
-- entity (or that lists neither) by the licensee name, at least 0.8 (the business-names
-- register's rule; docs/decisions/19-a-records-own-identifier.md; decisions written in docs/matching.md).

with

licences as (

    select * from {{ ref('stg_licences__licences') }}

),

final as (

    select
        register,
        licence_number,
        abn,
        acn,
        licensee_name as match_name,
        {{ bvs.normalise_name('licensee_name') }} as match_name_normalised,
        case when {{ bvs.listed_identifier_found('licences', 'abn', 'acn') }} then null else 0.8 end
            as name_threshold,
        true as name_threshold_inclusive
    from licences

)

select * from final
