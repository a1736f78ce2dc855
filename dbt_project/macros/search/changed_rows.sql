{#
    What a week of the incremental search tables rewrites (docs/search.md, "A week's
    index"): the ABNs whose search rows may differ from the ones the table holds. Each
    table keeps, per ABN, what its rows were built from, in a table of its own in `meta`
    (`search_index_state(this)`), written in the same transaction as the rows:

    * search_names: the ABN's `entities.input_hash`, the hash of every input of its
      `entities` and `entity_names` rows (int_entity_inputs), from which its search rows
      are computed;
    * search_words: the ABN's fingerprint in search_names, that hash with its names' ids.

    A model declares what it records with config `search_index_abn_inputs`: the name of the
    macro that selects (abn, input_hash) now (`search_names_abn_inputs`,
    `search_words_abn_inputs`).

    A pre-hook (`search_index_changed_abns`) writes the ABNs whose value differs, or that
    came or went, to a temporary table of the same name, and deletes their rows; the model
    then appends their rows; the post-hook (`search_index_record_state`) records their new
    values and drops the temporary table. The hash says nothing of the code that turned the
    inputs into rows: the code of what the table reads is part of its recorded code
    (config `search_index_reads`, macros/search/ids.sql), so a change to it rebuilds the
    table whole.
#}

{#- meta.<model>__abn_inputs: per ABN, the value its rows were built from. -#}
{% macro search_index_state(relation) -%}
    meta.{{ relation.identifier }}__abn_inputs
{%- endmacro %}

{#- The temporary table of the ABNs this build rewrites. -#}
{% macro search_index_changed(relation) -%}
    {{ relation.identifier }}__changed_abns
{%- endmacro %}

{#- What each ABN's rows are built from now, (abn, input_hash): the macro the model names
    in its config `search_index_abn_inputs` (read when the model runs: at parse, configs
    are not yet set, and search_names declares its ref to entities itself). -#}
{% macro search_index_inputs() -%}
    {%- if execute -%}
        {{ bvs[config.get('search_index_abn_inputs')]() }}
    {%- endif -%}
{%- endmacro %}

{#- search_names: the ABN's entities.input_hash. -#}
{% macro search_names_abn_inputs() -%}
    select abn, input_hash from {{ ref('entities') }}
{%- endmacro %}

{#- search_words: the ABN's hash in search_names with its names' ids (a name placed again
    may take the id it had: the hash tells it changed). -#}
{% macro search_words_abn_inputs() -%}
    select
        built.abn,
        hash(built.input_hash, coalesce(names.name_ids, 0)) as input_hash
    from {{ bvs.search_index_state(ref('search_names')) }} as built
    left join (
        select abn, sum(hash(name_id)) as name_ids
        from {{ ref('search_names') }}
        group by abn
    ) as names
        on built.abn = names.abn
{%- endmacro %}

{#- An ABN (text) as the table's `abn_column` holds it: `abn_id` an integer, `abn` text. -#}
{% macro search_index_abn_as(abn, abn_column) -%}
    cast({{ abn }} as {{ 'bigint' if abn_column == 'abn_id' else dbt.type_string() }})
{%- endmacro %}

{#- The pre-hook of an incremental build: the changed ABNs, and their rows deleted, after
    `before_delete` (statements that read them). -#}
{% macro search_index_changed_abns(relation, abn_column, before_delete=none) -%}
    create or replace temporary table {{ bvs.search_index_changed(relation) }} as
    select coalesce(inputs.abn, built.abn) as abn, inputs.input_hash
    from ({{ bvs.search_index_inputs() }}) as inputs
    full outer join {{ bvs.search_index_state(relation) }} as built
        on inputs.abn = built.abn
    where inputs.input_hash is distinct from built.input_hash;
    {%- if before_delete %}

    {{ before_delete }};
    {%- endif %}

    delete from {{ relation }}
    where {{ abn_column }} in (
        select {{ bvs.search_index_abn_as('abn', abn_column) }}
        from {{ bvs.search_index_changed(relation) }}
    )
{%- endmacro %}

{#- The post-hook: what the rows just written were built from, and which ABNs they are
    (for the table's data tests: macros/materializations/written_keys.sql; `abn_column` is
    the table's column of the ABN, as in the pre-hook). -#}
{% macro search_index_record_state(relation, abn_column) -%}
    {%- set state = bvs.search_index_state(relation) -%}
    {%- if bvs.search_index_whole_build() -%}
        create or replace table {{ state }} as {{ bvs.search_index_inputs() }};
        {{ bvs.record_written_keys(relation, abn_column) }}
    {%- else -%}
        {%- set changed = bvs.search_index_changed(relation) -%}
        delete from {{ state }} where abn in (select abn from {{ changed }});
        insert into {{ state }}
        select abn, input_hash from {{ changed }} where input_hash is not null;
        {{ bvs.record_written_keys(relation, abn_column,
            'select ' ~ bvs.search_index_abn_as('abn', abn_column) ~ ' from ' ~ changed) }};
        drop table {{ changed }}
    {%- endif -%}
{%- endmacro %}
