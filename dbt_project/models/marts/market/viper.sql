-- The viper result per targeted ASX ticker (docs/market.md): current risk score, active
-- campaign indicators, historical campaign count, the pattern match score when a live
-- campaign exists, and the latest report's author, date and allegation type. Looked up by
-- ticker, by company name (the campaign's target name) or by ABN (target_abn).
-- Current risk score: the best live pattern match score; with no live campaign, 10 per
-- campaign in the last three years, at most 50 (docs/market.md).

with

campaigns as (

    select * from {{ ref('activist_campaigns') }}

),

ranked as (

    select
        *,
        row_number() over (
            partition by target_ticker order by report_date desc, campaign_id
        ) as newest_first
    from campaigns
    where target_ticker is not null

),

per_ticker as (

    select
        target_ticker as ticker,
        max(target_name) as target_name,
        max(target_abn) as abn,
        count(*) as historical_campaign_count,
        sum(case when is_live then 1 else 0 end) as active_campaign_count,
        max(pattern_match_score) as pattern_match_score,
        sum(case
            when report_date > {{ dbt.dateadd('year', -3, bvs.as_of_date()) }} then 1 else 0
        end) as campaigns_last_3_years
    from campaigns
    where target_ticker is not null
    group by target_ticker

),

final as (

    select
        per_ticker.ticker,
        per_ticker.target_name,
        per_ticker.abn,
        cast(per_ticker.historical_campaign_count as integer) as historical_campaign_count,
        cast(per_ticker.active_campaign_count as integer) as active_campaign_count,
        per_ticker.active_campaign_count > 0 as is_under_active_campaign,
        per_ticker.pattern_match_score,
        cast(coalesce(
            per_ticker.pattern_match_score,
            least(10 * per_ticker.campaigns_last_3_years, 50)
        ) as double) as current_risk_score,
        latest.campaign_id as latest_campaign_id,
        latest.activist as report_author,
        latest.report_date,
        latest.allegation_type,
        latest.report_url,
        latest.pattern_evidence as latest_pattern_evidence,
        {{ bvs.as_of_date() }} as as_of_date
    from per_ticker
    inner join ranked as latest
        on per_ticker.ticker = latest.target_ticker
        and latest.newest_first = 1

)

select * from final
