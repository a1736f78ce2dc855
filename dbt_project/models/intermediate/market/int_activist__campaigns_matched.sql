-- Activist campaigns with their target resolved: the ticker as published, else the ASX list
-- company whose name is most similar (at least 0.65, docs/rules.md activist check), and the
-- target's ABN (as published, else through the ASX list match). The list has about 2,400
-- companies and the campaign database tens of rows, so every pair is compared. is_live: a report within
-- the 30 days before the as-of date whose outcome is not yet known.

-- A table: the name match is the costly part (every listed name's trigrams), and two
-- models read it.

{{ config(materialized='table') }}

with

-- a campaign published after the as-of date does not exist yet on it (CONTRACT: `--as-of`
-- fixes today): it counts in no tile, viper answer or integrity index
campaigns as (

    select * from {{ ref('stg_activist__campaigns') }}
    where report_date is null or report_date <= {{ bvs.as_of_date() }}

),

listed as (

    select * from {{ ref('stg_asx__listed_companies') }}

),

listed_abns as (

    select
        asx_code,
        min(abn) as abn
    from {{ ref('match_asx_listed') }}
    group by asx_code

),

name_matches as (

    select
        campaigns.campaign_id,
        listed.asx_code,
        {{ bvs.trigram_array_similarity('campaigns.trigrams', 'listed.trigrams') }} as similarity
    from (
        select *, {{ bvs.trigram_array(bvs.normalise_name('target_name')) }} as trigrams
        from campaigns
    ) as campaigns
    cross join (
        select asx_code, {{ bvs.trigram_array(bvs.normalise_name('company_name')) }} as trigrams
        from listed
    ) as listed
    where campaigns.ticker is null and campaigns.target_name is not null

),

best_name_match as (

    select
        campaign_id,
        asx_code,
        similarity,
        row_number() over (partition by campaign_id order by similarity desc, asx_code) as best_first
    from name_matches
    where similarity >= 0.65

),

final as (

    select
        campaigns.*,
        coalesce(campaigns.ticker, best_name_match.asx_code) as target_ticker,
        case
            when campaigns.ticker is not null then 'ticker'
            when best_name_match.asx_code is not null then 'name'
        end as target_match_method,
        best_name_match.similarity as target_name_similarity,
        coalesce(campaigns.abn, listed_abns.abn) as target_abn,
        campaigns.report_date > {{ dbt.dateadd('day', -30, bvs.as_of_date()) }}
            and campaigns.report_date <= {{ bvs.as_of_date() }}
            and (campaigns.outcome is null or campaigns.outcome = 'PENDING') as is_live
    from campaigns
    left join best_name_match
        on campaigns.campaign_id = best_name_match.campaign_id
        and best_name_match.best_first = 1
    left join listed_abns
        on coalesce(campaigns.ticker, best_name_match.asx_code) = listed_abns.asx_code

)

select * from final
