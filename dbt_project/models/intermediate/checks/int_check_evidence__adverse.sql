-- Per ABN: the regulators' adverse records it matches, split by the check each feeds
-- (docs/decisions/05-which-regulators-feed-which-check.md):
--   conduct                  ACCC, QBCC, NSW_FAIR_TRADING, VBA_BPC, QLD_OFT (ABN, name > 0.55)
--   competition_enforcement  ACCC (ABN exact or name at least 0.6)
--   workplace_compliance     FWO (ABN exact)
--   disability_register      NDIS_COMMISSION (ABN, name > 0.65)
-- "Active" is the record's status ACTIVE. "Within 24 months" (ADVERSE_PATTERN) counts back
-- from the as-of date by the record's action date.

{%- set conduct_regulators = "('ACCC', 'QBCC', 'NSW_FAIR_TRADING', 'VBA_BPC', 'QLD_OFT')" %}

with

matches as (

    select * from {{ ref('match_adverse') }}

),

records as (

    select * from {{ ref('stg_adverse__records') }}

),

joined as (

    select
        matches.abn,
        matches.method,
        matches.score,
        matches.matched_name,
        matches.identifier_note,
        records.regulator,
        records.record_id,
        records.action_type,
        records.severity,
        records.status,
        records.action_date,
        records.resolved_date,
        records.url,
        records.regulator in {{ conduct_regulators }} as is_conduct,
        records.regulator = 'ACCC'
            and (matches.method in ('abn', 'acn') or matches.score >= 0.6) as is_competition,
        records.status = 'ACTIVE' as is_active,
        records.action_date >= {{ bvs.months_before(bvs.as_of_date(), 24) }}
            and records.action_date <= {{ bvs.as_of_date() }} as is_within_24_months
    from matches
    inner join records
        on matches.regulator = records.regulator
        and matches.record_id = records.record_id

),

described as (

    select
        *,
        {{ bvs.json_object_noting([
            ('regulator', 'regulator'), ('record_id', 'record_id'),
            ('action_type', 'action_type'), ('severity', 'severity'), ('status', 'status'),
            ('action_date', 'action_date'), ('resolved_date', 'resolved_date'), ('url', 'url'),
            ('method', 'method'), ('score', 'score'), ('matched_name', 'matched_name'),
        ], ('identifier_note', 'identifier_note')) }} as record_json
    from joined

),

final as (

    select
        abn,
        -- conduct
        sum(case when is_conduct then 1 else 0 end) as conduct_count,
        sum(case when is_conduct and is_active and severity = 'CRITICAL' then 1 else 0 end)
            as conduct_active_critical_count,
        sum(case when is_conduct and is_active and severity in ('MEDIUM', 'HIGH') then 1 else 0 end)
            as conduct_active_medium_high_count,
        sum(case when is_conduct and is_active and severity in ('HIGH', 'CRITICAL') then 1 else 0 end)
            as conduct_active_high_critical_count,
        sum(case when is_conduct and is_within_24_months then 1 else 0 end)
            as conduct_24_month_count,
        count(distinct case when is_conduct and is_within_24_months then regulator end)
            as conduct_24_month_regulator_count,
        {{ bvs.json_array_agg('case when is_conduct then record_json end',
            order_by='action_date desc, regulator, record_id') }} as conduct_records,
        -- competition_enforcement
        sum(case when is_competition then 1 else 0 end) as competition_count,
        {{ bvs.json_array_agg('case when is_competition then record_json end',
            order_by='action_date desc, record_id') }} as competition_records,
        -- workplace_compliance: notices and undertakings (docs/rules.md#conduct's workplace notice types
        -- but litigation), in force or not, and litigation
        sum(case when regulator = 'FWO' then 1 else 0 end) as workplace_count,
        sum(case
            when regulator = 'FWO' and is_active
                and action_type in ('COMPLIANCE_NOTICE', 'ENFORCEABLE_UNDERTAKING', 'INFRINGEMENT_NOTICE')
                then 1 else 0
        end) as workplace_active_notice_count,
        sum(case
            when regulator = 'FWO'
                and action_type in ('COMPLIANCE_NOTICE', 'ENFORCEABLE_UNDERTAKING', 'INFRINGEMENT_NOTICE')
                then 1 else 0
        end) as workplace_notice_count,
        sum(case when regulator = 'FWO' and action_type = 'LITIGATION' then 1 else 0 end)
            as workplace_litigation_count,
        {{ bvs.json_array_agg("case when regulator = 'FWO' then record_json end",
            order_by='action_date desc, record_id') }} as workplace_records,
        -- disability_register
        sum(case when regulator = 'NDIS_COMMISSION' then 1 else 0 end) as disability_count,
        sum(case
            when regulator = 'NDIS_COMMISSION' and is_active and action_type = 'BANNING_ORDER' then 1 else 0
        end) as disability_active_banning_order_count,
        sum(case
            when regulator = 'NDIS_COMMISSION' and is_active and action_type = 'REVOCATION' then 1 else 0
        end) as disability_active_revocation_count,
        sum(case
            when regulator = 'NDIS_COMMISSION' and is_active
                and action_type in ('SUSPENSION', 'COMPLIANCE_NOTICE') then 1 else 0
        end) as disability_active_suspension_notice_count,
        sum(case when regulator = 'NDIS_COMMISSION' and is_active then 1 else 0 end)
            as disability_active_count,
        {{ bvs.json_array_agg("case when regulator = 'NDIS_COMMISSION' then record_json end",
            order_by='action_date desc, record_id') }} as disability_records
    from described
    group by abn

)

select * from final
