-- Every register name that is matched to entity names by trigram similarity, once, with
-- the lowest threshold any register applies to it (the per-register threshold is applied
-- again in each match table). The registers are the `int_match_records__*` models whose
-- rows carry a name threshold. A table: each register's names are normalised once, for the
-- similarity join and this model's tests alike (as a view, each test normalised them again).

{{ config(materialized='table') }}

{%- set registers = bvs.matching_registers() %}

with

{% for register in registers %}
-- materialized: the records with a threshold are found first and only their names are
-- normalised (else DuckDB tests the normalised name of every record, before the join that
-- decides the threshold: most business names list an ABN that is an entity's)
{{ register }} as materialized (

    select
        match_name_normalised as name_normalised,
        name_threshold
    from {{ ref('int_match_records__' ~ register) }}
    where name_threshold is not null

),

{% endfor %}
unioned as (

    {% for register in registers %}
    select * from {{ register }} where name_normalised is not null
    {% if not loop.last %}union all{% endif %}
    {% endfor %}

),

final as (

    select
        name_normalised,
        min(name_threshold) as name_threshold
    from unioned
    group by name_normalised

)

select * from final
