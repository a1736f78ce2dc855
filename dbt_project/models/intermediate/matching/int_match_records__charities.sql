-- ACNC charity register (docs/rules.md): by ABN (every charity has one).

with

charities as (

    select * from {{ ref('stg_acnc__charities') }}

),

final as (

    select
        charity_legal_name,
        abn,
        cast(null as {{ dbt.type_string() }}) as acn,
        cast(null as {{ dbt.type_string() }}) as match_name,
        cast(null as {{ dbt.type_string() }}) as match_name_normalised,
        cast(null as double) as name_threshold,
        false as name_threshold_inclusive
    from charities

)

select * from final
