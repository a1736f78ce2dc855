-- One row per source that has loaded successfully at least once: the extract date of its
-- newest successful load (the file's own date where it has one, else the day it was loaded)
-- and when that load finished. A source with no such row has never been loaded: the checks
-- that read it show N/A (docs/decisions/06-phoenix.md, issue 4).

with

loads as (

    select * from {{ source('meta', 'loads') }}

),

successful as (

    select
        source,
        extract_date,
        finished_at,
        row_number() over (partition by source order by finished_at desc) as newest_first
    from loads
    where status = 'loaded'

),

final as (

    select
        source,
        coalesce(extract_date, cast(finished_at as date)) as as_of_date,
        finished_at as loaded_at
    from successful
    where newest_first = 1

)

select * from final
