-- ASX listed companies: the list has no ABN or ACN, so a ticker is tied to ABNs by the
-- company name, at least 0.8 (no rule in the spec; a decision written in docs/matching.md).

with

listed as (

    select * from {{ ref('stg_asx__listed_companies') }}

),

final as (

    select
        asx_code,
        cast(null as {{ dbt.type_string() }}) as abn,
        cast(null as {{ dbt.type_string() }}) as acn,
        company_name as match_name,
        {{ bvs.normalise_name('company_name') }} as match_name_normalised,
        0.8 as name_threshold,
        true as name_threshold_inclusive
    from listed

)

select * from final
