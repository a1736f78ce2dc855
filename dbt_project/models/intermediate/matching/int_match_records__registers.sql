-- The other registers (docs/rules.md): ABN exact and ACN exact for all; by name where the spec
-- gives a name rule, for a record whose listed ABN or ACN names no entity (or that lists
-- neither; docs/decisions/19-a-records-own-identifier.md): tax debt at least 0.75, modern slavery statements at
-- least 0.65, B Corp at least 0.7.

with

records as (

    select * from {{ ref('stg_registers__records') }}

),

final as (

    select
        register,
        record_id,
        abn,
        acn,
        entity_name as match_name,
        {{ bvs.normalise_name('entity_name') }} as match_name_normalised,
        case
            when {{ bvs.listed_identifier_found('records', 'abn', 'acn') }} then null
            when register = 'TAX_DEBT' then 0.75
            when register = 'MODERN_SLAVERY' then 0.65
            when register = 'BCORP' then 0.7
        end as name_threshold,
        true as name_threshold_inclusive
    from records

)

select * from final
