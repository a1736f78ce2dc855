-- One row per supplier of every ledger in the run: the ledger row, its resolution, and its
-- verification with the ledger rules applied (int_ledger_tiles): every tile's status and
-- reason, the evidence of the ledger checks and of user-supplied values (the other tiles'
-- evidence is in the run's snapshot slice), the assurance score, the risk score, level and
-- flags. The run's history
-- keeps it as the run's suppliers.parquet; `bvs ledger show` prints it.
--
-- Score and risk are the formulas of `verifications` (macros/verification/scoring.sql) with
-- the weights of the snapshot's check catalogue: a decisive identity failure (abn_status,
-- company_status, insolvency or gst FAIL, the ledger rules applied) puts the risk at least
-- high and identity_failures names the tiles. A row without a usable ABN has no tiles, no
-- score and no risk level.


{{ config(materialized=bvs.run_file_materialization()) }}

{%- set checks = bvs.check_ids() %}

with

tiles as (

    select * from {{ ref('int_ledger_tiles') }}

),

supplier_flags as (

    select * from {{ ref('int_ledger_supplier_flags') }}

),

weights as (

    select
        {%- for check_id in checks %}
        max(case when check_id = '{{ check_id }}' then weight end) as {{ check_id }}_weight
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ ref('stg_ledgers__snapshot_checks') }}

),

flags_per_supplier as (

    select
        supplier_id,
        count(*) as flag_count,
        max(severity_rank) as max_severity_rank,
        {{ bvs.json_array_agg("'\"' || flag_id || '\"'", order_by='severity_rank desc, flag_id') }} as flags
    from supplier_flags
    group by supplier_id

),

scored as (

    select
        tiles.*,
        {{ bvs.assurance_points('weights.{check}_weight') }} as points,
        {{ bvs.assurance_weight_counted('weights.{check}_weight') }} as weight_counted,
        coalesce(flags_per_supplier.flag_count, 0) as flag_count,
        coalesce(flags_per_supplier.flags, '[]') as flags,
        {{ bvs.flag_severity('flags_per_supplier.max_severity_rank') }} as max_flag_severity,
        {{ bvs.flag_floor('flags_per_supplier.max_severity_rank') }} as flag_floor
    from tiles
    cross join weights
    left join flags_per_supplier
        on tiles.supplier_id = flags_per_supplier.supplier_id

),

with_scores as (

    select
        scored.*,
        {{ bvs.assurance_score('points', 'weight_counted') }} as assurance_score,
        {{ bvs.identity_floor() }} as identity_floor,
        {{ bvs.identity_failures() }} as identity_failures
    from scored

),

final as (

    select
        supplier_id,
        customer,
        ledger,
        run_id,
        run_date,
        snapshot_id,
        ledger_file,
        ledger_sha256,
        line,
        supplier_key,
        supplier_ref,
        abn,
        abn_given,
        supplier_name,
        domain,
        email,
        phone,
        state,
        postcode,
        annual_spend_aud,
        gst_charged,
        resolution,
        review_reason,
        candidates,
        user_supplied,
        is_in_register,
        entity,
        entity_status,
        abn_register_status,
        register_state,
        register_postcode,
        invoice_matched_name,
        invoice_similarity,
        case when abn is not null then cast(assurance_score as double) end as assurance_score,
        case when abn is not null then cast(points as double) end as score_points,
        case when abn is not null then cast(weight_counted as integer) end as score_weight_counted,
        case when abn is not null then cast({{ bvs.risk_score('assurance_score', 'flag_floor', 'identity_floor') }} as double) end
            as risk_score,
        case when abn is not null then {{ bvs.risk_level(bvs.risk_score('assurance_score', 'flag_floor', 'identity_floor')) }} end
            as risk_level,
        case when abn is not null then identity_failures end as identity_failures,
        flags,
        cast(flag_count as integer) as flag_count,
        max_flag_severity,
        viper_attacked,
        ppsr_registrations,
        insolvency_found,
        {%- for check_id in checks %}
        {{ check_id }}_status,
        {{ check_id }}_reason,
        {%- endfor %}
        {%- for check_id in ['abn_status', 'gst', 'address', 'domain', 'phone'] %}
        {{ check_id }}_detail,
        {%- endfor %}
        {{ bvs.as_of_date() }} as as_of_date
    from with_scores

)

select * from final
