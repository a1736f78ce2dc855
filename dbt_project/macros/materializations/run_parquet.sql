{#-
    A ledger run's result written once, as a Parquet file in the run's work folder, behind a
    view of the model's name (the folder: BVS_LEDGER_RUN_DIR, which the ledger job sets for
    its dbt command, read when the model runs so that dbt's partial parse holds).

    Why not a table: the run's history keeps the rows as Parquet anyway
    (pipelines/ledgers/run.py), and DuckDB's write of a 100,000-supplier, 122-column table
    cost more than computing it; the history then wrote the same rows again as Parquet
    (docs/ledgers.md, "Speed"). The history takes this file as it is. This is dbt-duckdb's
    `external` materialisation without the table it writes first. DuckDB only: on another
    adapter the model is a table and the history exports it (the models choose with
    `bvs.run_file_materialization()`).
-#}
{% materialization run_parquet, adapter='duckdb' %}

  {%- set folder = env_var('BVS_LEDGER_RUN_DIR', '') -%}
  {%- if not folder -%}
    {{ exceptions.raise_compiler_error(
        this.identifier ~ " is written into a ledger run's folder: it is built by the ledger"
        ~ " job (bvs ledger run), which sets BVS_LEDGER_RUN_DIR") }}
  {%- endif -%}
  {%- set location = (folder ~ '/' ~ this.identifier ~ '.parquet') | replace("'", "''") -%}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set existing_relation = load_cached_relation(this) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('main') -%}
    copy ({{ sql }}) to '{{ location }}' (format parquet, compression zstd)
  {%- endcall %}

  {%- if existing_relation is not none and existing_relation.type != 'view' -%}
    {{ adapter.drop_relation(existing_relation) }}
  {%- endif -%}
  {% call statement('view') -%}
    create or replace view {{ target_relation }} as
    select * from read_parquet('{{ location }}')
  {%- endcall %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}


{#- The materialisation of a ledger run's result: its Parquet file on DuckDB, else a table. -#}
{% macro run_file_materialization() %}
  {{ return('run_parquet' if target.type == 'duckdb' else 'table') }}
{% endmacro %}
