"""The warehouse's own bookkeeping tables, in schema ``meta``.

* ``meta.loads``      one row per load attempt of a source (loaded, unchanged, not_loaded, failed)
* ``meta.manifest``   one row per file a successful load read (size, checksum, extract date, rows)
* ``meta.quarantine`` rejected rows: source, file, line, reason, raw text
* ``meta.dq_results`` every data-quality expectation evaluated for a load, pass or fail
* ``meta.raw_tables`` each raw table's directory of Parquet files and the load that wrote it
  (``warehouse/rawfiles.py``)
"""

from __future__ import annotations

import duckdb

RAW_TABLES_DDL = """
create table if not exists meta.raw_tables (
    table_name varchar primary key,   -- e.g. raw.abr__abns
    location varchar not null,        -- directory of its Parquet files
    load_id varchar                   -- the load that wrote them (null: never loaded)
)
"""

META_DDL = [
    "create schema if not exists meta",
    "create schema if not exists raw",
    """
    create table if not exists meta.loads (
        load_id varchar primary key,
        source varchar not null,
        status varchar not null,          -- loaded | unchanged | not_loaded | failed
        started_at timestamptz not null,
        finished_at timestamptz,
        fingerprint varchar,              -- over (file name, size, sha256) of the files read
        extract_date date,
        row_counts varchar,               -- JSON object: raw table -> rows
        quarantined bigint,
        message varchar
    )
    """,
    """
    create table if not exists meta.manifest (
        load_id varchar not null,
        source varchar not null,
        file_name varchar not null,       -- display name (zip!member for zip members)
        path varchar not null,
        size_bytes bigint not null,
        modified_at timestamptz,
        sha256 varchar not null,
        extract_date date,
        declared_records bigint,
        rows bigint not null,
        quarantined bigint not null
    )
    """,
    """
    create table if not exists meta.quarantine (
        load_id varchar not null,
        source varchar not null,
        file_name varchar not null,
        line bigint not null,
        reason varchar not null,
        raw varchar
    )
    """,
    """
    create table if not exists meta.dq_results (
        load_id varchar not null,
        source varchar not null,
        table_name varchar not null,
        check_name varchar not null,
        engine varchar not null,          -- great_expectations | sql
        blocking boolean not null,
        passed boolean not null,
        observed varchar,
        expected varchar,
        detail varchar,
        checked_at timestamptz not null
    )
    """,
    RAW_TABLES_DDL,
    # The live checks' tiles (pipelines/live/run.py replaces it each run; dbt source
    # live.tiles): empty until they first run, every live tile then "Not run".
    "create schema if not exists live",
    """
    create table if not exists live.tiles (
        abn varchar, check_id varchar, status varchar, reason varchar, detail varchar,
        checked_at timestamp
    )
    """,
]


def ensure_meta(con: duckdb.DuckDBPyConnection) -> None:
    for statement in META_DDL:
        con.execute(statement)
