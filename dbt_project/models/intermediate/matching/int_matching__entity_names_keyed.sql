-- Every distinct normalised entity name (legal, business, trading and other names of every
-- ABN) once, with a compact integer id: the entity side of the trigram index. Name
-- matching works on distinct names, then fans out to ABNs through entity_names.

{{ config(materialized='table') }}

with

entity_names as (

    select * from {{ ref('entity_names') }}

),

distinct_names as (

    select distinct name_normalised
    from entity_names
    where name_normalised is not null

),

final as (

    select
        row_number() over (order by name_normalised) as name_id,
        name_normalised
    from distinct_names

)

select * from final
