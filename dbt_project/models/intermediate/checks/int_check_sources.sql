-- One row per check id: whether every source it reads has been loaded, and the sources as
-- the tile shows them (JSON array of {register, as_of}). A source counts as loaded when it
-- has a successful load; a register inside a shared source (a regulator's adverse records, a
-- register of the `registers` folder) when that load holds at least one of its rows; a list
-- of registers (`A|B|C`, the conduct regulators) when it holds rows of at least one of them
-- (docs/decisions/17-a-register-that-does-not-cover-says-nothing.md: conduct with only FWO records loaded is N/A, never PASS).
-- A check whose data is not loaded is N/A, never PASS (int_check_outcomes applies it).

with

check_sources as (

    select * from {{ ref('check_sources') }}

),

source_loads as (

    select * from {{ ref('stg_meta__source_loads') }}

),

registers_present as (

    select distinct 'registers' as source, register from {{ ref('stg_registers__records') }}
    union all
    select distinct 'adverse' as source, regulator as register from {{ ref('stg_adverse__records') }}

),

registers_loaded as (

    select
        check_sources.check_id,
        check_sources.source,
        check_sources.register,
        max(case when registers_present.register is not null then 1 else 0 end) = 1
            as is_register_present
    from check_sources
    left join registers_present
        on check_sources.source = registers_present.source
        and {{ dbt.position("'|' || registers_present.register || '|'", "'|' || check_sources.register || '|'") }} > 0
    where check_sources.register is not null
    group by check_sources.check_id, check_sources.source, check_sources.register

),

sources_resolved as (

    select
        check_sources.check_id,
        check_sources.source,
        check_sources.register,
        check_sources.label,
        source_loads.as_of_date,
        source_loads.source is not null
            and (check_sources.register is null or registers_loaded.is_register_present)
            as is_loaded
    from check_sources
    left join source_loads
        on check_sources.source = source_loads.source
    left join registers_loaded
        on check_sources.check_id = registers_loaded.check_id
        and check_sources.source = registers_loaded.source
        and check_sources.register = registers_loaded.register

),

final as (

    select
        check_id,
        min(case when is_loaded then 1 else 0 end) = 1 as is_data_loaded,
        {{ dbt.listagg(
            "case when not is_loaded then label end", "', '", "order by label"
        ) }} as missing_sources,
        {{ bvs.json_array_agg(
            bvs.json_object([
                ('register', 'label'),
                ('source', 'source'),
                ('as_of', 'case when is_loaded then as_of_date end'),
            ]),
            order_by='label'
        ) }} as sources
    from sources_resolved
    group by check_id

)

select * from final
