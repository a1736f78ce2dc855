-- PPSR registrations against a grantor: by the grantor's ABN or ACN.

with

registrations as (

    select * from {{ ref('stg_ppsr__registrations') }}

),

final as (

    select
        registration_number,
        grantor_abn as abn,
        grantor_acn as acn,
        cast(null as {{ dbt.type_string() }}) as match_name,
        cast(null as {{ dbt.type_string() }}) as match_name_normalised,
        cast(null as double) as name_threshold,
        false as name_threshold_inclusive
    from registrations

)

select * from final
