{#- The names int_matching__entity_names_keyed keys: every distinct normalised entity name,
    one column `name_normalised`. The model's pre-hook deletes the keyed names not among
    them, its SQL appends those not yet keyed. -#}
{% macro entity_names_to_key() -%}
    select distinct name_normalised
    from {{ ref('entity_names') }}
    where name_normalised is not null
{%- endmacro %}
