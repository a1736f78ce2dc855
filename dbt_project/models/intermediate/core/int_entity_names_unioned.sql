-- Every listing of a name against an ABN, from each input, before de-duplication:
-- one row per (abn, name, name_kind, source, registration). Kinds:
--   legal          the ABR legal name (main name, or an individual's name)
--   business_name  an ABR BN name, or a registration in the ASIC business names register
--   trading        an ABR TRD name
--   other          an ABR OTN name (and any name type the ABR adds later)
--   dgr            an ABR deductible-gift-recipient fund name
-- Only ABNs present in the ABR extract are kept: business-name registrations without an
-- ABN, or with an ABN the extract does not hold, are left out (counted by the test
-- assert_business_names_mostly_have_a_known_abn).

with

abns as (

    select * from {{ ref('stg_abr__abns') }}

),

other_names as (

    select * from {{ ref('stg_abr__other_names') }}

),

business_names as (

    select * from {{ ref('stg_asic__business_names') }}

),

legal_names as (

    select
        abn,
        legal_name as name,
        'legal' as name_kind,
        'abr__abns' as source,
        cast(null as {{ dbt.type_string() }}) as bn_status,
        cast(null as date) as bn_registration_date
    from abns
    where legal_name is not null

),

abr_other_names as (

    select
        other_names.abn,
        other_names.name,
        case other_names.name_type
            when 'BN' then 'business_name'
            when 'TRD' then 'trading'
            when 'DGR' then 'dgr'
            else 'other'
        end as name_kind,
        'abr__other_names' as source,
        cast(null as {{ dbt.type_string() }}) as bn_status,
        cast(null as date) as bn_registration_date
    from other_names
    inner join abns
        on other_names.abn = abns.abn
    where other_names.name is not null

),

registered_business_names as (

    select
        business_names.abn,
        business_names.business_name as name,
        'business_name' as name_kind,
        'asic__business_names' as source,
        business_names.bn_status,
        business_names.registration_date as bn_registration_date
    from business_names
    inner join abns
        on business_names.abn = abns.abn
    where business_names.business_name is not null

),

final as (

    select * from legal_names
    union all
    select * from abr_other_names
    union all
    select * from registered_business_names

)

select * from final
