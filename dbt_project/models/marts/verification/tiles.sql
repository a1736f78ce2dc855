-- One tile per ABN and check id (CONTRACT.md): status, the rule row that decided it, the
-- evidence, the check's weight and its sources with the as-of date of the data used.
-- points = the tile's contribution to the assurance score (docs/rules.md#assurance-score: PASS the full weight,
-- WARN half, FAIL nothing; null for N/A, which counts on neither side).
--
-- A view: the long form of `verifications` (which holds every tile's status, reason and
-- detail per ABN) joined to the check catalogue `checks`. At 20 million ABNs the long form
-- is 720 million rows; kept as a view it costs nothing to build and the serving snapshot
-- recreates it over its own copy of `verifications`. A filter on abn or check_id reaches the
-- underlying scan.

{{ config(materialized='view') }}

with

verifications as (

    select * from {{ ref('verifications') }}

),

-- The catalogue as one row (a column per check): each check's branch reads its own, so the
-- 36 branches need no join.
catalogue as (

    select
        {%- for check_id in bvs.check_ids() %}
        max(case when check_id = '{{ check_id }}' then weight end) as {{ check_id }}_weight,
        max(case when check_id = '{{ check_id }}' then sources end) as {{ check_id }}_sources
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ ref('checks') }}

),

final as (

    {%- for check_id in bvs.check_ids() %}
    select
        verifications.abn,
        '{{ check_id }}' as check_id,
        verifications.{{ check_id }}_status as status,
        verifications.{{ check_id }}_reason as reason,
        verifications.{{ check_id }}_detail as detail,
        catalogue.{{ check_id }}_weight as weight,
        cast(case verifications.{{ check_id }}_status
            when 'PASS' then catalogue.{{ check_id }}_weight
            when 'WARN' then 0.5 * catalogue.{{ check_id }}_weight
            when 'FAIL' then 0
        end as double) as points,
        catalogue.{{ check_id }}_sources as sources,
        verifications.as_of_date
    from verifications
    cross join catalogue
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}

)

select * from final
