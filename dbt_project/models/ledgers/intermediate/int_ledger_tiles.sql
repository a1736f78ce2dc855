-- Every tile of every supplier of the run: the snapshot's tiles of its ABN, with the rows
-- that need the ledger row applied on top (CONTRACT decisions 2 and 13-15, rule rows in
-- macros/verification/ledger_rules.sql):
--
--   abn_status  the invoice name against the ABN's current names (int_ledger_invoice_names_compared)
--   gst         "appears to bill above the GST threshold": gst_charged, or a spend of A$75,000 or more
--   address     the row's state and postcode against the ABR main business location
--
-- The ledger rows are decided as of the run date (BVS_AS_OF); every other tile is the
-- snapshot's, as of the snapshot's own date. An ABN the register does not hold: ABN status
-- FAIL "not found", every other tile N/A (as the verify response). A row without a usable
-- ABN (needs review) has no tiles.

{{ config(materialized='table') }}

{%- set as_of = bvs.as_of_date() %}
{%- set checks = bvs.check_ids() %}
{%- set ledger_checks = ['abn_status', 'gst', 'address'] %}

with

suppliers as (

    select * from {{ ref('stg_ledgers__suppliers') }}

),

verifications as (

    select * from {{ ref('stg_ledgers__snapshot_verifications') }}

),

entities as (

    select * from {{ ref('stg_ledgers__snapshot_entities') }}

),

invoice_names as (

    select * from {{ ref('int_ledger_invoice_names_compared') }}

),

-- One row: per check, whether the snapshot had its data loaded and which sources are missing
-- (check_rule reads these, as in int_check_outcomes).
check_data as (

    select
        {%- for check_id in checks %}
        coalesce(min(case when check_id = '{{ check_id }}' then case when is_data_loaded then 1 else 0 end end), 1) = 1
            as {{ check_id }}_is_loaded,
        max(case when check_id = '{{ check_id }}' then missing_sources end) as {{ check_id }}_missing
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ ref('stg_ledgers__snapshot_checks') }}

),

ledger_rules as (

    select
        suppliers.customer,
        suppliers.ledger,
        suppliers.supplier_key,

        {{ bvs.check_rule(
            'abn_status',
            bvs.abn_status_rules('entities', as_of, invoice_similarity='invoice_names.best_similarity'),
            detail=bvs.json_object([
                ('abn_status', 'entities.abn_status'),
                ('status_from', 'entities.abn_status_from_date'),
                ('age_months', bvs.full_months_between('entities.abn_status_from_date', as_of)),
                ('company_status', 'entities.asic_company_status'),
                ('invoice_name', 'invoice_names.invoice_name'),
                ('best_register_name', 'invoice_names.best_register_name'),
                ('name_similarity', 'round(invoice_names.best_similarity, 4)'),
            ])
        ) }},

        {{ bvs.check_rule(
            'gst',
            bvs.gst_rules('entities', as_of, gst_charged='suppliers.gst_charged', annual_spend='suppliers.annual_spend_aud'),
            detail=bvs.json_object([
                ('gst_status', 'entities.gst_status'),
                ('status_from', 'entities.gst_status_from_date'),
                ('gst_charged', 'suppliers.gst_charged'),
                ('annual_spend_aud', 'suppliers.annual_spend_aud'),
                ('gst_threshold_aud', bvs.gst_threshold_aud()),
            ])
        ) }},

        {{ bvs.check_rule(
            'address',
            bvs.address_rules('entities', state='suppliers.state', postcode='suppliers.postcode'),
            detail=bvs.json_object([
                ('ledger_state', 'suppliers.state'),
                ('ledger_postcode', 'suppliers.postcode'),
                ('register_state', 'entities.state'),
                ('register_postcode', 'entities.postcode'),
                ('company_status', 'entities.asic_company_status'),
            ])
        ) }}

    from suppliers
    inner join entities
        on suppliers.abn = entities.abn
    left join invoice_names
        on suppliers.customer = invoice_names.customer
        and suppliers.ledger = invoice_names.ledger
        and suppliers.supplier_key = invoice_names.supplier_key
    cross join check_data

),

final as (

    select
        suppliers.*,
        verifications.abn is not null as is_in_register,
        verifications.entity,
        verifications.status as entity_status,
        verifications.state as register_state,
        verifications.postcode as register_postcode,
        verifications.viper_attacked,
        verifications.ppsr_registrations,
        verifications.insolvency_found,
        entities.abn_status as abn_register_status,
        invoice_names.best_register_name as invoice_matched_name,
        invoice_names.best_similarity as invoice_similarity,
        {%- for check_id in checks %}
        {%- set decided = 'ledger_rules' if check_id in ledger_checks else 'verifications' %}
        case
            when suppliers.abn is null then null
            when verifications.abn is null then '{{ "FAIL" if check_id == "abn_status" else "N/A" }}'
            else {{ decided }}.{{ check_id }}_status
        end as {{ check_id }}_status,
        case
            when suppliers.abn is null then null
            when verifications.abn is null
                then '{{ "ABN cancelled, suspended or not found => FAIL (not found)" if check_id == "abn_status" else "ABN not found in the register => N/A" }}'
            else {{ decided }}.{{ check_id }}_reason
        end as {{ check_id }}_reason,
        case when verifications.abn is not null then {{ decided }}.{{ check_id }}_detail end
            as {{ check_id }}_detail
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from suppliers
    left join verifications
        on suppliers.abn = verifications.abn
    left join entities
        on suppliers.abn = entities.abn
    left join invoice_names
        on suppliers.customer = invoice_names.customer
        and suppliers.ledger = invoice_names.ledger
        and suppliers.supplier_key = invoice_names.supplier_key
    left join ledger_rules
        on suppliers.customer = ledger_rules.customer
        and suppliers.ledger = ledger_rules.ledger
        and suppliers.supplier_key = ledger_rules.supplier_key

)

select * from final
