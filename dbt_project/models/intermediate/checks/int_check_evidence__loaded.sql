-- One row: per check, whether its data is loaded (<check>_is_loaded) and which sources are
-- missing (<check>_missing).

select
    {%- for check_id in bvs.check_ids() %}
    coalesce(min(case when check_id = '{{ check_id }}' then case when is_data_loaded then 1 else 0 end end), 1) = 1
        as {{ check_id }}_is_loaded,
    max(case when check_id = '{{ check_id }}' then missing_sources end) as {{ check_id }}_missing
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
from {{ ref('int_check_sources') }}
