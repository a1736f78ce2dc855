-- ASIC daily aggregated short positions, one row per position date and product: a day's
-- newest file version replaces the earlier ones whole (002 replaces 001; a product that
-- 002 no longer lists is gone for that day). The position date is the data's date, not the
-- publication date. short_position_pct is a percent (1.92 = 1.92 %).

with

source as (

    select * from {{ source('asic', 'short_positions') }}

),

newest_versions as (

    select
        position_date,
        max(version) as version
    from source
    group by position_date

),

renamed as (

    select
        source.position_date,
        upper(trim(source.product_code)) as ticker,
        {{ bvs.clean_text('source.product') }} as product_name,
        source.reported_short_positions,
        source.total_product_in_issue,
        source.short_position_pct,
        source.version,
        source.source_file,
        source.source_line
    from source
    inner join newest_versions
        on source.position_date = newest_versions.position_date
        and source.version = newest_versions.version

),

final as (

    select * from renamed

)

select * from final
