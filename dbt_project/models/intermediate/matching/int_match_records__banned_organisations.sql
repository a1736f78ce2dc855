-- ASIC banned and disqualified organisations (docs/rules.md): ACN exact; an organisation whose
-- listed ACN names no entity (or that lists none) by its name, at least 0.75 (the register's
-- similarity; SPEC gives it for names; docs/decisions/19-a-records-own-identifier.md).

with

organisations as (

    select * from {{ ref('stg_asic__banned_organisations') }}

),

final as (

    select
        organisation_name,
        cast(null as {{ dbt.type_string() }}) as abn,
        acn,
        organisation_name as match_name,
        {{ bvs.normalise_name('organisation_name') }} as match_name_normalised,
        case when {{ bvs.listed_identifier_found('organisations', acn='acn') }} then null else 0.75 end
            as name_threshold,
        true as name_threshold_inclusive
    from organisations

)

select * from final
