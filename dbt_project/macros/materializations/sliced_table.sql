{#-
    A table built in slices of its rows: one `create table` of the first slice, then one
    `insert` per other slice, each a separate statement, so that the joins and aggregations
    of one slice are all that is held in memory (or spilled) at once.

    Why: `int_check_outcomes` joins every ABN to some twenty evidence aggregates, one row per
    ABN, in one statement. At 20 million ABNs their hash tables and the wide rows they join
    passed DuckDB's 8 GB bound and then 28 GB of spill within three minutes; a fifth of the ABNs
    at a time built in 99 s with at most 1.2 GB of spill (docs/weekly-refresh.md).

    The model marks each relation it reads with `{{ bvs.in_slice('abn') }}` in a `where`
    clause; the slices are `hash(<column>) % slices = k` (k = 0 .. slices - 1), so a slice
    of every relation holds the same ABNs and a join on the column sees all its matches. The
    number of slices is the row count of `config slice_rows_model` (a model the model refs)
    over `var('rows_per_slice')` (4,000,000), at least one: a warehouse under that size
    builds in one statement, as a `table` would. DuckDB only: on another adapter the model is
    a `table` (`bvs.sliced_table_materialization()`) and `in_slice` is `1 = 1`.
-#}
{% materialization sliced_table, adapter='duckdb' %}

  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set intermediate_relation = make_intermediate_relation(target_relation) -%}
  {%- set preexisting_intermediate_relation = load_cached_relation(intermediate_relation) -%}
  {%- set backup_relation_type = 'table' if existing_relation is none else existing_relation.type -%}
  {%- set backup_relation = make_backup_relation(target_relation, backup_relation_type) -%}
  {%- set preexisting_backup_relation = load_cached_relation(backup_relation) -%}

  {%- set counted = run_query('select count(*) from ' ~ ref(config.require('slice_rows_model'))) -%}
  {%- set rows = counted.columns[0].values()[0] | int -%}
  {%- set rows_per_slice = var('rows_per_slice', 4000000) | int -%}
  {%- set slices = [1, ((rows + rows_per_slice - 1) // rows_per_slice)] | max -%}
  {%- set marker = modules.re.compile('\\(1 = 1 /\\* bvs:slice:([A-Za-z0-9_.]+) \\*/\\)') -%}

  {{ drop_relation_if_exists(preexisting_intermediate_relation) }}
  {{ drop_relation_if_exists(preexisting_backup_relation) }}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {%- set changed = bvs.sliced_table_changed_keys(existing_relation, rows, sql) if config.get('incremental_key') else none %}
  {%- if changed is not none %}
    {%- set key = config.get('incremental_key') %}
    {{ log(this.identifier ~ ': ' ~ changed.count ~ ' of ' ~ rows ~ ' rows to recompute, by ' ~ config.get('incremental_inputs'), info=True) }}
    {% call statement('delete_changed') -%}
      delete from {{ existing_relation }} where {{ key }} in (select {{ key }} from {{ changed.relation }})
    {%- endcall %}
    {% call statement('main') -%}
      insert into {{ existing_relation }} by name
      {{ marker.sub('(\\1 in (select ' ~ key ~ ' from ' ~ changed.relation ~ '))', sql) }}
    {%- endcall %}
    {% do bvs.sliced_table_record_version(sql) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {% call statement('drop_changed') -%}
      drop table if exists {{ changed.relation }}
    {%- endcall %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif %}

  {{ log(this.identifier ~ ': ' ~ rows ~ ' rows of ' ~ config.get('slice_rows_model') ~ ', '
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
  {% if config.get('incremental_key') %}{% do bvs.sliced_table_record_version(sql) %}{% endif %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}


{#-
    Which keys an incremental build recomputes, or none for a whole build. With config
    `incremental_key` (the key column, `abn`) and `incremental_inputs` (a model with the key
    and `input_hash`, a hash of everything a key's row is computed from; the model selects
    it as its own `input_hash`), a build whose table exists recomputes only the keys whose
    hash differs from the one their row was computed from, and the keys that came or went.
    A whole build instead when: dbt's `--full-refresh`; no table, or one without
    `input_hash`; the model's code changed since the table was built (its compiled SQL
    without the as-of date, kept in meta.model_versions); more than
    `var('incremental_max_share')` (0.5) of the rows changed, where a whole build in slices
    is the cheaper. Returns {count, relation} (a temporary table of the keys).
-#}
{% macro sliced_table_changed_keys(existing_relation, rows, sql) %}
  {%- if existing_relation is none or should_full_refresh() -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set columns = adapter.get_columns_in_relation(existing_relation) | map(attribute='name') | list -%}
  {%- if 'input_hash' not in columns -%}
    {{ return(none) }}
  {%- endif -%}
  {%- do run_query("create schema if not exists meta") -%}
  {%- do run_query("create table if not exists meta.model_versions (model varchar primary key, code_hash varchar not null, built_at timestamp not null)") -%}
  {%- set stored = run_query("select code_hash from meta.model_versions where model = '" ~ this.identifier ~ "'") -%}
  {%- if stored | length == 0 or stored.columns[0].values()[0] != bvs.sliced_table_code_hash(sql) -%}
    {{ log(this.identifier ~ ': its code changed since it was built: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set key = config.get('incremental_key') -%}
  {%- set changed_relation = this.identifier ~ '__changed_keys' -%}
  {% call statement('changed_keys') -%}
    create or replace temporary table {{ changed_relation }} as
    select coalesce(inputs.{{ key }}, existing.{{ key }}) as {{ key }}
    from {{ ref(config.require('incremental_inputs')) }} as inputs
    full outer join {{ existing_relation }} as existing on inputs.{{ key }} = existing.{{ key }}
    where inputs.input_hash is distinct from existing.input_hash
  {%- endcall %}
  {%- set count = run_query('select count(*) from ' ~ changed_relation).columns[0].values()[0] | int -%}
  {%- if count > (var('incremental_max_share', 0.5) | float) * ([rows, 1] | max) -%}
    {{ log(this.identifier ~ ': ' ~ count ~ ' of ' ~ rows ~ ' rows changed: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {{ return({'count': count, 'relation': changed_relation}) }}
{% endmacro %}


{#- The model's code, as what an incremental build compares: its compiled SQL without the as-of date. -#}
{% macro sliced_table_code_hash(sql) %}
  {{ return(local_md5(sql | replace(bvs.as_of_date(), 'as_of'))) }}
{% endmacro %}


{% macro sliced_table_record_version(sql) %}
  {%- do run_query("create schema if not exists meta") -%}
  {%- do run_query("create table if not exists meta.model_versions (model varchar primary key, code_hash varchar not null, built_at timestamp not null)") -%}
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
