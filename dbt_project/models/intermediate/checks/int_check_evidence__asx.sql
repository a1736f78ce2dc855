-- Per ABN matched to an ASX listing, its ticker (the first, when several match).

select
    abn,
    min(asx_code) as asx_code
from {{ ref('match_asx_listed') }}
group by abn
