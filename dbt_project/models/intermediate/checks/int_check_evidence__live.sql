-- Per ABN, the live checks' tiles side by side: <check>_status, _reason, _detail for each
-- live check (macro live_check_reasons). ABNs the live checks did not run for have no row.

{%- set live_checks = bvs.live_check_reasons().keys() | reject('equalto', 'address') | list %}

with

tiles as (

    select * from {{ ref('stg_live__tiles') }}

),

final as (

    select
        abn,
        {%- for check_id in live_checks %}
        max(case when check_id = '{{ check_id }}' then status end) as {{ check_id }}_status,
        max(case when check_id = '{{ check_id }}' then reason end) as {{ check_id }}_reason,
        max(case when check_id = '{{ check_id }}' then detail end) as {{ check_id }}_detail
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from tiles
    group by abn

)

select * from final
