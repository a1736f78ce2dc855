-- ASIC banned and disqualified organisations (SPEC 3.3): ACN exact, and the organisation's
-- name at least 0.75 (the register's similarity; SPEC gives it for names).

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
        0.75 as name_threshold,
        true as name_threshold_inclusive
    from organisations

)

select * from final
