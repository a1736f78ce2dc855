{#- The names int_matching__entity_names_keyed keys: every distinct normalised entity name,
    one column `name_normalised`. A week's pre-hook writes them to the temporary table
    `entity_names_now()`, deletes the keyed names not among them, and the model's SQL
    appends those not yet keyed. -#}
{% macro entity_names_to_key() -%}
    select distinct name_normalised
    from {{ ref('entity_names') }}
    where name_normalised is not null
{%- endmacro %}

{% macro entity_names_now() -%}
    int_matching__entity_names_keyed__names_now
{%- endmacro %}
