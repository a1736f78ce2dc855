{#-
    Whether the warehouse holds the table `meta.<identifier>`, asked of the database rather
    than of dbt's relation cache.

    The cache lists a schema the first time a lookup needs it (the build's own schemas are
    listed at its start; `meta`, which no model is built in, is not), and marks the schema
    listed as it adds the first of its relations: a lookup on another thread in that moment
    finds the schema listed and the relation not yet there (dbt-adapters,
    `BaseAdapter.list_relations`). A search table's body then took a whole build while its
    pre-hook, rendered an instant later, found the record and deleted only the changed
    ABNs' rows: every other row twice (a week at 2 M ABNs, two dbt threads).
-#}
{% macro meta_table_exists(identifier) -%}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set found = run_query(
        "select count(*) from duckdb_tables() where database_name = current_database()"
        ~ " and schema_name = 'meta' and table_name = '" ~ identifier ~ "'"
    ).columns[0].values()[0] -%}
    {{ return(found > 0) }}
{%- endmacro %}
