-- Every deregistered company the ASIC extract has ever listed. The extract is a snapshot
-- source (only the newest file is loaded) and drops a company about a year after its
-- deregistration, while the phoenix window is 36 months (docs/decisions/07-history-the-extracts-forget.md): this table
-- keeps each one. hard_deletes = ignore, so a company missing from a newer extract keeps its
-- row, still current (dbt_valid_to null). A change of name, status, ABN or date opens a new
-- version; source_file is the extract the version was first seen in.

{% snapshot asic__deregistered_companies %}

{{
    config(
        unique_key='acn',
        strategy='check',
        check_cols=['company_name', 'abn', 'company_status', 'deregistration_date'],
        hard_deletes='ignore',
    )
}}

select
    acn,
    company_name,
    abn,
    company_type,
    company_status,
    registration_date,
    deregistration_date,
    source_file
from {{ ref('stg_asic__companies') }}
where deregistration_date is not null

{% endsnapshot %}
