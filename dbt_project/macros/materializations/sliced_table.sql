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

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}


{#- A table in slices on DuckDB (above), a table elsewhere. -#}
{% macro sliced_table_materialization() %}
  {{ return('sliced_table' if target.type == 'duckdb' else 'table') }}
{% endmacro %}


{#- The rows of one slice of a `sliced_table` model: a marker its materialisation replaces. -#}
{% macro in_slice(column) -%}
  (1 = 1 /* bvs:slice:{{ column }} */)
{%- endmacro %}
