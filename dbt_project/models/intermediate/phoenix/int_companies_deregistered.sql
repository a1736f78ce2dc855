-- Every deregistered company the warehouse has ever loaded, one row per ACN: the current
-- version of the asic__deregistered_companies snapshot, which keeps a company after the
-- ASIC extract forgets it (about a year after deregistration; docs/decisions/07-history-the-extracts-forget.md).

with

deregistered_company_versions as (

    select * from {{ ref('asic__deregistered_companies') }}

),

current_versions as (

    select
        acn,
        company_name,
        abn,
        company_type,
        company_status,
        registration_date,
        deregistration_date,
        source_file,
        dbt_valid_from as version_seen_at
    from deregistered_company_versions
    where dbt_valid_to is null

),

final as (

    select * from current_versions

)

select * from final
