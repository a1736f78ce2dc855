-- Insolvency register (docs/rules.md, insolvency / external administration): the ASIC company
-- rows with status EXAD or DISS, one row per (company, name): matched by ABN exact and by
-- the entity's ACN; a company whose ABN and ACN name no entity of the warehouse by name
-- trigram similarity above 0.75 against the company name and the current name (docs/decisions/19-a-records-own-identifier.md: a company the ABR knows is that entity's alone, not its namesakes').

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
        case when {{ bvs.listed_identifier_found('names', 'abn', 'acn') }} then null else 0.75 end
            as name_threshold,
        false as name_threshold_inclusive
    from names

)

select * from final
