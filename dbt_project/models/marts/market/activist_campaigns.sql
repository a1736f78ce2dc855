-- The activist campaign database (docs/market.md): every documented campaign with its target
-- (ticker, ABN), outcome, and the four pattern elements with their evidence. The pattern
-- match score (0-100, 25 per element present) is given for live campaigns (a report in the
-- last 30 days whose outcome is not known), the ones a watch or the viper check acts on;
-- as_of_date is the date "live" was counted from, so a reader can say why a score is null.

with

campaigns as (

    select * from {{ ref('int_activist__campaigns_matched') }}

),

elements as (

    select * from {{ ref('int_activist__pattern_elements') }}

),

final as (

    select
        campaigns.campaign_id,
        {{ bvs.activist_id('campaigns.activist') }} as activist_id,
        campaigns.activist,
        campaigns.target_name,
        campaigns.target_ticker,
        campaigns.target_match_method,
        campaigns.target_abn,
        campaigns.report_date,
        campaigns.report_title,
        campaigns.allegation_type,
        campaigns.report_url,
        campaigns.outcome,
        campaigns.settled,
        campaigns.evidence_source,
        campaigns.is_live,
        elements.has_publication,
        elements.has_amplification,
        elements.has_positioning,
        elements.has_price_move,
        case when campaigns.is_live then elements.pattern_points end as pattern_match_score,
        {{ bvs.as_of_date() }} as as_of_date,
        {{ bvs.json_object([
            ('publication', 'cast(' ~ bvs.json_object([
                ('present', 'elements.has_publication'), ('report_date', 'campaigns.report_date'),
                ('allegation_type', 'campaigns.allegation_type'), ('report_url', 'campaigns.report_url'),
            ]) ~ ' as json)'),
            ('amplification', 'cast(' ~ bvs.json_object([
                ('present', 'elements.has_amplification'),
                ('mentions_around_report', 'elements.mentions_around_report'),
                ('channels_around_report', 'elements.channels_around_report'),
                ('mentions_30_days_before', 'elements.mentions_30_days_before'),
            ]) ~ ' as json)'),
            ('positioning', 'cast(' ~ bvs.json_object([
                ('present', 'elements.has_positioning'),
                ('short_pct_before_report', 'elements.short_before_pct'),
                ('as_of', 'elements.short_before_date'),
                ('short_pct_earlier', 'elements.short_earlier_pct'),
                ('earlier_as_of', 'elements.short_earlier_date'),
            ]) ~ ' as json)'),
            ('price_move', 'cast(' ~ bvs.json_object([
                ('present', 'elements.has_price_move'),
                ('close_before', 'elements.close_before'), ('close_before_date', 'elements.close_before_date'),
                ('close_after', 'elements.close_after'), ('close_after_date', 'elements.close_after_date'),
            ]) ~ ' as json)'),
        ]) }} as pattern_evidence
    from campaigns
    left join elements
        on campaigns.campaign_id = elements.campaign_id

)

select * from final
