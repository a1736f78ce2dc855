-- The seed check_weights and the macro check_ids() name the same checks: a check without
-- a weight, or a weight without a check, is an error.

with

listed as (

    {%- for check_id in bvs.check_ids() %}
    select '{{ check_id }}' as check_id{% if not loop.last %} union all{% endif %}
    {%- endfor %}

),

weights as (

    select check_id from {{ ref('check_weights') }}

)

select coalesce(listed.check_id, weights.check_id) as check_id
from listed
full outer join weights
    on listed.check_id = weights.check_id
where listed.check_id is null or weights.check_id is null
