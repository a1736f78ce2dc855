{#-
    A match table (`match_<register>`, macros/matching/registers.sql) built whole once, then
    every week only for what changed: its rows are (record, ABN) pairs, and a pair's row is
    computed from the record's rows, the ABN's rows and the similarity of their names, so a
    pair whose record and ABN are both unchanged keeps its row. A week deletes the rows of
    the changed records and of the changed ABNs and computes theirs again, in two passes of
    the model's SQL: the changed records against every ABN, then the other records against
    the changed ABNs. (docs/matching.md, "A week's match tables".)

    What changed, on each side:

    * records: per record key, a hash of its rows in the models of config
      `match_record_inputs` (the register's `int_match_records__*`, and the staged register
      for the person matches), without their file and line; kept in
      meta.<model>__record_inputs, written in the transaction of the rows;
    * ABNs: int_matching__abn_inputs stamps each ABN whose rows the matching reads changed
      (or that came or went) with the time of its build; the table keeps the latest stamp
      it has seen (meta.match_table_builds) and recomputes the ABNs stamped since.

    The model marks where each side is read with `bvs.match_records(alias, key_columns)`
    and `bvs.match_abns(column)` in a `where` clause; a whole build reads every row. Where
    it reads an ABN's rows from a relation that a week's model holds for the changed ABNs
    alone, it names both (`bvs.match_abn_rows(relation, changed_relation)`, the entity
    names and int_matching__changed_abn_names): the pass against the changed ABNs reads the
    small one when it was built after everything it is made of (meta.model_versions) and
    holds every ABN the table matches again, and the whole relation otherwise. A
    whole build instead of a week's when: dbt's `--full-refresh`; no table, no record of
    its inputs or of the stamp it saw; its compiled SQL changed since it was built
    (meta.model_versions, as for `sliced_table`); int_matching__abn_inputs is older than
    one of the models it hashes (a build that left it out), or was built whole since;
    more than `var('incremental_max_share')` (0.5) of the records or of the ABNs changed.
    DuckDB only: on another adapter the model is a `table`
    (`bvs.match_table_materialization()`) and the markers are `1 = 1`.
-#}
{% materialization match_table, adapter='duckdb' %}

  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set intermediate_relation = make_intermediate_relation(target_relation) -%}
  {%- set preexisting_intermediate_relation = load_cached_relation(intermediate_relation) -%}
  {%- set backup_relation_type = 'table' if existing_relation is none else existing_relation.type -%}
  {%- set backup_relation = make_backup_relation(target_relation, backup_relation_type) -%}
  {%- set preexisting_backup_relation = load_cached_relation(backup_relation) -%}

  {%- set records_marker = modules.re.compile('\\(1 = 1 /\\* bvs:match_records:([A-Za-z0-9_]+):([A-Za-z0-9_,]+) \\*/\\)') -%}
  {%- set abns_marker = modules.re.compile('\\(1 = 1 /\\* bvs:match_abns:([A-Za-z0-9_.]+) \\*/\\)') -%}
  {%- set rows_marker = bvs.match_abn_rows_marker() -%}
  {%- set keys = bvs.match_table_keys(records_marker, sql) -%}
  {%- set whole_sql = rows_marker.sub('\\1', abns_marker.sub('(1 = 1)', records_marker.sub('(1 = 1)', sql))) -%}
  {%- set state = bvs.match_table_state(this) -%}

  {{ drop_relation_if_exists(preexisting_intermediate_relation) }}
  {{ drop_relation_if_exists(preexisting_backup_relation) }}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {%- set changes = bvs.match_table_changes(existing_relation, sql, keys) %}
  {%- if changes is not none %}
    {{ log(this.identifier ~ ': ' ~ changes.records ~ ' of ' ~ changes.records_total ~ ' records and '
           ~ changes.abns ~ ' of ' ~ changes.abns_total ~ ' ABNs to match again'
           ~ (', their rows read from ' ~ changes.abn_rows | join(', ') if changes.abn_rows else ''), info=True) }}
    {%- set key_hash = 'hash(' ~ keys | join(', ') ~ ')' %}
    {%- set in_records = 'in (select record_hash from ' ~ changes.records_relation ~ ')' %}
    {%- set in_abns = 'in (select abn from ' ~ changes.abns_relation ~ ')' %}
    {% call statement('delete_changed') -%}
      delete from {{ existing_relation }}
      where {{ key_hash }} {{ in_records }} or abn {{ in_abns }}
    {%- endcall %}
    {%- set passes = [] %}
    {%- if changes.records > 0 %}
      {#- the changed records against every ABN -#}
      {%- do passes.append(rows_marker.sub('\\1', abns_marker.sub('(1 = 1)',
            bvs.match_table_records_sub(records_marker, sql, in_records)))) %}
    {%- endif %}
    {%- if changes.abns > 0 %}
      {#- the other records against the changed ABNs -#}
      {%- do passes.append(rows_marker.sub('\\2' if changes.abn_rows else '\\1', abns_marker.sub('(\\1 ' ~ in_abns ~ ')',
            bvs.match_table_records_sub(records_marker, sql, 'not ' ~ in_records)))) %}
    {%- endif %}
    {%- if passes | length == 0 %}
      {% call statement('main') -%}
        select 0
      {%- endcall %}
    {%- endif %}
    {%- for pass_sql in passes %}
      {% call statement('main' if loop.last else 'pass_' ~ loop.index) -%}
        insert into {{ existing_relation }} by name
        {{ pass_sql }}
      {%- endcall %}
    {%- endfor %}
    {% call statement('record_inputs') -%}
      delete from {{ state }} where record_hash {{ in_records }};
      insert into {{ state }}
      select record_hash, input_hash from {{ changes.records_relation }} where input_hash is not null
    {%- endcall %}
    {% do bvs.match_table_record_build(sql, changes.abns_seen) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {% call statement('drop_changed') -%}
      drop table if exists {{ changes.records_relation }};
      drop table if exists {{ changes.abns_relation }}
    {%- endcall %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif %}

  {%- set abns_seen = run_query('select max(changed_at) from ' ~ ref('int_matching__abn_inputs')).columns[0].values()[0] %}
  {% call statement('main') -%}
    {{ create_table_as(False, intermediate_relation, whole_sql) }}
  {%- endcall %}
  {% if existing_relation is not none %}
    {% do drop_indexes_on_relation(existing_relation) %}
    {{ adapter.rename_relation(existing_relation, backup_relation) }}
  {% endif %}
  {{ adapter.rename_relation(intermediate_relation, target_relation) }}
  {% do create_indexes(target_relation) %}
  {%- do bvs.match_table_ddl() %}
  {% call statement('record_inputs') -%}
    create or replace table {{ state }} as {{ bvs.match_table_record_inputs(keys) }}
  {%- endcall %}
  {% do bvs.match_table_record_build(sql, abns_seen) %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}


{#- A match table on DuckDB (above), a table elsewhere. -#}
{% macro match_table_materialization() %}
  {{ return('match_table' if target.type == 'duckdb' else 'table') }}
{% endmacro %}


{#- Where a match table's SQL reads its register's records: `alias` is the relation's alias
    in the `where` clause, `key_columns` the record key (the table's key columns). -#}
{% macro match_records(alias, key_columns) -%}
  (1 = 1 /* bvs:match_records:{{ alias }}:{{ key_columns | join(',') }} */)
{%- endmacro %}


{#- Where a match table's SQL reads an ABN's rows: `column` is the ABN column, qualified. -#}
{% macro match_abns(column) -%}
  (1 = 1 /* bvs:match_abns:{{ column }} */)
{%- endmacro %}


{#- Where a match table's SQL reads an ABN's rows from `relation`, of which the week's model
    `changed_relation` holds the rows of the changed ABNs alone (with the same columns, and a
    row for each changed ABN). -#}
{% macro match_abn_rows(relation, changed_relation) -%}
  {{ relation }} /* bvs:match_abn_rows:{{ changed_relation }} */
{%- endmacro %}


{#- The `match_abn_rows` marker: group 1 the whole relation, group 2 the week's. -#}
{% macro match_abn_rows_marker() %}
  {{ return(modules.re.compile('(\\S+) /\\* bvs:match_abn_rows:(\\S+) \\*/')) }}
{% endmacro %}


{#-
    The week's relations (`match_abn_rows`) a pass against the changed ABNs
    (`abns_relation`) may read: each was built after every model it is made of, by their
    builds' times in meta.model_versions, and holds every changed ABN. None when one of them
    may not: the pass reads the whole relations.
-#}
{% macro match_table_abn_rows(sql, abns_relation) %}
  {%- set found = bvs.match_abn_rows_marker().findall(sql) | map(attribute=1) | unique | list -%}
  {%- set names = [] -%}
  {%- for changed in found -%}
    {%- set name = changed.split('.')[-1] | replace('"', '') -%}
    {%- do names.append(name) -%}
    {%- if not bvs.built_after_its_parents(name) -%}
      {{ log(this.identifier ~ ': ' ~ name ~ ' is older than what it is made of: the changed ABNs read from the whole relation', info=True) }}
      {{ return([]) }}
    {%- endif -%}
    {%- set missing = run_query(
        "select count(*) from " ~ abns_relation ~ " where abn not in (select abn from " ~ changed ~ ")"
    ).columns[0].values()[0] | int -%}
    {%- if missing > 0 -%}
      {{ log(this.identifier ~ ': ' ~ name ~ ' lacks ' ~ missing ~ ' of the changed ABNs: they are read from the whole relation', info=True) }}
      {{ return([]) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(names) }}
{% endmacro %}


{#- The record key of the model's markers (the same in each of them). -#}
{% macro match_table_keys(records_marker, sql) %}
  {%- set found = records_marker.findall(sql) -%}
  {%- if found | length == 0 -%}
    {{ exceptions.raise_compiler_error(this.identifier ~ ': a match table marks where it reads its records (bvs.match_records)') }}
  {%- endif -%}
  {%- set keys = found | map(attribute=1) | unique | list -%}
  {%- if keys | length > 1 -%}
    {{ exceptions.raise_compiler_error(this.identifier ~ ': its record markers name different keys: ' ~ keys | join('; ')) }}
  {%- endif -%}
  {{ return(keys[0].split(',')) }}
{% endmacro %}


{#- `sql` with each records marker replaced by the hash of its alias's key columns, then
    `predicate` (`in (...)`, `not in (...)`). -#}
{% macro match_table_records_sub(records_marker, sql, predicate) %}
  {%- set ns = namespace(sql=sql) -%}
  {%- for found in records_marker.finditer(sql) -%}
    {%- set alias, columns = found.group(1), found.group(2).split(',') -%}
    {%- set qualified = [] -%}
    {%- for column in columns -%}
      {%- do qualified.append(alias ~ '.' ~ column) -%}
    {%- endfor -%}
    {%- set ns.sql = ns.sql | replace(found.group(0), '(hash(' ~ qualified | join(', ') ~ ') ' ~ predicate ~ ')') -%}
  {%- endfor -%}
  {{ return(ns.sql) }}
{% endmacro %}


{#- meta.<model>__record_inputs: per record key, the hash of the rows it was matched from. -#}
{% macro match_table_state(relation) -%}
  {{ return(api.Relation.create(database=relation.database, schema='meta', identifier=relation.identifier ~ '__record_inputs')) }}
{%- endmacro %}


{#- Per record key hash, the hash of its rows in the models of `match_record_inputs`,
    without their file and line (a line number moves with every record before it) and
    without the normalised name, which their code computes from the name (and their code
    is part of the table's, `match_table_code`): normalising every record's name again
    would cost more than the week's matching (2 s for the 334,000 business names at 2 M). -#}
{% macro match_table_record_inputs(keys) -%}
  {%- set located = ['source_file', 'source_line', 'match_name_normalised'] -%}
  select record_hash, hash(sum(row_hash)) as input_hash
  from (
    {%- for name in config.require('match_record_inputs') %}
    select
        hash({{ keys | join(', ') }}) as record_hash,
        hash('{{ name }}', input_rows) as row_hash
    from (
        select {{ bvs.input_columns(ref(name), exclude=located) }}
        from {{ ref(name) }}
    ) as input_rows
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
  ) as rows_read
  group by record_hash
{%- endmacro %}


{#- The table of the ABN stamp each match table last saw. Created by the project's
    `on-run-start`, before any model (two threads creating it at once conflict); a model
    run outside `dbt run` or `dbt build` creates it itself. -#}
{% macro match_table_builds_ddl() %}
  {{ return("create schema if not exists meta; create table if not exists meta.match_table_builds (model varchar primary key, abns_seen timestamp)") }}
{% endmacro %}


{% macro match_table_ddl() %}
  {%- do bvs.sliced_table_versions() -%}
  {%- for statement in bvs.match_table_builds_ddl().split('; ') -%}
    {%- do run_query(statement) -%}
  {%- endfor -%}
{% endmacro %}


{#- What built the table: its compiled SQL and the code of the models it reads its records
    from (a week hashes their rows, not what computed them). -#}
{% macro match_table_code(sql) %}
  {%- set parts = [sql] -%}
  {%- for name in config.require('match_record_inputs') -%}
    {%- set node = graph.nodes.values() | selectattr('name', 'equalto', name) | first -%}
    {%- do parts.append(name ~ ':' ~ node.raw_code) -%}
  {%- endfor -%}
  {{ return(parts | join('\n')) }}
{% endmacro %}


{% macro match_table_record_build(sql, abns_seen) %}
  {% call statement('record_build') -%}
    insert or replace into meta.match_table_builds
    values ('{{ this.identifier }}', {{ "null" if abns_seen is none else "'" ~ abns_seen ~ "'::timestamp" }})
  {%- endcall %}
  {% do bvs.sliced_table_record_version(bvs.match_table_code(sql)) %}
{% endmacro %}


{#-
    What a week recomputes, or none for a whole build (see above): {records, abns (counts),
    records_total, abns_total, records_relation, abns_relation (temporary tables of the
    changed record hashes, with their new input hash, and of the changed ABNs), abns_seen
    (the latest ABN stamp)}.
-#}
{% macro match_table_changes(existing_relation, sql, keys) %}
  {%- if existing_relation is none or should_full_refresh() -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set state = bvs.match_table_state(this) -%}
  {%- if not bvs.meta_table_exists(state.identifier) -%}
    {{ log(this.identifier ~ ': no record of the records it was matched from: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- do bvs.match_table_ddl() -%}
  {%- set stored = run_query("select code_hash from meta.model_versions where model = '" ~ this.identifier ~ "'") -%}
  {%- if stored | length == 0 or stored.columns[0].values()[0] != bvs.sliced_table_code_hash(bvs.match_table_code(sql)) -%}
    {{ log(this.identifier ~ ': its code changed since it was built: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set abn_inputs = ref('int_matching__abn_inputs') -%}
  {%- set seen = run_query(
      "select b.abns_seen, (select min(changed_at) from " ~ abn_inputs ~ "), (select max(changed_at) from " ~ abn_inputs ~ ")"
      ~ " from meta.match_table_builds as b where b.model = '" ~ this.identifier ~ "'") -%}
  {%- if seen | length == 0 or seen.columns[0].values()[0] is none -%}
    {{ log(this.identifier ~ ': no record of the ABNs it was matched from: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set abns_seen, first_stamp, last_stamp = seen.columns[0].values()[0], seen.columns[1].values()[0], seen.columns[2].values()[0] -%}
  {%- if first_stamp is not none and first_stamp > abns_seen -%}
    {{ log(this.identifier ~ ': int_matching__abn_inputs was built whole since: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {#- the models the ABN side hashes: its parents in the graph (each records its builds) -#}
  {%- if not bvs.built_after_its_parents('int_matching__abn_inputs') -%}
    {{ log(this.identifier ~ ': int_matching__abn_inputs is older than what it hashes: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set records_relation = this.identifier ~ '__changed_records' -%}
  {%- set abns_relation = this.identifier ~ '__changed_abns' -%}
  {% call statement('changed') -%}
    create or replace temporary table {{ records_relation }} as
    select coalesce(now_read.record_hash, built.record_hash) as record_hash, now_read.input_hash
    from ({{ bvs.match_table_record_inputs(keys) }}) as now_read
    full outer join {{ state }} as built
        on now_read.record_hash = built.record_hash
    where now_read.input_hash is distinct from built.input_hash;
    create or replace temporary table {{ abns_relation }} as
    select abn from {{ abn_inputs }} where changed_at > '{{ abns_seen }}'::timestamp
  {%- endcall %}
  {%- set counted = run_query(
      "select (select count(*) from " ~ records_relation ~ "), (select count(*) from " ~ state ~ "),"
      ~ " (select count(*) from " ~ abns_relation ~ "), (select count(*) from " ~ abn_inputs ~ ")") -%}
  {%- set records, records_total = counted.columns[0].values()[0] | int, counted.columns[1].values()[0] | int -%}
  {%- set abns, abns_total = counted.columns[2].values()[0] | int, counted.columns[3].values()[0] | int -%}
  {%- set share = var('incremental_max_share', 0.5) | float -%}
  {%- if records > share * ([records_total, 1] | max) or abns > share * ([abns_total, 1] | max) -%}
    {{ log(this.identifier ~ ': ' ~ records ~ ' of ' ~ records_total ~ ' records and ' ~ abns ~ ' of '
           ~ abns_total ~ ' ABNs changed: a whole build', info=True) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set abn_rows = bvs.match_table_abn_rows(sql, abns_relation) if abns > 0 else [] -%}
  {{ return({'records': records, 'records_total': records_total, 'abns': abns, 'abns_total': abns_total,
             'records_relation': records_relation, 'abns_relation': abns_relation, 'abns_seen': last_stamp,
             'abn_rows': abn_rows}) }}
{% endmacro %}


{#- Whether the model `name` was built after every model it is made of (its parents in the
    graph), by the times of their builds in meta.model_versions: false when one of them was
    built later, or when it or one of them has no record of a build. The models of the match
    tables' ABN side record theirs (`sliced_table`, `record_match_input_build`). -#}
{% macro built_after_its_parents(name) %}
  {%- set node = graph.nodes.values() | selectattr('name', 'equalto', name) | first -%}
  {%- set parents = [] -%}
  {%- for parent in node.depends_on.nodes if parent.startswith('model.') -%}
    {%- do parents.append("'" ~ graph.nodes[parent].name ~ "'") -%}
  {%- endfor -%}
  {%- if parents | length == 0 -%}
    {{ return(true) }}
  {%- endif -%}
  {%- set built = run_query(
      "select coalesce((select built_at from meta.model_versions where model = '" ~ name ~ "')"
      ~ " >= (select max(built_at) from meta.model_versions where model in (" ~ parents | join(', ') ~ "))"
      ~ " and (select count(*) from meta.model_versions where model in (" ~ parents | join(', ') ~ "))"
      ~ " = " ~ parents | length ~ ", false)") -%}
  {{ return(built.columns[0].values()[0]) }}
{% endmacro %}


{#- A post-hook: when a model the match tables' ABN side depends on was built
    (meta.model_versions; `match_table_changes` compares the times). -#}
{% macro record_match_input_build() -%}
    {%- do bvs.sliced_table_versions() -%}
    insert or replace into meta.model_versions
    values ('{{ this.identifier }}', '{{ local_md5(model.raw_code) }}', current_timestamp::timestamp)
{%- endmacro %}
