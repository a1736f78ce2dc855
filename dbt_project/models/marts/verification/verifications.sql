-- One row per ABN with everything a verify response needs (CONTRACT.md API): the entity,
-- the assurance score, the risk score, level and flags, the Shape B members and every
-- check's status, reason and evidence (weights and sources: mart `checks`).
--
-- Assurance score (docs/rules.md#assurance-score): 100 * sum(points) / sum(weight) over the tiles that are
-- not N/A; PASS scores the full weight, WARN half, FAIL nothing; null when every weighted
-- tile is N/A.
-- Risk score: 100 minus the assurance score, raised to the floor of the most severe flag
-- that fired (CRITICAL 90, HIGH 70, MEDIUM 40) and, on a decisive identity failure (a FAIL
-- on abn_status, company_status, insolvency or gst: docs/decisions/21-decisive-identity-failure.md), to the high floor;
-- identity_failures names those tiles. Risk level: critical from 90, high from 70,
-- medium from 40, low below (docs/verification.md). The formulas are macros
-- (macros/verification/scoring.sql), shared with the supplier ledgers' verifications.

--
-- A week's build recomputes only the ABNs whose check outcomes' inputs changed (their
-- `input_hash`, carried here), and sets every row's as_of_date; a change of the weights or
-- the flag definitions rebuilds every row (macros/materializations/sliced_table.sql).
{{ config(
    materialized=bvs.sliced_table_materialization(),
    incremental_key='abn',
    incremental_inputs='int_check_outcomes',
    incremental_globals=['check_weights', 'flag_definitions'],
    incremental_restamp='as_of_date',
) }}

{%- set checks = bvs.check_ids() %}

with

outcomes as (

    select * from {{ ref('int_check_outcomes') }} where {{ bvs.in_slice('abn') }}

),

entities as (

    select * from {{ ref('entities') }} where {{ bvs.in_slice('abn') }}

),

flags as (

    select * from {{ ref('risk_flags') }} where {{ bvs.in_slice('abn') }}

),

weights as (

    select
        {%- for check_id in checks %}
        max(case when check_id = '{{ check_id }}' then weight end) as {{ check_id }}_weight
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ ref('check_weights') }}

),

flags_per_abn as (

    select
        abn,
        count(*) as flag_count,
        max(severity_rank) as max_severity_rank,
        {{ bvs.json_array_agg("'\"' || flag_id || '\"'", order_by='severity_rank desc, flag_id') }} as flags
    from flags
    group by abn

),

scored as (

    select
        outcomes.*,
        {{ bvs.assurance_points('weights.{check}_weight') }} as points,
        {{ bvs.assurance_weight_counted('weights.{check}_weight') }} as weight_counted
    from outcomes
    cross join weights

),

with_scores as (

    select
        scored.*,
        {{ bvs.assurance_score('points', 'weight_counted') }} as assurance_score,
        coalesce(flags_per_abn.flag_count, 0) as flag_count,
        coalesce(flags_per_abn.flags, '[]') as flags,
        {{ bvs.flag_severity('flags_per_abn.max_severity_rank') }} as max_flag_severity,
        {{ bvs.flag_floor('flags_per_abn.max_severity_rank') }} as flag_floor,
        {{ bvs.identity_floor() }} as identity_floor,
        {{ bvs.identity_failures() }} as identity_failures
    from scored
    left join flags_per_abn
        on scored.abn = flags_per_abn.abn

),

final as (

    select
        with_scores.abn,
        entities.legal_name as entity,
        case entities.abn_status when 'ACT' then 'Active' when 'CAN' then 'Cancelled' else entities.abn_status end
            as status,
        entities.entity_type_code,
        entities.entity_type_text,
        entities.state,
        entities.postcode,
        with_scores.acn,
        with_scores.asx_code,
        cast(with_scores.assurance_score as double) as assurance_score,
        cast(with_scores.points as double) as score_points,
        cast(with_scores.weight_counted as integer) as score_weight_counted,
        cast({{ bvs.risk_score('with_scores.assurance_score', 'with_scores.flag_floor', 'with_scores.identity_floor') }} as double)
            as risk_score,
        {{ bvs.risk_level(bvs.risk_score('with_scores.assurance_score', 'with_scores.flag_floor', 'with_scores.identity_floor')) }}
            as risk_level,
        with_scores.identity_failures,
        with_scores.flags,
        cast(with_scores.flag_count as integer) as flag_count,
        with_scores.max_flag_severity,
        with_scores.activist_status = 'FAIL' as viper_attacked,
        cast(with_scores.current_ppsr_count as integer) as ppsr_registrations,
        with_scores.is_insolvency_found as insolvency_found,
        {%- for check_id in checks %}
        with_scores.{{ check_id }}_status,
        with_scores.{{ check_id }}_reason,
        with_scores.{{ check_id }}_detail,
        {%- endfor %}
        {{ bvs.as_of_date() }} as as_of_date,
        with_scores.input_hash
    from with_scores
    inner join entities
        on with_scores.abn = entities.abn

)

select * from final
