-- One tile per ABN and check id (CONTRACT.md): status, the rule row that decided it, the
-- evidence, the check's weight and its sources with the as-of date of the data used.
-- points = the tile's contribution to the assurance score (SPEC 3.2: PASS the full weight,
-- WARN half, FAIL nothing; null for N/A, which counts on neither side).

with

outcomes as (

    select * from {{ ref('int_check_outcomes') }}

),

weights as (

    select * from {{ ref('check_weights') }}

),

check_sources as (

    select * from {{ ref('int_check_sources') }}

),

unpivoted as (

    {%- for check_id in bvs.check_ids() %}
    select
        abn,
        '{{ check_id }}' as check_id,
        {{ check_id }}_status as status,
        {{ check_id }}_reason as reason,
        {{ check_id }}_detail as detail
    from outcomes
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}

),

final as (

    select
        unpivoted.abn,
        unpivoted.check_id,
        unpivoted.status,
        unpivoted.reason,
        unpivoted.detail,
        cast(weights.weight as integer) as weight,
        cast(case unpivoted.status
            when 'PASS' then weights.weight
            when 'WARN' then 0.5 * weights.weight
            when 'FAIL' then 0
        end as double) as points,
        coalesce(check_sources.sources, '[]') as sources,
        {{ bvs.as_of_date() }} as as_of_date
    from unpivoted
    inner join weights
        on unpivoted.check_id = weights.check_id
    left join check_sources
        on unpivoted.check_id = check_sources.check_id

)

select * from final
