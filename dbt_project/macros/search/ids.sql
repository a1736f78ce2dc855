{#
    The ids of the search tables (search_names.name_id, search_words.posting_id) follow the
    table's order with room between them: a whole build numbers its rows in order times
    `search_id_spacing()`, so a week's new rows take ids between their neighbours' and the
    ids stay in the table's order without renumbering it (docs/search.md, "A week's
    index"). pipelines.serving.search.ID_SPACING is the Python twin.
#}
{% macro search_id_spacing() -%}
    1048576
{%- endmacro %}

{#
    place_between(new_rows, kept_rows, id_column): a select of `new_rows` (a relation with a
    `sort_key` column, in the table's order, and its `code`) with ids between the ids of
    their neighbours in `kept_rows` (`sort_key`, `code`, `id`: the rows the table keeps),
    spread evenly over the gap; after the last kept row, `search_id_spacing()` apart. No new
    row's sort_key may equal a kept row's (the tables' sort keys are unique). A gap with no
    room left (it would take some twenty weeks of new rows between the same two neighbours)
    fails the build with a message saying to rebuild the table whole.

    `code` is an integer that follows the table's order (search_code of the key the order
    starts with: rows in order have codes in order, rows with equal codes may be any rows
    of that prefix), so the neighbours are found without sorting every kept row: the kept
    rows of the new rows' codes are compared on their sort keys, and those of the other
    codes only as the last kept id of the codes below a new row's. The ids follow the order,
    so a row's neighbour before is the greater of the two ids before it, and its neighbour
    after the first kept id after that one.
#}
{% macro place_between(new_rows, kept_rows, id_column) -%}
    with

    new_codes as (

        select distinct code from {{ new_rows }}

    ),

    kept_codes as (

        select code, max(id) as last_id
        from {{ kept_rows }}
        group by code

    ),

    -- per code of a new row: the last kept id of the codes below it
    code_bounds as (

        select new_codes.code, below.last_id as id_below
        from new_codes
        asof left join kept_codes as below
            on new_codes.code > below.code

    ),

    kept_same_code as (

        select sort_key, id
        from {{ kept_rows }}
        where code in (select code from new_codes)

    ),

    with_before as (

        select new_rows.*, kept_before.id as same_code_before
        from {{ new_rows }} as new_rows
        asof left join kept_same_code as kept_before
            on new_rows.sort_key > kept_before.sort_key

    ),

    with_id_before as (

        select
            with_before.*,
            -- greatest skips nulls
            greatest(same_code_before, code_bounds.id_below) as id_before
        from with_before
        inner join code_bounds
            on with_before.code = code_bounds.code

    ),

    -- the neighbour after is the kept row after the neighbour before in id order (the ids
    -- follow the order, and no kept row lies between the two): found on the ids, integers,
    -- rather than by a second sort of the kept rows on their sort keys
    with_neighbours as (

        select with_id_before.*, kept_after.id as id_after
        from with_id_before
        asof left join (select id from {{ kept_rows }}) as kept_after
            on coalesce(with_id_before.id_before, -9223372036854775807) < kept_after.id

    ),

    gaps as (

        select
            *,
            coalesce(id_before, 0) as id_low,
            row_number() over (partition by id_before order by sort_key) as place,
            count(*) over (partition by id_before) as places
        from with_neighbours

    ),

    bounded as (

        select
            *,
            coalesce(id_after, id_low + (places + 1) * {{ bvs.search_id_spacing() }}) as id_high
        from gaps

    )

    select
        * exclude (
            sort_key, code, same_code_before, id_before, id_after, id_low, id_high, place,
            places
        ),
        case
            when id_high - id_low > places
                then id_low + (id_high - id_low) * place // (places + 1)
            else error(
                '{{ this.identifier }}: no room for ' || places || ' new ids between '
                || id_low || ' and ' || id_high
                || '; rebuild it whole (dbt run --full-refresh --select {{ this.identifier }}+)'
            )
        end as {{ id_column }}
    from bounded
{%- endmacro %}

{#
    The search index's incremental models (search_names, search_words and
    int_search__name_trigram_counts) rebuild whole when their code changed since the table
    was built (meta.model_versions, as for sliced_table): a week keeps the rows it
    does not rewrite, so rows written by other code (another spacing, another search_code)
    would stay. `search_index_code_changed()` is true when the table exists and its recorded
    code differs from the model's SQL and `search_index_macros()`' (none recorded counts as
    changed: a table built before the record existed); the model's pre-hook then deletes every
    row and its SQL takes the whole build's path. `record_search_index_code()` is the
    post-hook that records the code.

    A week of search_names and search_words rewrites the ABNs whose inputs changed
    (macros/search/changed_rows.sql), which says nothing of the code that made the rows
    from them: the code of the models a table reads (config `search_index_reads`: their
    recorded code, or their SQL when none is recorded) is part of its own.
#}
{% macro search_index_macros() -%}
    {{ return(['search_id_spacing', 'place_between', 'search_code', 'search_code_digit',
               'select_word_rows', 'default__select_word_rows', 'search_index_state',
               'search_index_changed', 'search_index_inputs', 'search_names_abn_inputs',
               'search_words_abn_inputs', 'search_index_changed_abns',
               'search_index_record_state', 'trigram_padded', 'trigram_array', 'default__trigram_array',
               'delete_names_gone', 'word_deltas_relation', 'word_deltas_rows',
               'word_deltas_ddl', 'record_word_deltas', 'record_word_deltas_after_build',
               'word_deltas_counted', 'word_deltas_known']) }}
{%- endmacro %}

{% macro search_index_code_hash() -%}
    {%- set parts = [model.raw_code] -%}
    {%- for name in bvs.search_index_macros() -%}
        {%- do parts.append(name ~ ':' ~ bvs[name].macro.macro_sql) -%}
    {%- endfor -%}
    {%- for name in config.get('search_index_reads', []) if execute -%}
        {%- set stored = run_query("select code_hash from meta.model_versions where model = '" ~ name ~ "'") -%}
        {%- set node = graph.nodes.values() | selectattr('name', 'equalto', name) | first -%}
        {%- do parts.append(name ~ ':' ~ (stored.columns[0].values()[0] if stored | length > 0 else node.raw_code)) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{%- endmacro %}

{% macro search_index_code_changed() -%}
    {%- if not execute or not is_incremental() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- do bvs.sliced_table_versions() -%}
    {%- set stored = run_query("select code_hash from meta.model_versions where model = '" ~ this.identifier ~ "'") -%}
    {%- set changed = stored | length == 0 or stored.columns[0].values()[0] != bvs.search_index_code_hash() -%}
    {{ return(changed) }}
{%- endmacro %}

{#- A table without the record its week is built from is built whole: one that records what
    each ABN's rows were built from (config `search_index_abn_inputs`,
    macros/search/changed_rows.sql) without that record, or one built from a week's deltas
    (config `search_index_deltas`, macros/search/word_deltas.sql) without them. -#}
{% macro search_index_state_missing() -%}
    {%- if not execute or not is_incremental() -%}
        {{ return(false) }}
    {%- elif config.get('search_index_abn_inputs') -%}
        {{ return(not bvs.meta_table_exists(this.identifier ~ '__abn_inputs')) }}
    {%- elif config.get('search_index_deltas') -%}
        {{ return(not bvs.word_deltas_known()) }}
    {%- endif -%}
    {{ return(false) }}
{%- endmacro %}

{#- The model's SQL takes the whole build's path: no table yet, --full-refresh, new code, or
    no record of what the rows were built from. -#}
{% macro search_index_whole_build() -%}
    {{ return(not is_incremental() or bvs.search_index_code_changed() or bvs.search_index_state_missing()) }}
{%- endmacro %}

{#- The pre-hook: every row deleted before a whole build of an existing table, else
    `statement` (the rows that changed) when the table exists. -#}
{% macro search_index_pre_hook(statement) -%}
    {%- if is_incremental() and bvs.search_index_whole_build() -%}
        delete from {{ this }}
    {%- elif is_incremental() -%}
        {{ statement }}
    {%- endif -%}
{%- endmacro %}

{% macro record_search_index_code() -%}
    {%- do bvs.sliced_table_versions() -%}
    insert or replace into meta.model_versions
    values ('{{ this.identifier }}', '{{ bvs.search_index_code_hash() }}', current_timestamp::timestamp)
{%- endmacro %}
