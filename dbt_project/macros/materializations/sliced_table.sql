{#-
    A table built in slices of its rows: one `create table` of the first slice, then one
    `insert` per other slice, each a separate statement, so that the joins and aggregations
    of one slice are all that is held in memory (or spilled) at once; and, when its config
    says what each row is computed from, rebuilt incrementally: only the rows whose inputs
    changed are computed again.

    Why slices: `int_check_outcomes` joins every ABN to some twenty evidence aggregates, one
    row per ABN, in one statement. At 20 million ABNs their hash tables and the wide rows
    they join passed DuckDB's 8 GB bound and then 28 GB of spill within three minutes; a
    fifth of the ABNs at a time built in 99 s with at most 1.2 GB of spill
    (docs/weekly-refresh.md).

    The model marks each relation it reads with `{{ bvs.in_slice('abn') }}` in a `where`
    clause; the slices are `hash(<column>) % slices = k` (k = 0 .. slices - 1), so a slice
    of every relation holds the same ABNs and a join on the column sees all its matches. The
    number of slices is the row count of `config slice_rows_model` (a model the model refs)
    over `var('rows_per_slice')` (4,000,000), at least one: a warehouse under that size
    builds in one statement, as a `table` would. Without `slice_rows_model`, one statement.
    DuckDB only: on another adapter the model is a `table`
    (`bvs.sliced_table_materialization()`) and `in_slice` is `1 = 1`.

    Incremental (docs/weekly-refresh.md, "The incremental week"): config `incremental_key`
    (the key column, `abn`) and `incremental_inputs` (a model of the key and `input_hash`, a
    hash of everything the key's row is computed from; the model selects that hash as its
    own `input_hash`). A build whose table exists deletes the rows whose key's hash changed
    or whose key is gone, and inserts those keys' rows: the same marker then selects the
    changed keys (in slices of `rows_per_slice` changed keys). Optional:
    `incremental_globals` (models every row reads whole, such as a seed of weights: when
    their content changes, everything is rebuilt), `incremental_restamp` (a column
    holding the as-of date, set on every row) and `incremental_rows_per_key: many` (a
    table with several rows per key, such as `entity_names`: its hashes are compared per
    distinct key; a key with no row at all is then recomputed every build). See
    `sliced_table_changed_keys` for when a whole build is chosen instead.
    Each build records the keys it wrote, or that it wrote the table whole, for the model's
    data tests (macros/materializations/written_keys.sql).
-#}
{% materialization sliced_table, adapter='duckdb' %}

  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set intermediate_relation = make_intermediate_relation(target_relation) -%}
  {%- set preexisting_intermediate_relation = load_cached_relation(intermediate_relation) -%}
  {%- set backup_relation_type = 'table' if existing_relation is none else existing_relation.type -%}
  {%- set backup_relation = make_backup_relation(target_relation, backup_relation_type) -%}
  {%- set preexisting_backup_relation = load_cached_relation(backup_relation) -%}

  {%- set rows_model = config.get('slice_rows_model') or config.get('incremental_inputs') -%}
  {%- set counted = run_query('select count(*) from ' ~ ref(rows_model)) -%}
  {%- set rows = counted.columns[0].values()[0] | int -%}
  {%- set slices = bvs.slices_for(rows) if config.get('slice_rows_model') else 1 -%}
  {%- set marker = modules.re.compile('\\(1 = 1 /\\* bvs:slice:([A-Za-z0-9_.]+) \\*/\\)') -%}

  {{ drop_relation_if_exists(preexisting_intermediate_relation) }}
  {{ drop_relation_if_exists(preexisting_backup_relation) }}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {%- set changed = bvs.sliced_table_changed_keys(existing_relation, rows, sql) if config.get('incremental_key') else none %}
  {%- if changed is not none %}
    {%- set key = config.get('incremental_key') %}
    {%- set changed_slices = bvs.slices_for(changed.count) if config.get('slice_rows_model') else 1 %}
    {{ log(this.identifier ~ ': ' ~ changed.count ~ ' of ' ~ rows ~ ' rows to recompute, by '
           ~ config.get('incremental_inputs') ~ ', ' ~ changed_slices ~ (' slice' if changed_slices == 1 else ' slices'), info=True) }}
    {% call statement('delete_changed') -%}
      delete from {{ existing_relation }} where {{ key }} in (select {{ key }} from {{ changed.relation }})
    {%- endcall %}
    {#- no key changed (a run again on the same day): the model's SQL is not run at all -#}
    {%- if changed.count == 0 %}
      {% call statement('main') -%}
        select 0
      {%- endcall %}
    {%- endif %}
    {%- for k in range(changed_slices if changed.count > 0 else 0) %}
      {%- set in_changed = '\\1 in (select ' ~ key ~ ' from ' ~ changed.relation ~ ')' %}
      {%- set in_changed = in_changed if changed_slices == 1
          else in_changed ~ ' and hash(\\1) % ' ~ changed_slices ~ ' = ' ~ k %}
      {% call statement('main' if loop.last else 'slice_' ~ k) -%}
        insert into {{ existing_relation }} by name
        {{ marker.sub('(' ~ in_changed ~ ')', sql) }}
      {%- endcall %}
    {%- endfor %}
    {%- if config.get('incremental_restamp') %}
      {% call statement('restamp') -%}
        update {{ existing_relation }} set {{ config.get('incremental_restamp') }} = {{ bvs.as_of_date() }}
        where {{ config.get('incremental_restamp') }} is distinct from {{ bvs.as_of_date() }}
      {%- endcall %}
    {%- endif %}
    {% do bvs.sliced_table_record_version(sql) %}
    {% call statement('record_written') -%}
      {{ bvs.record_written_keys(existing_relation, key, 'select ' ~ key ~ ' from ' ~ changed.relation) }}
    {%- endcall %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {% call statement('drop_changed') -%}
      drop table if exists {{ changed.relation }}
    {%- endcall %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif %}

  {{ log(this.identifier ~ ': ' ~ rows ~ ' rows of ' ~ rows_model ~ ', '
         ~ slices ~ (' slice' if slices == 1 else ' slices'), info=True) }}

  {%- for k in range(slices) %}
    {%- set slice_sql = sql if slices == 1
        else marker.sub('(hash(\\1) % ' ~ slices ~ ' = ' ~ k ~ ')', sql) -%}
    {%- if loop.first %}
      {% call statement('main' if slices == 1 else 'slice_0') -%}
        {{ create_table_as(False, intermediate_relation, slice_sql) }}
      {%- endcall %}
    {%- else %}
      {% call statement('main' if loop.last else 'slice_' ~ k) -%}
        insert into {{ intermediate_relation }}
        {{ slice_sql }}
      {%- endcall %}
    {%- endif %}
  {%- endfor %}

  {% if existing_relation is not none %}
    {% do drop_indexes_on_relation(existing_relation) %}
    {{ adapter.rename_relation(existing_relation, backup_relation) }}
  {% endif %}
  {{ adapter.rename_relation(intermediate_relation, target_relation) }}
  {% do create_indexes(target_relation) %}
  {% if config.get('incremental_key') %}
    {% do bvs.sliced_table_record_version(sql) %}
    {% call statement('record_written') -%}
      {{ bvs.record_written_keys(target_relation, config.get('incremental_key')) }}
    {%- endcall %}
  {% endif %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}


{#- Slices for `rows` rows: rows over var('rows_per_slice') (4,000,000), at least one. -#}
{% macro slices_for(rows) %}
  {%- set rows_per_slice = var('rows_per_slice', 4000000) | int -%}
  {{ return([1, ((rows + rows_per_slice - 1) // rows_per_slice)] | max) }}
{% endmacro %}


{#-
    Which keys an incremental build recomputes, or none for a whole build: the keys whose
    `incremental_inputs` hash differs from the one their row was computed from, and the keys
    that came or went. A whole build instead when: dbt's `--full-refresh`; no table, or one
    without `input_hash`; the model's code or its `incremental_globals` changed since the
    table was built (meta.model_versions); more than `var('incremental_max_share')` (0.5)
    of the rows changed, where a whole build in slices is the cheaper. Returns {count,
    relation} (a temporary table of the keys).
-#}
{% macro sliced_table_changed_keys(existing_relation, rows, sql) %}
  {%- if existing_relation is none or should_full_refresh() -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set columns = adapter.get_columns_in_relation(existing_relation) | map(attribute='name') | list -%}
  {%- if 'input_hash' not in columns -%}
    {{ return(none) }}
  {%- endif -%}
  {%- do bvs.sliced_table_versions() -%}
  {%- set stored = run_query("select code_hash from meta.model_versions where model = '" ~ this.identifier ~ "'") -%}
  {%- if stored | length == 0 or stored.columns[0].values()[0] != bvs.sliced_table_code_hash(sql) -%}
    {{ log(this.identifier ~ ': its code or the models it reads whole changed since it was built: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set key = config.get('incremental_key') -%}
  {%- set changed_relation = this.identifier ~ '__changed_keys' -%}
  {% call statement('changed_keys') -%}
    create or replace temporary table {{ changed_relation }} as
    select coalesce(inputs.{{ key }}, existing.{{ key }}) as {{ key }}
    from {{ ref(config.require('incremental_inputs')) }} as inputs
    full outer join
    {%- if config.get('incremental_rows_per_key', 'one') == 'many' %}
        (select distinct {{ key }}, input_hash from {{ existing_relation }}) as existing
    {%- else %}
        {{ existing_relation }} as existing
    {%- endif %}
        on inputs.{{ key }} = existing.{{ key }}
    where inputs.input_hash is distinct from existing.input_hash
  {%- endcall %}
  {%- set count = run_query('select count(*) from ' ~ changed_relation).columns[0].values()[0] | int -%}
  {%- if count > (var('incremental_max_share', 0.5) | float) * ([rows, 1] | max) -%}
    {{ log(this.identifier ~ ': ' ~ count ~ ' of ' ~ rows ~ ' rows changed: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {{ return({'count': count, 'relation': changed_relation}) }}
{% endmacro %}


{#-
    What a table's rows were built by, beside their input hashes: the model's compiled SQL
    without the as-of date, and the content of its `incremental_globals`.
-#}
{% macro sliced_table_code_hash(sql) %}
  {%- set parts = [sql | replace(bvs.as_of_date(), 'as_of')] -%}
  {%- for name in config.get('incremental_globals', []) -%}
    {#- found in the graph, not by `ref`: a global the model reads only through another
        model (the flag definitions, through risk_flags) is no dependency of its own -#}
    {%- set node = graph.nodes.values() | selectattr('name', 'equalto', name) | first -%}
    {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
    {%- set content = run_query('select coalesce(sum(hash(t)), 0) from ' ~ relation ~ ' as t') -%}
    {%- do parts.append(name ~ ':' ~ content.columns[0].values()[0]) -%}
  {%- endfor -%}
  {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}


{#-
    The table of what built each incremental table. Created by the project's
    `on-run-start` (dbt_project.yml), before any model: two threads creating it at once,
    for their first incremental models, conflict (a DuckDB write-write conflict). A model
    run outside `dbt run` or `dbt build` (a unit test) creates it itself.
-#}
{% macro sliced_table_versions_ddl() %}
  {{ return("create schema if not exists meta; create table if not exists meta.model_versions (model varchar primary key, code_hash varchar not null, built_at timestamp not null)") }}
{% endmacro %}


{% macro sliced_table_versions() %}
  {%- for statement in bvs.sliced_table_versions_ddl().split('; ') -%}
    {%- do run_query(statement) -%}
  {%- endfor -%}
{% endmacro %}


{% macro sliced_table_record_version(sql) %}
  {%- do bvs.sliced_table_versions() -%}
  {% call statement('record_version') -%}
    insert or replace into meta.model_versions
    values ('{{ this.identifier }}', '{{ bvs.sliced_table_code_hash(sql) }}', current_timestamp::timestamp)
  {%- endcall %}
{% endmacro %}


{#- A table in slices on DuckDB (above), a table elsewhere. -#}
{% macro sliced_table_materialization() %}
  {{ return('sliced_table' if target.type == 'duckdb' else 'table') }}
{% endmacro %}


{#- The rows of one slice of a `sliced_table` model: a marker its materialisation replaces. -#}
{% macro in_slice(column) -%}
  (1 = 1 /* bvs:slice:{{ column }} */)
{%- endmacro %}
