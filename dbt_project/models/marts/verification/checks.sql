-- The check catalogue: one row per check id with its weight (seed check_weights, docs/rules.md#assurance-score
-- and the documented choices), whether its data is loaded, and its sources with the as-of
-- date of the data used. The API reads tile weights and sources from here.

with

weights as (

    select * from {{ ref('check_weights') }}

),

check_sources as (

    select * from {{ ref('int_check_sources') }}

),

final as (

    select
        weights.check_id,
        weights.check_name,
        weights.spec_check,
        cast(weights.weight as integer) as weight,
        weights.weight_basis,
        weights.rationale,
        coalesce(check_sources.is_data_loaded, true) as is_data_loaded,
        check_sources.missing_sources,
        coalesce(check_sources.sources, '[]') as sources,
        {{ bvs.as_of_date() }} as as_of_date
    from weights
    left join check_sources
        on weights.check_id = check_sources.check_id

)

select * from final
