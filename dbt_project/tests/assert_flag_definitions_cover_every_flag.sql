-- The seed flag_definitions and the macro flag_ids() name the same flags (the ledger runs
-- record each flag by its id from the macro): a flag missing from either is an error.

with

listed as (

    {%- for flag_id in bvs.flag_ids() %}
    select '{{ flag_id }}' as flag_id{% if not loop.last %} union all{% endif %}
    {%- endfor %}

),

defined as (

    select flag_id from {{ ref('flag_definitions') }}

)

select coalesce(listed.flag_id, defined.flag_id) as flag_id
from listed
full outer join defined
    on listed.flag_id = defined.flag_id
where listed.flag_id is null or defined.flag_id is null
