-- Every tile of every supplier of the run: the snapshot's tiles of its ABN, with the rows
-- that need the ledger row applied on top (decisions 2 and 13-15 in docs/decisions/, rule rows in
-- macros/verification/abn_gst_address_rules.sql):
--
--   abn_status  the invoice name against the ABN's current names (int_ledger_invoice_names_compared)
--   gst         "appears to bill above the GST threshold": gst_charged, or a spend of A$75,000 or more
--   address     the row's state and postcode against the ABR main business location
--
-- The ledger rows are decided as of the run date (BVS_AS_OF); every other tile is the
-- snapshot's, as of the snapshot's own date. An ABN the register does not hold: ABN status
-- FAIL "not found", every other tile N/A (as the verify response). A row without a usable
-- ABN (needs review) has no tiles. A domain, address or phone the user supplied (docs/ledgers.md)
-- is used in place of the ledger's and its tile's detail says `user_supplied: true`.
--
-- The evidence (detail) of the ledger checks and of user-supplied values only: every other
-- tile's evidence is the snapshot's, read from the run's slice (docs/ledgers.md).

-- Ephemeral: inlined into ledger_verifications, its only reader, where DuckDB computes it once
-- (a materialised CTE). As a table it was a second wide write of every supplier's 36 tiles,
-- about 3 s of CPU in a 100,000-supplier night (docs/ledgers.md, "Speed").
{{ config(materialized='ephemeral') }}

{%- set as_of = bvs.as_of_date() %}
{%- set checks = bvs.check_ids() %}
{%- set ledger_checks = ['abn_status', 'gst', 'address'] %}
{#- checks whose value the user may override and that the warehouse does not run (docs/ledgers.md) -#}
{%- set user_values = ['domain', 'phone'] %}

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

-- One pass over the joins: the ledger rows decided with the snapshot's other tiles beside
-- them.
decided as (

    select
        suppliers.*,
        verifications.abn as register_abn,
        verifications.entity,
        verifications.status as entity_status,
        verifications.state as register_state,
        verifications.postcode as register_postcode,
        verifications.viper_attacked,
        verifications.ppsr_registrations,
        verifications.insolvency_found,
        {%- for check_id in checks if check_id not in ledger_checks %}
        verifications.{{ check_id }}_status,
        verifications.{{ check_id }}_reason,
        {%- endfor %}
        entities.abn_status as abn_register_status,
        invoice_names.best_register_name as invoice_matched_name,
        invoice_names.best_similarity as invoice_similarity,

        {{ bvs.check_rule(
            'abn_status',
            bvs.abn_status_rules('entities', as_of, invoice_similarity='invoice_names.best_similarity'),
            detail=bvs.json_object([
                ('abn_status', 'entities.abn_status'),
                ('status_from', 'entities.abn_status_from_date'),
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
                ('user_supplied', bvs.is_user_supplied('address')),
            ])
        ) }}

    from suppliers
    left join verifications
        on suppliers.abn = verifications.abn
    left join entities
        on suppliers.abn = entities.abn
    left join invoice_names
        on suppliers.supplier_id = invoice_names.supplier_id
    cross join check_data

),

final as (

    select
        {%- for column in ['supplier_id', 'customer', 'ledger', 'run_id', 'run_date', 'snapshot_id',
            'ledger_file', 'ledger_sha256', 'line', 'supplier_key', 'supplier_ref', 'abn',
            'abn_given', 'supplier_name', 'domain', 'email', 'phone', 'state', 'postcode',
            'annual_spend_aud', 'gst_charged', 'resolution', 'review_reason', 'candidates',
            'user_supplied', 'entity', 'entity_status', 'register_state', 'register_postcode',
            'viper_attacked', 'ppsr_registrations', 'insolvency_found', 'abn_register_status',
            'invoice_matched_name', 'invoice_similarity'] %}
        {{ column }},
        {%- endfor %}
        register_abn is not null as is_in_register,
        {%- for check_id in checks %}
        case
            when abn is null then null
            when register_abn is null then '{{ "FAIL" if check_id == "abn_status" else "N/A" }}'
            else {{ check_id }}_status
        end as {{ check_id }}_status,
        case
            when abn is null then null
            when register_abn is null
                then '{{ "ABN cancelled, suspended or not found => FAIL (not found)" if check_id == "abn_status" else "ABN not found in the register => N/A" }}'
            else {{ check_id }}_reason
        end as {{ check_id }}_reason
        {%- if check_id in user_values %},
        -- a value the user supplied: shown (with its badge) whatever the check could do with it
        case
            when register_abn is not null and {{ bvs.is_user_supplied(check_id, relation='decided') }}
                then {{ bvs.json_object([(check_id, 'decided.' ~ check_id), ('user_supplied', 'true')]) }}
        end as {{ check_id }}_detail
        {%- elif check_id in ledger_checks %},
        case when register_abn is not null then {{ check_id }}_detail end as {{ check_id }}_detail
        {%- endif %}
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from decided

)

select * from final
