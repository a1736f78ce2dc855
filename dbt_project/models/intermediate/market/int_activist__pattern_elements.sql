-- The four elements of an activist campaign pattern (docs/market.md) per campaign, each with its
-- evidence (docs/market.md):
--   publication     a report making allegations: a report date and an allegation type
--   amplification   coordinated amplification: in the 7 days around the report (3 before
--                   to 3 after) at least 3 times the daily mentions of the 30 days before,
--                   on two or more channels
--   positioning     short positioning rising before the report: the last ASIC short
--                   interest before the report date at least 0.5 points and 20 % above
--                   the last one at least 14 days earlier
--   price move      the close fell at least 10 % from the last close before the report to
--                   the last close within 5 days after it (or up to the as-of date)

{%- set as_of = bvs.as_of_date() %}

with

campaigns as (

    select * from {{ ref('int_activist__campaigns_matched') }}

),

amplification as (

    select * from {{ ref('stg_activist__amplification') }}

),

short_positions as (

    select * from {{ ref('stg_asic__short_positions') }}

),

prices as (

    select * from {{ ref('stg_prices__daily') }} where market = 'asx'

),

mentions as (

    select
        campaigns.campaign_id,
        sum(case
            when amplification.mention_date >= {{ dbt.dateadd('day', -3, 'campaigns.report_date') }}
                and amplification.mention_date <= {{ dbt.dateadd('day', 3, 'campaigns.report_date') }}
                then amplification.mentions else 0
        end) as mentions_around_report,
        count(distinct case
            when amplification.mention_date >= {{ dbt.dateadd('day', -3, 'campaigns.report_date') }}
                and amplification.mention_date <= {{ dbt.dateadd('day', 3, 'campaigns.report_date') }}
                and amplification.mentions > 0
                then amplification.channel
        end) as channels_around_report,
        sum(case
            when amplification.mention_date >= {{ dbt.dateadd('day', -33, 'campaigns.report_date') }}
                and amplification.mention_date < {{ dbt.dateadd('day', -3, 'campaigns.report_date') }}
                then amplification.mentions else 0
        end) as mentions_30_days_before
    from campaigns
    inner join amplification
        on campaigns.campaign_id = amplification.campaign_id
    group by campaigns.campaign_id

),

short_before as (

    select
        campaigns.campaign_id,
        short_positions.position_date,
        short_positions.short_position_pct,
        row_number() over (
            partition by campaigns.campaign_id order by short_positions.position_date desc
        ) as newest_first
    from campaigns
    inner join short_positions
        on campaigns.target_ticker = short_positions.ticker
        and short_positions.position_date < campaigns.report_date

),

short_earlier as (

    select
        short_before.campaign_id,
        earlier.position_date,
        earlier.short_position_pct,
        row_number() over (
            partition by short_before.campaign_id order by earlier.position_date desc
        ) as newest_first
    from short_before
    inner join campaigns
        on short_before.campaign_id = campaigns.campaign_id
    inner join short_positions as earlier
        on campaigns.target_ticker = earlier.ticker
        and earlier.position_date <= {{ dbt.dateadd('day', -14, 'short_before.position_date') }}
    where short_before.newest_first = 1

),

close_before as (

    select
        campaigns.campaign_id,
        prices.trade_date,
        prices.close,
        row_number() over (partition by campaigns.campaign_id order by prices.trade_date desc) as newest_first
    from campaigns
    inner join prices
        on campaigns.target_ticker = prices.ticker
        and prices.trade_date < campaigns.report_date

),

close_after as (

    select
        campaigns.campaign_id,
        prices.trade_date,
        prices.close,
        row_number() over (partition by campaigns.campaign_id order by prices.trade_date desc) as newest_first
    from campaigns
    inner join prices
        on campaigns.target_ticker = prices.ticker
        and prices.trade_date >= campaigns.report_date
        and prices.trade_date <= {{ dbt.dateadd('day', 5, 'campaigns.report_date') }}
        and prices.trade_date <= {{ as_of }}

),

elements as (

    select
        campaigns.campaign_id,
        campaigns.report_date is not null and campaigns.allegation_type is not null
            as has_publication,
        coalesce(
            mentions.channels_around_report >= 2
            and mentions.mentions_around_report / 7.0
                >= 3 * greatest(mentions.mentions_30_days_before / 30.0, 1),
            false
        ) as has_amplification,
        coalesce(
            short_before.short_position_pct - short_earlier.short_position_pct >= 0.5
            and short_before.short_position_pct >= 1.2 * short_earlier.short_position_pct,
            false
        ) as has_positioning,
        coalesce(close_after.close <= 0.9 * close_before.close, false) as has_price_move,
        mentions.mentions_around_report,
        mentions.channels_around_report,
        mentions.mentions_30_days_before,
        short_before.position_date as short_before_date,
        short_before.short_position_pct as short_before_pct,
        short_earlier.position_date as short_earlier_date,
        short_earlier.short_position_pct as short_earlier_pct,
        close_before.trade_date as close_before_date,
        close_before.close as close_before,
        close_after.trade_date as close_after_date,
        close_after.close as close_after
    from campaigns
    left join mentions on campaigns.campaign_id = mentions.campaign_id
    left join short_before on campaigns.campaign_id = short_before.campaign_id and short_before.newest_first = 1
    left join short_earlier on campaigns.campaign_id = short_earlier.campaign_id and short_earlier.newest_first = 1
    left join close_before on campaigns.campaign_id = close_before.campaign_id and close_before.newest_first = 1
    left join close_after on campaigns.campaign_id = close_after.campaign_id and close_after.newest_first = 1

),

final as (

    select
        *,
        25 * (
            case when has_publication then 1 else 0 end
            + case when has_amplification then 1 else 0 end
            + case when has_positioning then 1 else 0 end
            + case when has_price_move then 1 else 0 end
        ) as pattern_points
    from elements

)

select * from final
