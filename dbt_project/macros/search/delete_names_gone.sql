{#
    The post-hook of int_search__name_trigram_counts: delete the rows of names that no
    entity has any more (`names`: the relation of every current normalised name). After a
    whole build there are none.
#}
{% macro delete_names_gone(relation, names) -%}
    delete from {{ relation }} as counted
    where not exists (
        select 1 from {{ names }} as names
        where names.name_normalised = counted.name_normalised
    )
{%- endmacro %}
