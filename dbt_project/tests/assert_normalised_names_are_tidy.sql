-- normalise_name returns upper case, single-spaced, trimmed text, or null (never '').

with

entity_names as (

    select * from {{ ref('entity_names') }}

),

final as (

    select abn, name, name_normalised
    from entity_names
    where name_normalised = ''
        or name_normalised <> trim(name_normalised)
        or name_normalised like '%  %'
        or name_normalised <> upper(name_normalised)

)

select * from final
