-- Every flag's severity and rank are a band of the declared risk levels (dbt_project.yml var
-- risk_levels), and the lowest band starts at 0 (the risk level macro gives it every score
-- below the next band). Rows returned fail the test.

select
    flags.flag_id,
    flags.severity,
    flags.severity_rank,
    'severity or rank not declared in var risk_levels' as problem
from {{ ref('flags') }} as flags
left join {{ ref('risk_levels') }} as risk_levels
    on flags.severity = risk_levels.severity
    and flags.severity_rank = risk_levels.severity_rank
where risk_levels.severity is null

union all

select
    null as flag_id,
    null as severity,
    null as severity_rank,
    'the lowest risk band does not start at 0' as problem
from {{ ref('risk_levels') }}
having min(risk_floor) <> 0
