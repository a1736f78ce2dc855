"""What every part of the snapshot shares: its names and paths, its error and metadata, the
SQL quoting of names, and the fsync helpers that make a written file durable."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:  # kept out of the verify subprocess, which needs only duckdb
    from pipelines.settings import Settings

SNAPSHOTS_SUBDIR = "snapshots"
POINTER_NAME = "CURRENT"
SUFFIX = ".duckdb"
TMP_SUFFIX = ".duckdb.tmp"
SIDECAR_SUFFIX = ".sqlite"
META_SCHEMA = "meta"
METADATA_TABLES = (
    "meta.snapshot",
    "meta.sources",
    "meta.source_failures",
    "meta.snapshot_tables",
)

# UTC time to the millisecond plus a random suffix: sorts by build time, unique across runs.
_ID_PATTERN = re.compile(r"^\d{8}T\d{9}Z-[0-9a-f]{4}$")


class SnapshotError(RuntimeError):
    """Publishing, verifying or opening a serving snapshot failed."""


@dataclass(frozen=True)
class SnapshotInfo:
    snapshot_id: str
    path: Path
    built_at: dt.datetime
    as_of: dt.date
    tables: dict[str, int]  # "schema.table" -> rows
    views: tuple[str, ...] = ()  # "schema.view", recreated over the file's own tables
    sidecars: dict[str, Path] = field(default_factory=dict)  # name -> file built from it
    # the publish's stages -> seconds: the file, its check, each sidecar, making it current
    # (empty for a snapshot read back from the pointer; not part of its identity)
    seconds: dict[str, float] = field(default_factory=dict, compare=False)


# --- paths and names ------------------------------------------------------------------------


def snapshots_dir(settings: Settings) -> Path:
    return settings.serving_dir / SNAPSHOTS_SUBDIR


def pointer_path(settings: Settings) -> Path:
    return settings.serving_dir / POINTER_NAME


def new_snapshot_id(now: dt.datetime | None = None) -> str:
    """``20261122T113005123Z-3f9a``: UTC build time to the millisecond, then 4 random hex."""
    now = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    return f"{now:%Y%m%dT%H%M%S}{now.microsecond // 1000:03d}Z-{secrets.token_hex(2)}"


def is_snapshot_id(text: str) -> bool:
    return bool(_ID_PATTERN.match(text))


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    """A string literal, for the places a value cannot be a parameter (ATTACH's path,
    COMMENT ON's text)."""
    return "'" + text.replace("'", "''") + "'"


def qualified(*parts: str) -> str:
    return ".".join(quote(p) for p in parts)


def snapshot_files(directory: Path) -> list[Path]:
    """Final snapshot files in id order (oldest first); other files are not ours to touch."""
    if not directory.is_dir():
        return []
    files = [
        p
        for p in directory.iterdir()
        if p.is_file() and p.name.endswith(SUFFIX) and is_snapshot_id(p.name[: -len(SUFFIX)])
    ]
    return sorted(files, key=lambda p: p.name)


@contextlib.contextmanager
def duckdb_setting(cur: duckdb.DuckDBPyConnection, name: str, value: int) -> Iterator[None]:
    """DuckDB's integer setting ``name`` set to ``value`` while the block runs, then back to
    what it was (for a setting of the whole database instance too: ``threads``,
    ``max_vacuum_tasks``)."""
    row = cur.execute("select current_setting(?)", [name]).fetchone()
    before = int(row[0]) if row else value
    cur.execute(f"set {name} = {int(value)}")
    try:
        yield
    finally:
        cur.execute(f"set {name} = {before}")


@contextlib.contextmanager
def transaction(cur: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The block's statements on ``cur`` in one transaction: committed if it ends, rolled
    back if it raises."""
    cur.execute("begin transaction")
    try:
        yield
        cur.execute("commit")
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            cur.execute("rollback")
        raise


# --- durability helpers ---------------------------------------------------------------------


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # some file systems do not allow fsync on a directory
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_database_file(path: Path) -> None:
    """Delete a DuckDB file and its WAL, if any."""
    for candidate in (path, path.with_name(path.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()
