-- Activist short-seller campaigns, one row per campaign. outcome: SUBSTANTIATED,
-- PARTLY_SUBSTANTIATED, REFUTED or PENDING (null when not yet known); settled: true, false
-- or null.

with

source as (

    select * from {{ source('activist', 'campaigns') }}

),

final as (

    select
        {{ bvs.clean_text('campaign_id') }} as campaign_id,
        {{ bvs.clean_text('activist') }} as activist,
        {{ bvs.clean_text('target_name') }} as target_name,
        {{ bvs.clean_code('ticker') }} as ticker,
        {{ bvs.clean_identifier('abn') }} as abn,
        report_date,
        {{ bvs.clean_text('report_title') }} as report_title,
        lower(trim(allegation_type)) as allegation_type,
        {{ bvs.clean_text('report_url') }} as report_url,
        {{ bvs.clean_code('outcome') }} as outcome,
        settled,
        {{ bvs.clean_text('source') }} as evidence_source,
        source_file,
        source_line
    from source

)

select * from final
