-- The live checks' tiles, one row per ABN and check (the latest run's; an ABN checked twice
-- keeps its latest row).

with

source as (

    select * from {{ source('live', 'tiles') }}

),

ranked as (

    select
        abn,
        check_id,
        status,
        reason,
        detail,
        checked_at,
        row_number() over (partition by abn, check_id order by checked_at desc) as recency_rank
    from source

),

final as (

    select abn, check_id, status, reason, detail, checked_at
    from ranked
    where recency_rank = 1

)

select * from final
