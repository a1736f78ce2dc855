{#
    Incremental market models: what a build must recompute (docs/market.md, "A new day").

    The market sources load file by file: each daily file is a partition, and the loader's
    bookkeeping names, for every load, the files it holds and their SHA-256
    (`meta.manifest`), and which load each raw table shows now (`meta.raw_tables`).
    `int_squeeze__inputs` records in every row the raw tables' load ids it was built from
    (`source_loads`). A build then compares the files of the loads it read last time with
    the files of the loads it reads now, per raw table:

    * a file added or changed (a new day, a version 002, a corrected file): its rows' dates;
    * a file gone: its extract date (unknown for a file without one: everything).

    The earliest such date is where the build recomputes from; every day on or after it is
    deleted and rebuilt (a day may have lost rows). No previous build, a previous build made
    before `source_loads` existed, or `--full-refresh`: everything.

        {%- set recompute_from = bvs.market_recompute_from(bvs.squeeze_raw_inputs()) -%}

    returns none (nothing to do), 'all', or a date 'YYYY-MM-DD'.

    `raw_inputs`: pairs (raw source relation, the column holding its rows' date). The
    queries run when dbt executes, never at parse; the model and its pre-hook ask alike.
#}

{#  The raw inputs of the Squeeze Score: prices, ASIC short positions, positioning. #}
{% macro squeeze_raw_inputs() -%}
    {{ return([
        (source('prices', 'asx'), 'trade_date'),
        (source('prices', 'crypto'), 'trade_date'),
        (source('prices', 'forex'), 'trade_date'),
        (source('asic', 'short_positions'), 'position_date'),
        (source('positioning', 'short_interest'), 'date'),
    ]) }}
{%- endmacro %}

{#  The raw layer's name of a source relation, as meta.raw_tables lists it. #}
{% macro raw_table_name(relation) -%}
    {{ return(relation.schema ~ '.' ~ relation.identifier) }}
{%- endmacro %}

{#  True when this build is incremental on a previous build that has ``column`` (a build of
    an older release lacks it: it is rebuilt whole). False at parse time and in unit tests. #}
{% macro builds_on_itself(column) -%}
    {%- if not execute or this is none or not is_incremental() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set columns = adapter.get_columns_in_relation(this) | map(attribute='name') | list -%}
    {{ return(column in columns) }}
{%- endmacro %}

{% macro market_recompute_from(raw_inputs) -%}
    {%- if not bvs.builds_on_itself('source_loads') -%}
        {{ return('all') }}
    {%- endif -%}
    {%- set previous = run_query(
        "select source_loads from " ~ this ~ " order by built_at desc limit 1"
    ) -%}
    {%- if previous.rows | length == 0 or previous.rows[0][0] is none -%}
        {{ return('all') }}
    {%- endif -%}
    {%- set previous_loads = previous.rows[0][0].split(',') -%}
    {%- set tables = [] -%}
    {%- for relation, _ in raw_inputs -%}
        {%- do tables.append(bvs.raw_table_name(relation)) -%}
    {%- endfor -%}
    {%- set current = run_query(
        "select table_name, load_id from " ~ source('meta', 'raw_tables')
        ~ " where table_name in ('" ~ tables | join("', '") ~ "')"
    ) -%}
    {%- set current_loads = [] -%}
    {%- for row in current.rows if row[1] is not none -%}
        {%- do current_loads.append(row[1]) -%}
    {%- endfor -%}
    {%- if current_loads | sort == previous_loads | sort -%}
        {{ return(none) }}
    {%- endif -%}

    {%- set dated = [] -%}
    {%- for relation, date_column in raw_inputs -%}
        {%- do dated.append(
            "select min(" ~ date_column ~ ") as changed_from, 0 as undated from " ~ relation
            ~ " where source_file in (select file_name from added where table_name = '"
            ~ bvs.raw_table_name(relation) ~ "')"
        ) -%}
    {%- endfor -%}
    {%- set sql -%}
        with
        files as (
            select raw_tables.table_name, manifest.load_id, manifest.file_name, manifest.sha256,
                manifest.extract_date
            from {{ source('meta', 'manifest') }} as manifest
            inner join {{ source('meta', 'raw_tables') }} as raw_tables
                on manifest.source = {{ bvs.load_source('raw_tables.load_id') }}
            where raw_tables.table_name in ('{{ tables | join("', '") }}')
        ),
        now_read as (
            select distinct table_name, file_name, sha256, extract_date from files
            where load_id in ('{{ current_loads | join("', '") }}')
        ),
        read_before as (
            select distinct table_name, file_name, sha256, extract_date from files
            where load_id in ('{{ previous_loads | join("', '") }}')
        ),
        added as (
            select table_name, file_name from now_read
            except
            select table_name, file_name from read_before
            union
            select now_read.table_name, now_read.file_name from now_read
            inner join read_before
                on now_read.table_name = read_before.table_name
                and now_read.file_name = read_before.file_name
                and now_read.sha256 <> read_before.sha256
        ),
        gone as (
            select table_name, file_name, extract_date from read_before
            where not exists (
                select 1 from now_read
                where now_read.table_name = read_before.table_name
                    and now_read.file_name = read_before.file_name
            )
        ),
        changes as (
            {{ dated | join('\n            union all\n            ') }}
            union all
            select min(extract_date), max(case when extract_date is null then 1 else 0 end)
            from gone
        )
        select min(changed_from), max(undated) from changes
    {%- endset -%}
    {%- set found = run_query(sql).rows[0] -%}
    {%- if found[1] == 1 -%}
        {{ return('all') }}
    {%- endif -%}
    {%- if found[0] is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(found[0] | string) }}
{%- endmacro %}

{#  The source name of a load id: load ids are "<source>-<UTC stamp>-<random>"
    (pipelines/warehouse/loader.py), and sources never contain '-'. #}
{% macro load_source(load_id) -%}
    {{ dbt.split_part(load_id, "'-'", 1) }}
{%- endmacro %}

{#  The raw tables' current load ids, comma-separated in name order: what a build read. #}
{% macro current_source_loads(raw_inputs) -%}
    {%- set tables = [] -%}
    {%- for relation, _ in raw_inputs -%}
        {%- do tables.append(bvs.raw_table_name(relation)) -%}
    {%- endfor -%}
    (
        select {{ dbt.listagg('load_id', "','", "order by table_name") }}
        from {{ source('meta', 'raw_tables') }}
        where table_name in ('{{ tables | join("', '") }}')
    )
{%- endmacro %}

{#  The pre-hook of an incremental market model: delete the days a build recomputes
    (inside the build's transaction, so a failed build keeps them). #}
{% macro delete_recomputed_days(date_column, recompute_from) -%}
    {%- if execute and this is not none and is_incremental() and recompute_from is not none -%}
        delete from {{ this }}
        {%- if recompute_from != 'all' %} where {{ date_column }} >= cast('{{ recompute_from }}' as date){% endif %}
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}

{#  The build's stamp: every row a build writes carries it. #}
{% macro build_stamp() -%}
    cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as timestamp)
{%- endmacro %}

{#  squeeze_scores: the earliest day int_squeeze__inputs recomputed since this model's last
    build (none: nothing; 'all': it was rebuilt whole, or this model has no build yet, or a
    build of a release that scaled crypto and forex otherwise: one without signals_used). #}
{% macro squeeze_rescore_from() -%}
    {%- if not bvs.builds_on_itself('built_at') or not bvs.builds_on_itself('signals_used') -%}
        {{ return('all') }}
    {%- endif -%}
    {%- set found = run_query(
        "select count(*), min(recomputed_from),"
        ~ " max(case when recomputed_from is null then 1 else 0 end)"
        ~ " from " ~ ref('int_squeeze__inputs')
        ~ " where built_at > (select coalesce(max(built_at), cast('1900-01-01' as timestamp)) from "
        ~ this ~ ")"
    ).rows[0] -%}
    {%- if found[0] == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if found[2] == 1 -%}
        {{ return('all') }}
    {%- endif -%}
    {{ return(found[1] | string) }}
{%- endmacro %}

{#  squeeze_scores' pre-hook: the days it rescores, and any day past the inputs' last one
    (a newest day whose files are gone leaves no input row to rescore). #}
{% macro delete_rescored_days() -%}
    {%- set rescore_from = bvs.squeeze_rescore_from() -%}
    {%- if execute and this is not none and is_incremental() -%}
        delete from {{ this }}
        where score_date > (select max(trade_date) from {{ ref('int_squeeze__inputs') }})
        {%- if rescore_from == 'all' %}
            or 1 = 1
        {%- elif rescore_from is not none %}
            or score_date >= cast('{{ rescore_from }}' as date)
        {%- endif %}
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}
