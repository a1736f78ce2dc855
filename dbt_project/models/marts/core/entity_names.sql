-- One row per (abn, name): every name an ABN is known by, with the strongest kind any input
-- gives it, its normalised form for matching, its business-names-register status, and the
-- inputs that list it.
--
-- A week's build recomputes only the names of the ABNs whose inputs changed
-- (int_entity_inputs; their `input_hash`, carried on each name):
-- macros/materializations/sliced_table.sql.
{{ config(
    materialized=bvs.sliced_table_materialization(),
    incremental_key='abn',
    incremental_inputs='int_entity_inputs',
    incremental_rows_per_key='many',
) }}

{#- The inputs of int_entity_names_unioned, in the order `sources` lists them. -#}
{%- set name_sources = ['abr__abns', 'abr__other_names', 'asic__business_names'] %}

with

name_listings as (

    select * from {{ ref('int_entity_names_unioned') }} where {{ bvs.in_slice('abn') }}

),

inputs as (

    select * from {{ ref('int_entity_inputs') }} where {{ bvs.in_slice('abn') }}

),

name_listings_ranked as (

    select
        abn,
        name,
        source,
        -- Name kinds from strongest to weakest; a name listed under several kinds takes
        -- the strongest.
        case name_kind
            when 'legal' then 1
            when 'business_name' then 2
            when 'trading' then 3
            when 'other' then 4
            when 'dgr' then 5
        end as name_kind_rank,
        -- A name registered more than once under one ABN takes the most current status.
        case
            when source <> 'asic__business_names' then null
            when bn_status = 'Registered' then 1
            when bn_status = 'Deregistered' then 2
            when bn_status = 'Cancelled' then 3
            else 4
        end as bn_status_rank,
        case when source = 'asic__business_names' then bn_status end as bn_status
    from name_listings

),

-- One aggregation, no string_agg: a per-input flag is several times cheaper on 25 million
-- names, and `sources` is built from the flags below.
names_with_strongest_kind as (

    select
        abn,
        name,
        min(name_kind_rank) as name_kind_rank,
        min(bn_status_rank) as bn_status_rank,
        max(case when bn_status_rank = 4 then bn_status end) as unknown_bn_status,
        {%- for source in name_sources %}
        max(case when source = '{{ source }}' then 1 else 0 end) as is_listed_by_{{ source }}
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from name_listings_ranked
    group by abn, name

),

final as (

    select
        names_with_strongest_kind.abn,
        name,
        {{ bvs.normalise_name('name') }} as name_normalised,
        case name_kind_rank
            when 1 then 'legal'
            when 2 then 'business_name'
            when 3 then 'trading'
            when 4 then 'other'
            when 5 then 'dgr'
        end as name_kind,
        name_kind_rank = 1 as is_legal_name,
        case bn_status_rank
            when 1 then 'Registered'
            when 2 then 'Deregistered'
            when 3 then 'Cancelled'
            when 4 then unknown_bn_status
        end as bn_status,
        -- concat_ws skips nulls on DuckDB, Spark, Trino and Postgres (not on Snowflake).
        concat_ws(
            ','
            {%- for source in name_sources %},
            case when is_listed_by_{{ source }} = 1 then '{{ source }}' end
            {%- endfor %}
        ) as sources,
        inputs.input_hash
    from names_with_strongest_kind
    inner join inputs
        on names_with_strongest_kind.abn = inputs.abn

)

select * from final
