"""The serving snapshot: an immutable DuckDB file the API reads, switched to atomically.

One writer (the pipeline) owns ``warehouse.duckdb``. After a successful run it publishes the
marts into a new file under ``<serving_dir>/snapshots/``; readers (the API) only ever open
those files read-only. Publishing a snapshot:

1. build ``<id>.duckdb.tmp`` from the writer's own connection (``ATTACH``, one transaction:
   every table of the listed schemas copied, every view recreated over the snapshot's own
   copies (DuckDB binds a view's names in its own database, so the file stands alone; a
   view is not materialised twice, e.g. ``marts.tiles``, the long form of
   ``marts.verifications``), the extra tables, and the metadata tables ``meta.snapshot`` and
   ``meta.sources`` (each source's last load, its files and its refresh cadence)),
   ``CHECKPOINT``, ``DETACH``, fsync;
2. verify it from a separate read-only process (``python -m pipelines.warehouse.snapshot
   verify``): row counts of every table and the metadata must match what the writer copied,
   and every view must bind in the file (a view is not counted: counting it runs its query,
   `marts.tiles` 36 times the rows of ``marts.verifications``, minutes at 5 M ABNs);
3. rename it to ``<id>.duckdb`` (so every final-named file has been verified), fsync the folder;
4. switch the pointer ``<serving_dir>/CURRENT`` (JSON, temp file + fsync + ``os.replace``);
5. keep the newest ``settings.snapshots_kept`` files and the current one, delete the rest.

While steps 1 and the verify lookup write, a thread flushes the files being written every
``publish_flush_seconds`` (``_flushed_as_written``), so several GB of unwritten data never
pile up in memory to be written back all at once. Such a burst, on this machine, stalled
every process of it (the API beside the publisher) for 100-400 ms every 30 s (docs/api.md).
The same idea as PostgreSQL's ``checkpoint_flush_after`` and RocksDB's ``bytes_per_sync``.

A final file is never written again, so any number of processes may hold it open read-only
while the next one is published. A deleted file stays readable through an open connection
(POSIX unlink semantics), so a reader on an old snapshot keeps working until it reopens.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import logging
import os
import re
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import duckdb

if TYPE_CHECKING:  # kept out of the verify subprocess, which needs only duckdb
    from pipelines.settings import Settings

log = logging.getLogger(__name__)

SNAPSHOTS_SUBDIR = "snapshots"
POINTER_NAME = "CURRENT"
SUFFIX = ".duckdb"
TMP_SUFFIX = ".duckdb.tmp"
META_SCHEMA = "meta"
METADATA_TABLES = ("meta.snapshot", "meta.sources", "meta.source_failures")
VERIFY_TIMEOUT_SECONDS = 600

# UTC time to the millisecond plus a random suffix: sorts by build time, unique across runs.
_ID_PATTERN = re.compile(r"^\d{8}T\d{9}Z-[0-9a-f]{4}$")
_QUALIFIED_NAME = re.compile(r"^[^.\"]+\.[^.\"]+$")

_SNAPSHOT_DDL = """
create table {snap}.meta.snapshot (
    snapshot_id varchar not null,
    built_at timestamptz not null,
    as_of date not null,
    row_counts json not null,       -- {{"schema.table": rows}} for every data table
    views json not null             -- ["schema.view", ...]: views over those tables
)
"""

_SOURCES_DDL = """
create table {snap}.meta.sources (
    source varchar not null,
    load_id varchar not null,
    status varchar,
    extract_date date,
    finished_at timestamptz,
    file_name varchar,               -- one row per file the load read; null if none recorded
    sha256 varchar,
    size_bytes bigint,
    rows bigint
)
"""

# The last successful load of each source (the one whose data the warehouse holds) and the
# files it read. 'unchanged' loads re-read the same files and leave the data as it was.
_RANKED_LOADS = """
with ranked_loads as (
    select
        load_id, source, status, extract_date, finished_at,
        row_number() over (
            partition by source order by coalesce(finished_at, started_at) desc, load_id desc
        ) as recency
    from {wh}.meta.loads
    where status = 'loaded'
)"""

_SOURCES_FROM_LOADS_AND_MANIFEST = (
    "insert into {snap}.meta.sources"
    + _RANKED_LOADS
    + """,
last_loads as (
    select * from ranked_loads where recency = 1
)
select
    l.source, l.load_id, l.status, l.extract_date, l.finished_at,
    m.file_name, m.sha256, m.size_bytes, m.rows
from last_loads as l
left join {wh}.meta.manifest as m on m.load_id = l.load_id
order by l.source, m.file_name
"""
)

_SOURCES_FROM_LOADS_ONLY = (
    "insert into {snap}.meta.sources"
    + _RANKED_LOADS
    + """
select source, load_id, status, extract_date, finished_at, null, null, null, null
from ranked_loads
where recency = 1
order by source
"""
)


_FAILURES_DDL = """
create table {snap}.meta.source_failures (
    source varchar not null,
    load_id varchar not null,       -- the failed load (meta.loads, meta.quarantine, meta.dq_results)
    attempted_at timestamptz,
    message varchar                 -- the file and the first cause
)
"""

# Sources whose latest load attempt failed: the snapshot serves their last good data
# (meta.sources), and says why the newer files were refused. A later successful load, or a
# recorded "unchanged" attempt (the refused files are gone, the last good ones are back),
# clears it.
_FAILURES_FROM_LOADS = """
insert into {snap}.meta.source_failures
select source, load_id, started_at, message
from {wh}.meta.loads
where status in ('loaded', 'unchanged', 'failed')
qualify row_number() over (partition by source order by started_at desc, load_id desc) = 1
    and status = 'failed'
order by source
"""


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


class SidecarBuilder(Protocol):
    """Builds a file derived from the snapshot (e.g. a point-lookup index) from the snapshot's
    path into ``out_path``; returns the rows written. ``threads`` caps DuckDB's threads
    (0: DuckDB's default), as the publish does on its own connection."""

    def __call__(self, snapshot_path: Path, out_path: Path, *, threads: int = 0) -> int: ...


SIDECAR_SUFFIX = ".sqlite"


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


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _quote_literal(text: str) -> str:
    """A string literal, for the one place a value cannot be a parameter (ATTACH's path)."""
    return "'" + text.replace("'", "''") + "'"


def _qualified(*parts: str) -> str:
    return ".".join(_quote(p) for p in parts)


def _snapshot_files(directory: Path) -> list[Path]:
    """Final snapshot files in id order (oldest first); other files are not ours to touch."""
    if not directory.is_dir():
        return []
    files = [
        p
        for p in directory.iterdir()
        if p.is_file() and p.name.endswith(SUFFIX) and is_snapshot_id(p.name[: -len(SUFFIX)])
    ]
    return sorted(files, key=lambda p: p.name)


# --- durability helpers ---------------------------------------------------------------------


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # some file systems do not allow fsync on a directory
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _threads_config(threads: int) -> dict[str, str | bool | int | float | list[str]]:
    """Connection config capping DuckDB's threads (0: none, DuckDB's default)."""
    return {"threads": int(threads)} if threads else {}


@contextlib.contextmanager
def _threads(con: duckdb.DuckDBPyConnection, threads: int) -> Iterator[None]:
    """DuckDB's threads on ``con`` set to ``threads`` while the block runs (0: unchanged)."""
    if not threads:
        yield
        return
    row = con.execute("select current_setting('threads')").fetchone()
    before = int(row[0]) if row else threads
    con.execute(f"set threads = {int(threads)}")
    try:
        yield
    finally:
        con.execute(f"set threads = {before}")


@contextlib.contextmanager
def _flushed_as_written(directory: Path, prefix: str, every: float) -> Iterator[None]:
    """While the block runs, fsync every file of ``directory`` whose name starts with
    ``prefix`` each ``every`` seconds (0: never). A flush that fails (a file renamed or
    removed meanwhile) is skipped; the publish's own fsyncs are what make it durable."""
    if every <= 0:
        yield
        return
    stop = threading.Event()

    def flush() -> None:
        while not stop.wait(every):
            for path in directory.glob(f"{prefix}*"):
                with contextlib.suppress(OSError):
                    _fsync_file(path)

    flusher = threading.Thread(target=flush, name="bvs-publish-flush", daemon=True)
    flusher.start()
    try:
        yield
    finally:
        stop.set()
        flusher.join()


def _remove_database_file(path: Path) -> None:
    """Delete a DuckDB file and its WAL, if any."""
    for candidate in (path, path.with_name(path.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


# --- building -------------------------------------------------------------------------------


def _catalog_objects(
    cur: duckdb.DuckDBPyConnection, catalog: str, schema: str
) -> list[tuple[str, str]]:
    rows = cur.execute(
        """
        select table_name, table_type
        from information_schema.tables
        where table_catalog = ? and table_schema = ?
        order by table_name
        """,
        [catalog, schema],
    ).fetchall()
    return [(str(name), str(kind)) for name, kind in rows]


def _schema_exists(cur: duckdb.DuckDBPyConnection, catalog: str, schema: str) -> bool:
    row = cur.execute(
        """
        select count(*) from information_schema.schemata
        where catalog_name = ? and schema_name = ?
        """,
        [catalog, schema],
    ).fetchone()
    return bool(row and row[0])


def _table_exists(cur: duckdb.DuckDBPyConnection, catalog: str, schema: str, table: str) -> bool:
    row = cur.execute(
        """
        select count(*) from information_schema.tables
        where table_catalog = ? and table_schema = ? and table_name = ?
        """,
        [catalog, schema, table],
    ).fetchone()
    return bool(row and row[0])


_VIEW_SQL = re.compile(r"^\s*create\s+view\s+\S+\s+as\s+(.*?);?\s*$", re.IGNORECASE | re.DOTALL)


def _view_bodies(
    cur: duckdb.DuckDBPyConnection, catalog: str, wanted: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """The SELECT of each view among ``wanted`` (DuckDB keeps names of its own database
    unqualified). A view whose definition cannot be read this way is copied as a table."""
    rows = cur.execute(
        "select schema_name, view_name, sql from duckdb_views() where database_name = ?",
        [catalog],
    ).fetchall()
    bodies: dict[tuple[str, str], str] = {}
    for schema, view, sql in rows:
        key = (str(schema), str(view))
        if key not in wanted:
            continue
        match = _VIEW_SQL.match(str(sql or ""))
        if match and f"{catalog}." not in match.group(1):
            bodies[key] = match.group(1)
        else:
            log.warning("view %s.%s is copied as a table: its definition names %s", *key, catalog)
    return bodies


def _tables_to_copy(
    cur: duckdb.DuckDBPyConnection,
    catalog: str,
    schemas: Sequence[str],
    extra_tables: Sequence[str],
) -> list[tuple[str, str]]:
    """(schema, table) pairs to copy, in a stable order; raises SnapshotError if any is missing."""
    if not schemas and not extra_tables:
        raise SnapshotError("nothing to publish: no schemas and no extra tables given")
    wanted: list[tuple[str, str]] = []
    for schema in schemas:
        if not _schema_exists(cur, catalog, schema):
            raise SnapshotError(
                f"schema {schema!r} not found in the warehouse ({catalog}); "
                "build it (dbt build) before publishing a snapshot"
            )
        objects = _catalog_objects(cur, catalog, schema)
        if not objects:
            raise SnapshotError(f"schema {schema!r} in the warehouse has no tables or views")
        wanted.extend((schema, name) for name, _kind in objects)
    for qualified in extra_tables:
        if not _QUALIFIED_NAME.match(qualified):
            raise SnapshotError(f"extra table {qualified!r} is not a qualified name schema.table")
        schema, table = qualified.split(".")
        if f"{schema}.{table}" in METADATA_TABLES:
            raise SnapshotError(f"{qualified} is reserved for the snapshot's own metadata")
        if not _table_exists(cur, catalog, schema, table):
            raise SnapshotError(f"extra table {qualified!r} not found in the warehouse")
        if (schema, table) not in wanted:
            wanted.append((schema, table))
    return wanted


def _copy_sources(
    cur: duckdb.DuckDBPyConnection, catalog: str, snap: str, cadences: Mapping[str, int]
) -> None:
    """``meta.sources``: empty (with a warning) if the warehouse has no load bookkeeping yet;
    each source's refresh cadence in ``refresh_days`` (null where none is given), so the
    snapshot's readers tell stale data without knowing the sources' declarations."""
    cur.execute(_SOURCES_DDL.format(snap=snap))
    cur.execute(_FAILURES_DDL.format(snap=snap))
    if _table_exists(cur, catalog, META_SCHEMA, "loads"):
        cur.execute(_FAILURES_FROM_LOADS.format(snap=snap, wh=_quote(catalog)))
        has_manifest = _table_exists(cur, catalog, META_SCHEMA, "manifest")
        statement = _SOURCES_FROM_LOADS_AND_MANIFEST if has_manifest else _SOURCES_FROM_LOADS_ONLY
        cur.execute(statement.format(snap=snap, wh=_quote(catalog)))
    else:
        log.warning("warehouse has no meta.loads: the snapshot records no source extracts")
    cur.execute(f"alter table {snap}.meta.sources add column refresh_days integer")
    for source, days in sorted(cadences.items()):
        cur.execute(
            f"update {snap}.meta.sources set refresh_days = ? where source = ?", [days, source]
        )


def _build(
    con: duckdb.DuckDBPyConnection,
    tmp: Path,
    *,
    snapshot_id: str,
    built_at: dt.datetime,
    as_of: dt.date,
    schemas: Sequence[str],
    extra_tables: Sequence[str],
    cadences: Mapping[str, int],
) -> tuple[dict[str, int], tuple[str, ...]]:
    """Write the snapshot into ``tmp`` through the writer's connection; return the tables'
    row counts and the views' names.

    Works on its own cursor, so it copies the warehouse's committed state.
    """
    cur = con.cursor()
    try:
        row = cur.execute("select current_database()").fetchone()
        catalog = str(row[0]) if row else ""
        wanted = _tables_to_copy(cur, catalog, schemas, extra_tables)
        alias = f"bvs_snapshot_{secrets.token_hex(4)}"
        snap, wh = _quote(alias), _quote(catalog)
        cur.execute(f"attach {_quote_literal(str(tmp))} as {snap}")
        try:
            counts: dict[str, int] = {}
            # One transaction: every table is copied from the same state of the warehouse.
            cur.execute("begin transaction")
            try:
                for schema in sorted({s for s, _ in wanted} | {META_SCHEMA}):
                    cur.execute(f"create schema if not exists {snap}.{_quote(schema)}")
                views = _view_bodies(cur, catalog, wanted)
                # tables first: a view is created once what it reads is in the file
                for schema, table in sorted(wanted, key=lambda key: key in views):
                    source = f"{wh}.{_qualified(schema, table)}"
                    target = f"{snap}.{_qualified(schema, table)}"
                    if (schema, table) in views:
                        cur.execute(f"create view {target} as {views[(schema, table)]}")
                        continue
                    cur.execute(f"create table {target} as select * from {source}")
                    # Counted on the warehouse side, so the check in another process compares
                    # the file against what the writer saw, not against itself.
                    count_row = cur.execute(f"select count(*) from {source}").fetchone()
                    counts[f"{schema}.{table}"] = int(count_row[0]) if count_row else 0
                view_names = tuple(sorted(f"{schema}.{view}" for schema, view in views))
                cur.execute(_SNAPSHOT_DDL.format(snap=snap))
                cur.execute(
                    f"insert into {snap}.meta.snapshot values (?, ?, ?, ?, ?)",
                    [
                        snapshot_id,
                        built_at,
                        as_of,
                        json.dumps(counts, sort_keys=True),
                        json.dumps(view_names),
                    ],
                )
                _copy_sources(cur, catalog, snap, cadences)
                cur.execute("commit")
            except BaseException:
                with contextlib.suppress(duckdb.Error):
                    cur.execute("rollback")
                raise
            cur.execute(f"checkpoint {snap}")
        finally:
            with contextlib.suppress(duckdb.Error):
                cur.execute(f"detach database if exists {snap}")
        return counts, view_names
    finally:
        cur.close()


# --- verifying ------------------------------------------------------------------------------


def check_snapshot_file(
    path: Path,
    expected: dict[str, int],
    snapshot_id: str | None = None,
    *,
    views: Sequence[str] = (),
    threads: int = 0,
) -> None:
    """Open ``path`` read-only in this process and compare it with ``expected`` row counts
    (tables) and ``views`` (each must be a view that binds over the file's own tables).

    Used by the verify subprocess; call ``verify_snapshot`` from the pipeline instead.
    ``threads`` caps DuckDB's threads (0: DuckDB's default).
    """
    try:
        con = duckdb.connect(str(path), read_only=True, config=_threads_config(threads))
    except duckdb.Error as exc:
        raise SnapshotError(f"cannot open snapshot {path.name} read-only: {exc}") from exc
    try:
        problems: list[str] = []
        rows = con.execute(
            """
            select table_schema, table_name, table_type
            from information_schema.tables
            where table_catalog = current_database()
            """
        ).fetchall()
        found = {f"{schema}.{name}": str(kind) for schema, name, kind in rows}
        for name in METADATA_TABLES:
            if name not in found:
                problems.append(f"metadata table {name} is missing")
        data_tables = {name: kind for name, kind in found.items() if name not in METADATA_TABLES}
        for name, kind in sorted(data_tables.items()):
            if kind not in {"BASE TABLE", "VIEW"}:
                problems.append(f"{name} is a {kind.lower()}, not a table or view")
        wanted = set(expected) | set(views)
        missing = sorted(wanted - set(data_tables))
        unexpected = sorted(set(data_tables) - wanted)
        if missing:
            problems.append(f"tables missing: {', '.join(missing)}")
        if unexpected:
            problems.append(f"unexpected tables: {', '.join(unexpected)}")
        for name in sorted(set(expected) & set(data_tables)):
            schema, table = name.split(".", 1)
            if data_tables[name] != "BASE TABLE":
                problems.append(f"{name} is a {data_tables[name].lower()}, expected a table")
                continue
            row = con.execute(f"select count(*) from {_qualified(schema, table)}").fetchone()
            actual = int(row[0]) if row else -1
            if actual != expected[name]:
                problems.append(f"{name} has {actual} rows, expected {expected[name]}")
        for name in sorted(set(views) & set(data_tables)):
            schema, view = name.split(".", 1)
            if data_tables[name] != "VIEW":
                problems.append(f"{name} is a {data_tables[name].lower()}, expected a view")
                continue
            try:  # binds every name the view reads, runs nothing
                con.execute(f"select * from {_qualified(schema, view)} limit 0").fetchall()
            except duckdb.Error as exc:
                problems.append(f"view {name} does not bind: {exc}".replace("\n", " "))
        if "meta.snapshot" in found:
            meta_rows = con.execute(
                "select snapshot_id, row_counts, as_of, built_at, views from meta.snapshot"
            ).fetchall()
            if len(meta_rows) != 1:
                problems.append(f"meta.snapshot has {len(meta_rows)} rows, expected 1")
            else:
                meta_id, row_counts, as_of, built_at, meta_views = meta_rows[0]
                if snapshot_id is not None and meta_id != snapshot_id:
                    problems.append(f"meta.snapshot names {meta_id!r}, expected {snapshot_id!r}")
                if as_of is None or built_at is None:
                    problems.append("meta.snapshot has no as_of or built_at")
                if json.loads(row_counts) != expected:
                    problems.append("meta.snapshot row_counts differ from the expected counts")
                if sorted(json.loads(meta_views)) != sorted(views):
                    problems.append("meta.snapshot views differ from the expected views")
        if problems:
            raise SnapshotError(f"snapshot {path.name} failed verification: " + "; ".join(problems))
    finally:
        con.close()


def verify_snapshot(
    path: Path,
    expected: dict[str, int],
    *,
    snapshot_id: str | None = None,
    views: Sequence[str] = (),
    timeout: float = VERIFY_TIMEOUT_SECONDS,
    threads: int = 0,
) -> None:
    """Check a snapshot file from a separate, read-only process; raise SnapshotError if it fails.

    A separate process proves the file is complete on disk and opens read-only on its own,
    the way the API will open it, rather than trusting the writer's view of it.
    """
    command = [
        sys.executable,
        "-m",
        "pipelines.warehouse.snapshot",
        "verify",
        str(path),
        json.dumps(expected, sort_keys=True),
        "--views",
        json.dumps(sorted(views)),
    ]
    if snapshot_id is not None:
        command += ["--snapshot-id", snapshot_id]
    if threads:
        command += ["--threads", str(threads)]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise SnapshotError(f"verifying snapshot {path.name} took over {timeout:g} s") from exc
    if result.returncode != 0:
        message = result.stderr.strip().splitlines()[-1:] or [f"exit code {result.returncode}"]
        raise SnapshotError(message[0])


# --- reading --------------------------------------------------------------------------------


def read_snapshot_info(path: Path) -> SnapshotInfo:
    """The metadata of one snapshot file (opened read-only)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        cursor = con.execute("select * from meta.snapshot")
        names = [column[0] for column in cursor.description or ()]
        row = cursor.fetchone()
    except duckdb.Error as exc:
        raise SnapshotError(f"{path.name} has no readable meta.snapshot: {exc}") from exc
    finally:
        con.close()
    if row is None:
        raise SnapshotError(f"{path.name} has an empty meta.snapshot")
    meta = dict(zip(names, row, strict=True))
    return SnapshotInfo(
        snapshot_id=str(meta["snapshot_id"]),
        path=path,
        built_at=meta["built_at"].astimezone(dt.UTC),
        as_of=meta["as_of"],
        tables={str(k): int(v) for k, v in json.loads(meta["row_counts"]).items()},
        # a snapshot published before views were listed apart has no `views` column
        views=tuple(str(view) for view in json.loads(meta.get("views") or "[]")),
    )


def _pointer_payload(info: SnapshotInfo, settings: Settings) -> str:
    payload = {
        "snapshot_id": info.snapshot_id,
        "file": info.path.relative_to(settings.serving_dir).as_posix(),
        "built_at": info.built_at.isoformat(),
        "as_of": info.as_of.isoformat(),
        "tables": info.tables,
        "views": list(info.views),
        "sidecars": {
            name: path.relative_to(settings.serving_dir).as_posix()
            for name, path in info.sidecars.items()
        },
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def current_snapshot(settings: Settings) -> SnapshotInfo | None:
    """The snapshot ``CURRENT`` points to, or None before the first publish.

    Reads only the small pointer file, so a server can call it on every request (or poll it)
    and reopen when ``snapshot_id`` changes.
    """
    pointer = pointer_path(settings)
    try:
        text = pointer.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        payload = json.loads(text)
        return SnapshotInfo(
            snapshot_id=str(payload["snapshot_id"]),
            path=settings.serving_dir / str(payload["file"]),
            built_at=dt.datetime.fromisoformat(payload["built_at"]).astimezone(dt.UTC),
            as_of=dt.date.fromisoformat(payload["as_of"]),
            tables={str(k): int(v) for k, v in payload["tables"].items()},
            views=tuple(str(view) for view in payload.get("views", [])),
            sidecars={
                str(name): settings.serving_dir / str(file)
                for name, file in payload.get("sidecars", {}).items()
            },
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SnapshotError(f"serving pointer {pointer} is unreadable: {exc}") from exc


def open_snapshot(settings: Settings) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the current snapshot. Raises SnapshotError if there is none."""
    config: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": settings.duckdb_memory_limit
    }
    if settings.duckdb_threads:
        config["threads"] = settings.duckdb_threads
    # Retention deletes a file between reading the pointer and opening it only if several
    # publishes happen in that instant; read the pointer again rather than fail at once.
    missing: Path | None = None
    for _attempt in range(3):
        info = current_snapshot(settings)
        if info is None:
            raise SnapshotError(
                f"no serving snapshot published yet ({pointer_path(settings)} does not exist); "
                "run the pipeline first"
            )
        try:
            return duckdb.connect(str(info.path), read_only=True, config=config)
        except duckdb.IOException:
            if info.path.is_file():
                raise
            missing = info.path
    raise SnapshotError(f"the serving pointer names {missing}, which does not exist")


def list_snapshots(settings: Settings) -> list[SnapshotInfo]:
    """Every published snapshot file, oldest first (unreadable files are logged and skipped)."""
    infos = []
    for path in _snapshot_files(snapshots_dir(settings)):
        try:
            infos.append(read_snapshot_info(path))
        except (SnapshotError, duckdb.Error) as exc:
            log.warning("skipping unreadable snapshot %s: %s", path.name, exc)
    return infos


# --- publishing -----------------------------------------------------------------------------


def clean_leftovers(settings: Settings) -> list[Path]:
    """Delete ``*.duckdb.tmp`` files (and their WALs) an interrupted publish left behind."""
    directory = snapshots_dir(settings)
    if not directory.is_dir():
        return []
    removed = []
    for path in sorted(directory.iterdir()):
        if path.name.endswith((TMP_SUFFIX, TMP_SUFFIX + ".wal", SIDECAR_SUFFIX + ".tmp")):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(path)
    if removed:
        log.info("removed %d leftover file(s) of an interrupted publish", len(removed))
    return removed


def retain_snapshots(settings: Settings) -> list[Path]:
    """Keep the newest ``snapshots_kept`` files and the current one; delete the rest.

    Readers that still hold a deleted file open keep reading it until they close it.
    """
    current = current_snapshot(settings)
    files = _snapshot_files(snapshots_dir(settings))
    keep = set(files[-settings.snapshots_kept :])
    if current is not None:
        keep.add(current.path)
    removed = [path for path in files if path not in keep]
    for path in removed:
        _remove_database_file(path)
        for sidecar in path.parent.glob(f"{path.name[: -len(SUFFIX)]}.*{SIDECAR_SUFFIX}"):
            sidecar.unlink(missing_ok=True)
    if removed:
        _fsync_dir(snapshots_dir(settings))
        log.info("deleted %d old snapshot(s): %s", len(removed), ", ".join(p.name for p in removed))
    return removed


def publish_snapshot(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    *,
    as_of: dt.date,
    schemas: Sequence[str] = ("marts",),
    extra_tables: Sequence[str] = (),
    sidecars: Mapping[str, SidecarBuilder] | None = None,
    cadences: Mapping[str, int] | None = None,
) -> SnapshotInfo:
    """Publish the marts as a new immutable snapshot and make it current.

    ``con`` is the pipeline's (only) read-write warehouse connection; the snapshot is written
    through it with ``ATTACH``. ``extra_tables`` are qualified names (``meta.dq_results``).
    ``sidecars`` build files derived from the verified snapshot (``<id>.<name>.sqlite``,
    e.g. the verify lookup) before it becomes current; the pointer names them.
    ``cadences`` (source -> refresh cadence in days) go into ``meta.sources``.
    Raises SnapshotError, leaving ``CURRENT`` as it was, if anything fails.
    """
    directory = snapshots_dir(settings)
    directory.mkdir(parents=True, exist_ok=True)
    clean_leftovers(settings)

    built_at = dt.datetime.now(dt.UTC)
    snapshot_id = new_snapshot_id(built_at)
    tmp = directory / f"{snapshot_id}{TMP_SUFFIX}"
    final = directory / f"{snapshot_id}{SUFFIX}"

    flushed = _flushed_as_written(directory, snapshot_id, settings.publish_flush_seconds)
    with _removed_on_error(tmp), flushed, _threads(con, settings.publish_threads):
        counts, views = _build(
            con,
            tmp,
            snapshot_id=snapshot_id,
            built_at=built_at,
            as_of=as_of,
            schemas=schemas,
            extra_tables=extra_tables,
            cadences=cadences or {},
        )
        _fsync_file(tmp)
        threads = settings.publish_threads
        verify_snapshot(tmp, counts, snapshot_id=snapshot_id, views=views, threads=threads)
        built: dict[str, Path] = {}
        try:
            for name, build in (sidecars or {}).items():
                side = directory / f"{snapshot_id}.{name}{SIDECAR_SUFFIX}"
                side_tmp = side.with_name(side.name + ".tmp")
                with _removed_on_error(side_tmp):
                    build(tmp, side_tmp, threads=threads)
                    _fsync_file(side_tmp)
                    os.replace(side_tmp, side)
                built[name] = side
            os.replace(tmp, final)
        except BaseException:
            for side in built.values():
                side.unlink(missing_ok=True)
            raise
    _fsync_dir(directory)

    info = SnapshotInfo(
        snapshot_id=snapshot_id,
        path=final,
        built_at=built_at,
        as_of=as_of,
        tables=counts,
        views=views,
        sidecars=built,
    )
    _write_atomically(pointer_path(settings), _pointer_payload(info, settings))
    log.info(
        "published snapshot %s (as of %s): %d tables, %d rows, %d views",
        snapshot_id,
        as_of,
        len(counts),
        sum(counts.values()),
        len(views),
    )
    retain_snapshots(settings)
    return info


@contextlib.contextmanager
def _removed_on_error(path: Path) -> Iterator[None]:
    try:
        yield
    except BaseException:
        _remove_database_file(path)
        raise


# --- command line (the verify subprocess) ---------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.warehouse.snapshot", description=__doc__.splitlines()[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check a snapshot file read-only")
    verify.add_argument("path", type=Path)
    verify.add_argument("expected", help='JSON object {"schema.table": rows}')
    verify.add_argument("--snapshot-id", default=None)
    verify.add_argument("--views", default="[]", help='JSON array ["schema.view", ...]')
    verify.add_argument("--threads", type=int, default=0, help="DuckDB threads (0: default)")
    args = parser.parse_args(argv)

    try:
        expected = json.loads(args.expected)
        if not isinstance(expected, dict):
            raise ValueError("expected counts must be a JSON object")
        views = json.loads(args.views)
        if not isinstance(views, list):
            raise ValueError("--views must be a JSON array")
        check_snapshot_file(
            args.path,
            {str(k): int(v) for k, v in expected.items()},
            args.snapshot_id,
            views=[str(view) for view in views],
            threads=args.threads,
        )
    except (SnapshotError, ValueError, duckdb.Error) as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
