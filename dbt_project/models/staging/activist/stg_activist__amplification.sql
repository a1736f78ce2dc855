-- Mentions of a campaign per day and channel: its coordinated amplification.

with

source as (

    select * from {{ source('activist', 'amplification') }}

),

final as (

    select
        {{ bvs.clean_text('campaign_id') }} as campaign_id,
        date as mention_date,
        lower(trim(channel)) as channel,
        mentions,
        source_file,
        source_line
    from source

)

select * from final
