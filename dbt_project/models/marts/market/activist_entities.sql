-- Activist entities (docs/market.md), one row per activist_id (the name's stable id, macro
-- activist_id; the key of GET /api/robot/activists/{id}): an activist is tracked once it has
-- two or more documented campaigns. Integrity index, 0-100 (docs/market.md):
--   accuracy      SUBSTANTIATED 1, PARTLY_SUBSTANTIATED 0.5, REFUTED 0, over the campaigns
--                 with a known outcome (PENDING and unknown are left out)
--   settlement    the share of campaigns with a known settlement that the target settled
--   frequency     campaigns per year of activity (first report to the as-of date), scaled
--                 so 4 a year or more is 1: a steady record weighs more than one burst
--   index = 100 * (0.6 accuracy + 0.25 settlement + 0.15 frequency); a part with no data
--   (no decided outcome, no known settlement) is left out and the weights of the rest are
--   used in proportion.

with

campaigns as (

    select * from {{ ref('activist_campaigns') }}

),

per_activist as (

    select
        activist_id,
        min(activist) as activist,
        count(*) as campaign_count,
        sum(case when is_live then 1 else 0 end) as live_campaign_count,
        min(report_date) as first_report_date,
        max(report_date) as latest_report_date,
        sum(case outcome when 'SUBSTANTIATED' then 1.0 when 'PARTLY_SUBSTANTIATED' then 0.5 when 'REFUTED' then 0.0 end)
            as accuracy_points,
        sum(case when outcome in ('SUBSTANTIATED', 'PARTLY_SUBSTANTIATED', 'REFUTED') then 1 else 0 end)
            as decided_count,
        sum(case when settled then 1 else 0 end) as settled_count,
        sum(case when settled is not null then 1 else 0 end) as settlement_known_count
    from campaigns
    group by activist_id

),

rates as (

    select
        *,
        case when decided_count > 0 then accuracy_points / decided_count end as accuracy_rate,
        case when settlement_known_count > 0 then 1.0 * settled_count / settlement_known_count end
            as settlement_rate,
        campaign_count / greatest(
            {{ dbt.datediff('first_report_date', bvs.as_of_date(), 'day') }} / 365.25, 1.0
        ) as campaigns_per_year
    from per_activist

),

final as (

    select
        activist_id,
        activist,
        cast(campaign_count as integer) as campaign_count,
        cast(live_campaign_count as integer) as live_campaign_count,
        campaign_count >= 2 as is_tracked,
        first_report_date,
        latest_report_date,
        round(accuracy_rate, 3) as accuracy_rate,
        cast(decided_count as integer) as decided_campaign_count,
        round(settlement_rate, 3) as settlement_rate,
        cast(settlement_known_count as integer) as settlement_known_count,
        round(campaigns_per_year, 2) as campaigns_per_year,
        round(least(campaigns_per_year / 4.0, 1.0), 3) as frequency_score,
        round(100.0 * (
            0.6 * coalesce(accuracy_rate, 0) + 0.25 * coalesce(settlement_rate, 0)
            + 0.15 * least(campaigns_per_year / 4.0, 1.0)
        ) / (
            case when accuracy_rate is null then 0 else 0.6 end
            + case when settlement_rate is null then 0 else 0.25 end + 0.15
        ), 1) as integrity_index
    from rates

)

select * from final
