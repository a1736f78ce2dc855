-- One row per ABN: the ABR record joined to its ASIC company, if any.
--
-- The ASIC company is found in this order; the first step that finds a company wins:
--   1. asic_number  the ABR record's ASIC number equals the company's ACN
--   2. asic_abn     the ASIC register lists this ABN against the company (its ABN column);
--                   if several companies do, a registered one, then the newest registration
--   3. abn_suffix   for company entity types (var abr_company_entity_types: PRV, PUB, ...)
--                   the ACN is the last 9 digits of the ABN (docs/rules.md, corporate company
--                   status)
-- acn is the matched company's ACN, else the ABR's ASIC number (the ACN or ARBN of a
-- company ASIC no longer lists), else null. asic_match_method names the step, null when no
-- company was found.

--
-- A week's build recomputes only the ABNs whose inputs changed (int_entity_inputs; their
-- `input_hash`, carried here): the marker `in_slice` below is then those ABNs
-- (macros/materializations/sliced_table.sql).
{{ config(
    materialized=bvs.sliced_table_materialization(),
    incremental_key='abn',
    incremental_inputs='int_entity_inputs',
) }}

{%- set company_entity_types = var('abr_company_entity_types') %}

with

abns as (

    select * from {{ ref('stg_abr__abns') }} where {{ bvs.in_slice('abn') }}

),

inputs as (

    select * from {{ ref('int_entity_inputs') }} where {{ bvs.in_slice('abn') }}

),

companies as (

    select * from {{ ref('stg_asic__companies') }}

),

companies_by_abn_ranked as (

    select
        abn,
        acn,
        row_number() over (
            partition by abn
            order by
                case when company_status = 'REGD' then 0 else 1 end,
                registration_date desc nulls last,
                acn
        ) as company_rank
    from companies
    where abn is not null

),

companies_by_abn as (

    select
        abn,
        acn
    from companies_by_abn_ranked
    where company_rank = 1

),

abns_with_acn_from_abn as (

    select
        *,
        case
            when entity_type_code in (
                {%- for code in company_entity_types %}
                '{{ code }}'{% if not loop.last %},{% endif %}
                {%- endfor %}
            )
                then {{ dbt.right('abn', 9) }}
        end as acn_from_abn
    from abns

),

abns_with_candidate_acns as (

    select
        abns.*,
        by_asic_number.acn as acn_by_asic_number,
        by_asic_abn.acn as acn_by_asic_abn,
        by_abn_suffix.acn as acn_by_abn_suffix
    from abns_with_acn_from_abn as abns
    left join companies as by_asic_number
        on abns.asic_number = by_asic_number.acn
    left join companies_by_abn as by_asic_abn
        on abns.abn = by_asic_abn.abn
    left join companies as by_abn_suffix
        on abns.acn_from_abn = by_abn_suffix.acn

),

abns_matched_to_companies as (

    select
        *,
        coalesce(acn_by_asic_number, acn_by_asic_abn, acn_by_abn_suffix) as matched_acn,
        case
            when acn_by_asic_number is not null then 'asic_number'
            when acn_by_asic_abn is not null then 'asic_abn'
            when acn_by_abn_suffix is not null then 'abn_suffix'
        end as asic_match_method
    from abns_with_candidate_acns

),

final as (

    select
        abns.abn,
        abns.legal_name,
        abns.entity_type_code,
        abns.entity_type_text,
        abns.is_individual,
        abns.abn_status,
        abns.abn_status_from_date,
        abns.gst_status,
        abns.gst_status_from_date,
        abns.state,
        abns.postcode,
        coalesce(abns.matched_acn, abns.asic_number) as acn,
        companies.company_name as asic_company_name,
        companies.company_status as asic_company_status,
        companies.company_type as asic_company_type,
        companies.company_class as asic_company_class,
        companies.company_sub_class as asic_company_sub_class,
        companies.registration_date as asic_registration_date,
        companies.deregistration_date as asic_deregistration_date,
        abns.record_last_updated_date,
        abns.asic_match_method,
        inputs.input_hash
    from abns_matched_to_companies as abns
    inner join inputs
        on abns.abn = inputs.abn
    left join companies
        on abns.matched_acn = companies.acn

)

select * from final
