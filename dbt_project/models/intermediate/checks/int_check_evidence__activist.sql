-- Per ABN named as an activist campaign's target, the newest report's campaign (one ticker
-- per ABN: the latest report's).

select * exclude (newest_first)
from (
    select
        *,
        row_number() over (partition by abn order by report_date desc, ticker) as newest_first
    from {{ ref('viper') }}
    where abn is not null
) as ranked
where newest_first = 1
