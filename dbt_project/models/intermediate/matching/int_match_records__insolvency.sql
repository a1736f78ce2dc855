-- Insolvency register (SPEC 3.3, insolvency / external administration): the ASIC company
-- rows with status EXAD or DISS, one row per (company, name): matched by ABN exact, by the
-- entity's ACN, and by name trigram similarity above 0.75 against the company name and the
-- current name.

with

company_names as (

    select * from {{ ref('stg_asic__company_names') }}

),

insolvent as (

    select * from company_names
    where company_status in ('EXAD', 'DISS')

),

names as (

    select acn, abn, company_status, company_name as match_name from insolvent
    union
    select acn, abn, company_status, current_name as match_name from insolvent
    where current_name is not null

),

final as (

    select
        acn,
        company_status,
        abn,
        match_name,
        {{ bvs.normalise_name('match_name') }} as match_name_normalised,
        0.75 as name_threshold,
        false as name_threshold_inclusive
    from names

)

select * from final
