{#
    The pre-hooks of the incremental search tables (docs/search.md, "A week's index"): each
    deletes the rows that no longer hold what a whole build would write, so the model then
    appends only the missing rows.
#}

{#- search_names: the rows of (ABN, name) gone, or whose columns changed (compared on the
    columns `names` gives, from which the others are derived). -#}
{% macro delete_search_names_changed(relation, names) -%}
    {%- set columns = ['abn', 'name', 'search_key', 'name_kind', 'is_legal_name', 'bn_status',
                       'legal_name', 'abn_status', 'state', 'postcode', 'trigram_count'] -%}
    delete from {{ relation }} as indexed
    using (
        select abn, name
        from (
            select {{ columns | join(', ') }} from {{ relation }}
            except
            select {{ columns | join(', ') }} from {{ names }}
        )
    ) as stale
    where indexed.abn = stale.abn
        and indexed.name = stale.name
{%- endmacro %}

{#- search_words: the postings of names gone from search_names, or whose columns changed. -#}
{% macro delete_search_postings_changed(relation, names) -%}
    delete from {{ relation }} as posting
    using (
        select distinct indexed.name_id
        from {{ relation }} as indexed
        anti join {{ names }} as names
            on indexed.name_id = names.name_id
            and indexed.abn_id = names.abn_id
            and indexed.search_key = names.search_key
            and indexed.name = names.name
            {%- for column in bvs.search_posting_name_columns() %}
            and indexed.{{ column }} is not distinct from names.{{ column }}
            {%- endfor %}
    ) as stale
    where posting.name_id = stale.name_id
{%- endmacro %}

{#- The columns a posting copies from its name, besides name_id, abn_id, search_key, name. -#}
{% macro search_posting_name_columns() -%}
    {{ return(['key_length', 'trigram_count', 'name_kind', 'is_legal_name', 'bn_status',
               'legal_name', 'abn_status', 'is_active', 'state', 'postcode']) }}
{%- endmacro %}
