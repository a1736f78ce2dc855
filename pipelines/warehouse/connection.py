"""Opening the warehouse. Only the pipeline opens it read-write (one writer)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.settings import Settings

CHECKPOINT_THRESHOLD = "0b"

_ARROW_TO_SQL = {
    pa.string(): "varchar",
    pa.large_string(): "varchar",
    pa.int64(): "bigint",
    pa.int32(): "integer",
    pa.float64(): "double",
    pa.bool_(): "boolean",
    pa.date32(): "date",
    pa.timestamp("us"): "timestamp",
    pa.timestamp("us", tz="UTC"): "timestamptz",
}


def connect(settings: Settings, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse. Another process having it open (DuckDB's own file lock) is tried
    again for up to ``writer_wait_seconds``, then raises WarehouseBusy naming that process;
    once that happened, this process does not wait again for the same holder (a run's next
    steps fail at once)."""
    from pipelines.warehouse.lock import POLL_SECONDS, warehouse_busy

    wait = 0 if read_only or _gave_up.get(settings.warehouse) else settings.writer_wait_seconds
    deadline = time.monotonic() + wait
    while True:
        try:
            con = _connect(settings, read_only=read_only)
        except duckdb.IOException as exc:
            busy = warehouse_busy(settings, exc)
            if busy is None:
                raise
            if time.monotonic() >= deadline:
                _gave_up[settings.warehouse] = True
                raise busy from None
            time.sleep(POLL_SECONDS)
        else:
            _gave_up.pop(settings.warehouse, None)
            return con


_gave_up: dict[Path, bool] = {}  # warehouses this process waited for in vain


def _connect(settings: Settings, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    path = settings.warehouse
    path.parent.mkdir(parents=True, exist_ok=True)
    config: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": settings.duckdb_memory_limit,
        "max_temp_directory_size": settings.duckdb_temp_limit,
    }
    if not read_only:
        # a replaced table's blocks are reused only after a checkpoint, and loads write
        # straight to the file, not the write-ahead log that would trigger one: checkpoint
        # at every commit (dbt_project/profiles.yml does the same for the build)
        config["checkpoint_threshold"] = CHECKPOINT_THRESHOLD
    if settings.duckdb_threads:
        config["threads"] = settings.duckdb_threads
    return duckdb.connect(str(path), read_only=read_only, config=config)


@contextmanager
def warehouse(
    settings: Settings, *, read_only: bool = False
) -> Iterator[duckdb.DuckDBPyConnection]:
    con = connect(settings, read_only=read_only)
    try:
        yield con
    finally:
        con.close()


def sql_type(arrow_type: pa.DataType) -> str:
    try:
        return _ARROW_TO_SQL[arrow_type]
    except KeyError as exc:  # pragma: no cover - schemas are fixed in pipelines.ingest.tables
        raise TypeError(f"no SQL type for {arrow_type}") from exc


def create_table_sql(qualified_name: str, schema: pa.Schema, *, if_not_exists: bool = True) -> str:
    """DDL for a table with the columns of an Arrow schema (names come from fixed schemas)."""
    columns = ", ".join(
        f'"{f.name}" {sql_type(f.type)}{"" if f.nullable else " not null"}' for f in schema
    )
    clause = "if not exists " if if_not_exists else ""
    return f"create table {clause}{qualified_name} ({columns})"


def database_path(con: duckdb.DuckDBPyConnection) -> Path | None:
    row = con.execute(
        "select path from duckdb_databases() where database_name = current_database()"
    ).fetchone()
    return Path(row[0]) if row and row[0] else None
