{#-
    What an incremental table's builds wrote since its data tests last passed, so that a
    week's tests read the rows the week wrote rather than the whole table
    (docs/weekly-refresh.md, "The incremental week"; tests/generic/unique_combination.sql).

    meta.<model>__written_keys: one row per key a build deleted and wrote again (an ABN, as
    the table holds it), appended build after build; one null key once a build wrote the
    table whole. Written in the transaction of the rows by the `sliced_table`
    materialisation and the search index's post-hook. Dropped once a build whose tests all
    passed has built the model (pipelines/dbt_versions.py, `clear_written_keys`): the rows
    not in it were there when the model's tests last passed.

    meta.<model>__unpublished_keys: the same keys, recorded in the same statements, kept
    until a publish has written them into the snapshot (its column is named after the
    table's key column). The publish compares only those keys' rows with the current
    snapshot instead of hashing every row of both (pipelines/warehouse/snapshot/update.py,
    `written_since`), and empties every such record once its snapshot is current.

    A test reads only the written rows when the run says the model's tests may
    (BVS_TESTS_SCOPED, the models whose tests the weekly build found unchanged since they
    last passed: `plan_build`), and the record holds no null key. Otherwise, and in any
    other run (`dbt build` or `dbt test` by hand), the whole table: a new or changed test
    never passed on the rows written before it.
-#}

{% macro written_keys_relation(relation) -%}
    {{ return(api.Relation.create(database=relation.database, schema='meta', identifier=relation.identifier ~ '__written_keys')) }}
{%- endmacro %}


{#- The statements that record what a build of `relation` wrote: `keys_sql` selects the
    keys it wrote again (one column), or none for a whole build. The record's key column has
    the type of the table's `key_column`. -#}
{% macro unpublished_keys_relation(relation) -%}
    {{ return(api.Relation.create(database=relation.database, schema='meta', identifier=relation.identifier ~ '__unpublished_keys')) }}
{%- endmacro %}


{% macro record_written_keys(relation, key_column, keys_sql=none) -%}
    {%- set record = bvs.written_keys_relation(relation) -%}
    {%- set unpublished = bvs.unpublished_keys_relation(relation) -%}
    {%- if keys_sql is none -%}
        create or replace table {{ record }} as select {{ key_column }} as key from {{ relation }} limit 0;
        insert into {{ record }} values (null);
        create or replace table {{ unpublished }} as select {{ key_column }} from {{ relation }} limit 0;
        insert into {{ unpublished }} values (null)
    {%- else -%}
        create table if not exists {{ record }} as select {{ key_column }} as key from {{ relation }} limit 0;
        insert into {{ record }} select key from ({{ keys_sql }}) as written(key);
        create table if not exists {{ unpublished }} as select {{ key_column }} from {{ relation }} limit 0;
        insert into {{ unpublished }} select key from ({{ keys_sql }}) as written(key)
    {%- endif -%}
{%- endmacro %}


{#-
    The keys `model`'s builds wrote since its tests last passed, as a query of one column
    (`key`); none when the test must read every row (see above). `model` is the tested
    relation.
-#}
{% macro written_keys(model) -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set scoped = env_var('BVS_TESTS_SCOPED', '').split(',') -%}
    {%- if model.identifier not in scoped -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set record = bvs.written_keys_relation(model) -%}
    {%- if not bvs.meta_table_exists(record.identifier) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set whole = run_query('select count(*) from ' ~ record ~ ' where key is null').columns[0].values()[0] -%}
    {%- if whole > 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return('select key from ' ~ record) }}
{%- endmacro %}


{#-
    A predicate on `model`'s rows selecting those its builds wrote since its tests last
    passed, by the key column `key_column`; none when the test must read every row.
-#}
{% macro written_rows(model, key_column) -%}
    {%- set keys = bvs.written_keys(model) -%}
    {%- if keys is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(key_column ~ ' in (' ~ keys ~ ')') }}
{%- endmacro %}
