-- ASIC business names register (docs/rules.md: "ABN plus name similarity at least 0.8"): a
-- registration is matched to the ABN it lists; a registration whose listed ABN names no
-- entity, or that lists none, is matched by name, at least 0.8 (docs/decisions/19-a-records-own-identifier.md).

with

business_names as (

    select * from {{ ref('stg_asic__business_names') }}

),

final as (

    select
        business_name,
        state_number,
        abn,
        cast(null as {{ dbt.type_string() }}) as acn,
        business_name as match_name,
        {{ bvs.normalise_name('business_name') }} as match_name_normalised,
        case when {{ bvs.listed_identifier_found('business_names', 'abn') }} then null else 0.8 end as name_threshold,
        true as name_threshold_inclusive
    from business_names

)

select * from final
