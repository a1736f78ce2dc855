"""The raw layer on disk: each raw table is a directory of Parquet files behind a view.

``raw.<table>`` in the warehouse is a view over ``<data>/raw/<table>/<load id>/*.parquet``.
A load writes a new directory, checks it, and replaces the view in one transaction with its
bookkeeping; the previous directory is deleted only after that commit. So a failed or
interrupted load leaves the last good files and view in place, and parsing does not wait
on the warehouse's single writer: Parquet is written in parallel with parsing, and any
engine that reads Parquet (Spark, Trino) reads the raw layer as it is.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.ingest.base import write_part
from pipelines.settings import Settings
from pipelines.warehouse.meta import RAW_TABLES_DDL

EMPTY = "empty"  # location of a table that was never loaded: one empty file with the schema

DDL = RAW_TABLES_DDL  # meta.raw_tables: where each raw table points, and its load


def root(settings: Settings) -> Path:
    return settings.data_dir / "raw"


def location(settings: Settings, table: str, load_id: str) -> Path:
    return root(settings) / table / load_id


def view_sql(qualified: str, directory: Path) -> str:
    """DDL of the view (the path is ours, never user input; quotes are doubled anyway)."""
    pattern = str(directory / "*.parquet").replace("'", "''")
    return f"create or replace view {qualified} as select * from read_parquet('{pattern}')"


def point_view(con: duckdb.DuckDBPyConnection, qualified: str, directory: Path) -> None:
    """Make ``qualified`` a view over ``directory``; a base table of that name (a warehouse
    built before the raw layer moved to Parquet) is dropped in the same transaction."""
    schema, name = qualified.split(".")
    kind = con.execute(
        "select table_type from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    ).fetchone()
    if kind and kind[0] == "BASE TABLE":
        con.execute(f"drop table {qualified}")
    con.execute(view_sql(qualified, directory))


class PartWriter:
    """Writes one table's rows as numbered Parquet files (one per flushed batch)."""

    def __init__(self, directory: Path, schema: pa.Schema) -> None:
        self.directory = directory
        self.schema = schema
        self.parts = 0
        directory.mkdir(parents=True, exist_ok=True)

    def write(self, rows: pa.Table) -> None:
        self.parts += 1
        write_part(rows, self.directory / f"part-m{self.parts:06d}.parquet")  # workers: part-NNNNNN

    def finish(self) -> None:
        """A table with no rows still needs one file, so the view has its columns."""
        if not any(self.directory.glob("*.parquet")):
            self.write(self.schema.empty_table())


def carry_parts(previous: Path, target: Path) -> None:
    """Hard-link the Parquet parts of ``previous`` into ``target`` (copy where links fail),
    under names the new load's own parts cannot take: ``carried-<previous dir>-<part>``,
    kept as they are when already carried."""
    target.mkdir(parents=True, exist_ok=True)
    for part in sorted(previous.glob("*.parquet")):
        name = (
            part.name
            if part.name.startswith("carried-")
            else f"carried-{previous.name}-{part.name}"
        )
        destination = target / name
        try:
            os.link(part, destination)
        except OSError:
            shutil.copy2(part, destination)


def ensure(
    con: duckdb.DuckDBPyConnection, settings: Settings, table: str, schema: pa.Schema
) -> None:
    """Create ``raw.<table>`` (empty) if the warehouse has never had it."""
    con.execute(DDL)
    exists = con.execute(
        "select count(*) from information_schema.tables where table_schema = 'raw' and table_name = ?",
        [table],
    ).fetchone()
    if exists and exists[0]:
        return
    directory = root(settings) / table / EMPTY
    if not any(directory.glob("*.parquet")):
        PartWriter(directory, schema).finish()
    con.execute(view_sql(f"raw.{table}", directory))
    con.execute(
        "insert or replace into meta.raw_tables values (?, ?, null)",
        [f"raw.{table}", str(directory)],
    )


def current(con: duckdb.DuckDBPyConnection, table: str) -> Path | None:
    row = con.execute(
        "select location from meta.raw_tables where table_name = ?", [f"raw.{table}"]
    ).fetchone()
    return Path(row[0]) if row else None


def remove_unused(con: duckdb.DuckDBPyConnection, settings: Settings, table: str) -> None:
    """Delete the table's directories other than the one its view reads (after a commit)."""
    keep = current(con, table)
    folder = root(settings) / table
    if not folder.is_dir():
        return
    for directory in folder.iterdir():
        if directory.is_dir() and directory != keep and directory.name != EMPTY:
            shutil.rmtree(directory, ignore_errors=True)
