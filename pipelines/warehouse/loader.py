"""Loading a source into its raw tables: stream, stage, check, swap atomically.

One load of one source:

1. find the newest snapshot of its landed files; none -> ``not_loaded`` (raw tables are
   created empty if they never existed, so downstream models still build). A zip that
   cannot be opened fails the load, unless its name dates it before the snapshot read;
2. if the files are the ones the last successful load read (name, size and mtime, else
   sha256) -> ``unchanged``: nothing is written (but a load record when the last attempt
   had failed: its files are gone, the source is current again);
3. stream every file through the source's parser; the rows become Parquet parts in a new
   directory per table (``rawfiles``), written by the parse workers or a writer thread;
   rejected rows are staged for ``meta.quarantine``;
4. run the blocking data-quality checks on staging views ``raw.<table>__loading`` over the
   new parts; any failure -> the load fails, its files are removed, the previous tables stay;
5. in ONE transaction: point each view ``raw.<table>`` at its new directory, append the
   manifest, the quarantine rows and the load record; then delete the previous files.
   A crash before the commit leaves the previous tables; the next load removes leftovers.

From step 1 on, anything a landed file does fails this source's load only: it is recorded
in ``meta.loads`` (status ``failed``, the message naming the source and the file) and
raised as :class:`LoadError`, which the ingest asset turns into a failed source while the
run goes on.
"""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import duckdb
import pyarrow as pa

from pipelines.ingest.base import LandingFile, PartSink, Quarantined, SourceFileError
from pipelines.ingest.files import checksums, discover
from pipelines.ingest.sources import Source
from pipelines.settings import Settings
from pipelines.warehouse import rawfiles
from pipelines.warehouse.connection import create_table_sql
from pipelines.warehouse.meta import ensure_meta
from pipelines.warehouse.quality import CheckOutcome, record_outcomes, run_checks

ProgressFn = Callable[[str, int, int, int], None]  # (file, records so far, files done, files)

_QUARANTINE_SCHEMA = pa.schema(
    [
        pa.field("file_name", pa.string()),
        pa.field("line", pa.int64()),
        pa.field("reason", pa.string()),
        pa.field("raw", pa.string()),
    ]
)


class LoadError(Exception):
    """A load failed; the message names the file or the check, the previous data is intact.

    ``result`` is the failed load (status ``failed``: its id, checks and quarantine count)."""

    def __init__(self, message: str, result: LoadResult | None = None) -> None:
        super().__init__(message)
        self.result = result


# A failed load keeps this many of its quarantined rows in meta.quarantine (its diagnosis
# for `bvs status`); the count of all of them is in meta.loads.
FAILED_QUARANTINE_KEPT = 1_000


@dataclass
class LoadResult:
    source: str
    status: str  # loaded | unchanged | not_loaded | failed
    load_id: str | None = None
    rows: dict[str, int] = field(default_factory=dict)
    quarantined: int = 0
    files: list[str] = field(default_factory=list)
    extract_date: dt.date | None = None
    seconds: float = 0.0
    checks: dict[str, list[CheckOutcome]] = field(default_factory=dict)  # raw table -> outcomes
    timings: dict[str, float] = field(default_factory=dict)  # phase -> seconds
    message: str = ""
    # landed files passed over with a reason (a corrupt zip dated before the snapshot read)
    warnings: list[str] = field(default_factory=list)

    @property
    def records_per_second(self) -> float:
        total = sum(self.rows.values())
        return total / self.seconds if self.seconds else 0.0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_load_id(source: str) -> str:
    return f"{source}-{_now().strftime('%Y%m%dT%H%M%S%fZ')}-{secrets.token_hex(2)}"


def staging_name(table: str) -> str:
    return f"raw.{table}__loading"


def ensure_raw_tables(con: duckdb.DuckDBPyConnection, source: Source, settings: Settings) -> None:
    """Create the source's raw tables empty if they do not exist yet."""
    ensure_meta(con)
    for table in source.tables.values():
        rawfiles.ensure(con, settings, table.name, table.schema)


def last_load(con: duckdb.DuckDBPyConnection, source: str) -> dict | None:
    """The last successful load of a source (status loaded), as a dict, or None."""
    row = con.execute(
        """
        select load_id, fingerprint, row_counts, extract_date, finished_at, quarantined
        from meta.loads where source = ? and status = 'loaded'
        order by finished_at desc limit 1
        """,
        [source],
    ).fetchone()
    if row is None:
        return None
    return {
        "load_id": row[0],
        "fingerprint": row[1],
        "row_counts": json.loads(row[2] or "{}"),
        "extract_date": row[3],
        "finished_at": row[4],
        "quarantined": row[5] or 0,
    }


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


def _modified_at(path: Path) -> dt.datetime:
    """The file's mtime at microsecond precision (what a timestamptz column holds exactly)."""
    return _EPOCH + dt.timedelta(microseconds=path.stat().st_mtime_ns // 1000)


def _quick_fingerprint(paths: list[Path]) -> str:
    """Name, size and mtime of the landed files: equal means "the same files", cheaply."""
    parts = [
        f"{p.name}|{p.stat().st_size}|{_modified_at(p).isoformat()}" for p in sorted(set(paths))
    ]
    return "quick:" + ";".join(parts)


def _content_fingerprint(sums: dict[Path, str]) -> str:
    return "sha256:" + ";".join(f"{p.name}|{p.stat().st_size}|{sums[p]}" for p in sorted(sums))


def _manifest_quick(con: duckdb.DuckDBPyConnection, load_id: str) -> str:
    rows = con.execute(
        "select distinct path, size_bytes, modified_at from meta.manifest where load_id = ?",
        [load_id],
    ).fetchall()
    parts = []
    for path, size, modified in sorted(rows):
        stamp = (
            (_EPOCH + ((modified - _EPOCH) // _MICROSECOND) * _MICROSECOND) if modified else None
        )
        parts.append(f"{Path(path).name}|{size}|{stamp.isoformat() if stamp else ''}")
    return "quick:" + ";".join(parts)


# Below this much input, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 32 * 1024 * 1024


@contextmanager
def _parse_pool(source: Source, settings: Settings, total_bytes: int) -> Iterator[Executor | None]:
    workers = settings.parse_workers or (os.cpu_count() or 1)
    if not source.parallel or workers < 2 or total_bytes < PARALLEL_MIN_BYTES:
        yield None
        return
    context = multiprocessing.get_context("spawn")  # never fork a process holding DuckDB
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=source.init_worker
    ) as pool:
        yield pool


def load_source(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    settings: Settings,
    *,
    force: bool = False,
    progress: ProgressFn | None = None,
) -> LoadResult:
    """Load one source from the landing folder (see the module docstring), with DuckDB
    bounded to ``settings.load_memory_limit`` meanwhile."""
    with _memory_limit(con, settings.load_memory_limit, settings.duckdb_memory_limit):
        return _load_source(con, source, settings, force=force, progress=progress)


@contextmanager
def _memory_limit(con: duckdb.DuckDBPyConnection, limit: str, after: str) -> Iterator[None]:
    """DuckDB's memory limit set to ``limit``, then to ``after``: the limit the connection was
    opened with (DuckDB shows a limit rounded, so the one shown cannot be set back exactly)."""
    con.execute(f"set memory_limit = '{limit}'")
    try:
        yield
    finally:
        con.execute(f"set memory_limit = '{after}'")


def _load_source(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    settings: Settings,
    *,
    force: bool,
    progress: ProgressFn | None,
) -> LoadResult:
    started = _now()
    clock = time.perf_counter()
    ensure_raw_tables(con, source, settings)
    _drop_staging(con, source, settings)
    load_id = new_load_id(source.name)
    result = LoadResult(source.name, "loaded", load_id=load_id)
    hashing: ThreadPoolExecutor | None = None
    try:  # from discovery on: whatever a landed file does, the source fails, not the run
        folder = settings.landing_dir / source.folder
        files = discover(folder, source.patterns, source.snapshot_key, passed_over=result.warnings)
        if not files:
            return LoadResult(
                source.name,
                "not_loaded",
                message=f"no files in {folder} matching {', '.join(source.patterns)}",
                warnings=result.warnings,
            )
        result.files = [f.name for f in files]
        paths = sorted({f.path for f in files})
        previous = last_load(con, source.name)
        sums: dict[Path, str] | None = None
        if previous and not force:
            same = _quick_fingerprint(paths) == _manifest_quick(con, previous["load_id"])
            if not same:
                sums = checksums(paths)
                same = _content_fingerprint(sums) == previous["fingerprint"]
            if same:
                return _unchanged(con, source, previous, result, started, clock)
        # Nothing to compare against: hash the files while they are parsed (hashing releases
        # the GIL) and wait for the sums only at the swap.
        hashing = ThreadPoolExecutor(max_workers=1) if sums is None else None
        pending_sums = hashing.submit(checksums, paths) if hashing else None

        # A daily source whose loaded files are all still there, unchanged: parse only the new
        # ones and carry the previous load's rows over (hard links to its Parquet parts).
        carried_from: str | None = None
        to_parse = files
        if source.incremental and previous and not force and sums is not None:
            new_files = _files_not_loaded(con, previous["load_id"], files, sums)
            if new_files is not None:
                carried_from, to_parse = previous["load_id"], new_files

        tick = time.perf_counter()
        if carried_from is not None:
            _carry_parts(con, source, settings, load_id)
        manifest = _stage(con, source, settings, to_parse, load_id, result, progress)
        if carried_from is not None and previous is not None:
            _count_carried(con, source, previous, result)
        result.timings["stage"] = time.perf_counter() - tick
        tick = time.perf_counter()
        result.checks = _check(con, source, settings, load_id, previous)
        result.timings["checks"] = time.perf_counter() - tick
        failed = [
            f"{table}.{o.name} (observed {o.observed}, expected {o.expected})"
            for table, outcomes in result.checks.items()
            for o in outcomes
            if o.blocking and not o.passed
        ]
        if failed:
            if previous is not None and sums is None and pending_sums is not None:
                sums = pending_sums.result()  # forced: which files changed, by checksum
            first = _first_cause(con, source, _new_since(con, previous, files, sums))
            raise LoadError(
                f"{source.name}: {first + '; ' if first else ''}"
                "blocking data-quality checks failed: " + "; ".join(failed)
            )
        tick = time.perf_counter()
        if pending_sums is not None:
            sums = pending_sums.result()
        result.timings["checksums_wait"] = time.perf_counter() - tick
        tick = time.perf_counter()
        assert sums is not None
        _swap(con, source, settings, load_id, started, sums, manifest, result, carried_from)
        result.timings["swap"] = time.perf_counter() - tick
    except Exception as exc:
        message = (
            str(exc)
            if isinstance(exc, LoadError)
            else f"{source.name}: {exc}"
            if isinstance(exc, SourceFileError)
            else f"{source.name}: {type(exc).__name__}: {exc}"
        )
        kept = _keep_failed_quarantine(con, source, load_id)
        _drop_staging(con, source, settings)
        _record_load(con, load_id, source.name, "failed", started, None, {}, kept, None, message)
        result.status, result.message, result.quarantined = "failed", message, kept
        result.seconds = time.perf_counter() - clock
        raise LoadError(message, result) from exc
    finally:
        if hashing is not None:
            hashing.shutdown(wait=True)
    result.seconds = time.perf_counter() - clock
    return result


def _new_since(
    con: duckdb.DuckDBPyConnection,
    previous: dict | None,
    files: list[LandingFile],
    sums: dict[Path, str] | None,
) -> list[str] | None:
    """The files of this load that the last good load did not read as they are now (new, or
    changed since: another checksum): one of them, or a file no longer read, is why this load
    fails where that one passed. None when there is no last good load (every file is new)."""
    if previous is None:
        return None
    loaded = dict(
        con.execute(
            "select file_name, sha256 from meta.manifest where load_id = ?",
            [previous["load_id"]],
        ).fetchall()
    )
    return [
        f.name
        for f in files
        if f.name not in loaded or sums is None or sums.get(f.path) != loaded[f.name]
    ]


def _first_cause(
    con: duckdb.DuckDBPyConnection, source: Source, new: list[str] | None = None
) -> str:
    """The file that made the load fail, and its first quarantined row: "FILE: N rows
    quarantined, the first at line L: REASON".

    The file is one of ``new`` (the files new or changed since the last good load, which
    passed its checks with the others): the one with the most quarantined rows, else ``new``
    is named as it is ("FILE, new since the last good load"). Without a last good
    load (``new`` None), the file with the most quarantined rows; empty when none has any.
    """
    table = f"raw.{source.name}__quarantine__loading"
    try:
        rows = con.execute(
            f"""
            select file_name, count(*) as n, min(line), arg_min(reason, line)
            from {table} group by file_name order by n desc, file_name
            """
        ).fetchall()
    except duckdb.Error:
        rows = []
    for file, count, line, reason in rows:
        if new is None or file in new:
            return f"{file}: {count:,} rows quarantined, the first at line {line}: {reason}"
    if not new:
        return ""
    shown = ", ".join(new[:3]) + (f" and {len(new) - 3} more" if len(new) > 3 else "")
    return f"{shown}, new since the last good load"


def _keep_failed_quarantine(con: duckdb.DuckDBPyConnection, source: Source, load_id: str) -> int:
    """Keep the first rows a failed load quarantined in meta.quarantine (its diagnosis);
    return how many it quarantined in all."""
    table = f"raw.{source.name}__quarantine__loading"
    try:
        row = con.execute(f"select count(*) from {table}").fetchone()
        con.execute(
            f"""
            insert into meta.quarantine
            select ?, ?, file_name, line, reason, raw from {table}
            order by file_name, line limit ?
            """,
            [load_id, source.name, FAILED_QUARANTINE_KEPT],
        )
    except duckdb.Error:  # the load failed before it staged anything
        return 0
    return int(row[0]) if row else 0


def _files_not_loaded(
    con: duckdb.DuckDBPyConnection, load_id: str, files: list[LandingFile], sums: dict[Path, str]
) -> list[LandingFile] | None:
    """The landed files the load ``load_id`` did not read, or None when one it read has
    changed or gone (then everything is read again)."""
    loaded = dict(
        con.execute(
            "select file_name, sha256 from meta.manifest where load_id = ?", [load_id]
        ).fetchall()
    )
    landed = {f.name: f for f in files}
    if any(name not in landed or sums[landed[name].path] != sha for name, sha in loaded.items()):
        return None
    return [f for f in files if f.name not in loaded]


def _carry_parts(
    con: duckdb.DuckDBPyConnection, source: Source, settings: Settings, load_id: str
) -> None:
    """Put the current Parquet parts of each table into the new load's directory."""
    for table in source.tables.values():
        previous = rawfiles.current(con, table.name)
        target = rawfiles.location(settings, table.name, load_id)
        if previous is not None:
            rawfiles.carry_parts(previous, target)


def _count_carried(
    con: duckdb.DuckDBPyConnection, source: Source, previous: dict, result: LoadResult
) -> None:
    """An incremental load's totals: every row of the staged tables, old and new."""
    for table in source.tables.values():
        row = con.execute(f"select count(*) from {staging_name(table.name)}").fetchone()
        result.rows[table.name] = int(row[0]) if row else 0
    if previous["extract_date"] and (
        result.extract_date is None or previous["extract_date"] > result.extract_date
    ):
        result.extract_date = previous["extract_date"]


def _unchanged(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    previous: dict,
    attempt: LoadResult,
    started: dt.datetime,
    clock: float,
) -> LoadResult:
    """The landed files are the ones the last good load read: nothing is written. Unless
    the source's last attempt failed: the files it refused are gone, so the source is
    current again, and a load record (status ``unchanged``, under ``attempt``'s id) says so
    (``bvs status``, the snapshot's ``meta.source_failures`` read the last attempt)."""
    result = LoadResult(
        source.name,
        "unchanged",
        load_id=previous["load_id"],
        rows=previous["row_counts"],
        files=attempt.files,
        extract_date=previous["extract_date"],
        message="the landed files are the ones already loaded",
        warnings=attempt.warnings,
    )
    if _last_attempt(con, source.name) == "failed":
        result.message = (
            f"the landed files are again the ones of the last good load ({previous['load_id']}):"
            " the files the last attempt refused are gone"
        )
        assert attempt.load_id is not None
        _record_load(
            con,
            attempt.load_id,
            source.name,
            "unchanged",
            started,
            previous["fingerprint"],
            previous["row_counts"],
            previous["quarantined"],
            previous["extract_date"],
            result.message,
        )
    result.seconds = time.perf_counter() - clock
    return result


def _last_attempt(con: duckdb.DuckDBPyConnection, source: str) -> str | None:
    """The status of the source's latest recorded load attempt."""
    row = con.execute(
        "select status from meta.loads where source = ?"
        " order by started_at desc, load_id desc limit 1",
        [source],
    ).fetchone()
    return str(row[0]) if row else None


def _drop_staging(con: duckdb.DuckDBPyConnection, source: Source, settings: Settings) -> None:
    """Remove what an unfinished load left: staging views, files and quarantine rows."""
    for table in source.tables.values():
        con.execute(f"drop view if exists {staging_name(table.name)}")
        rawfiles.remove_unused(con, settings, table.name)
    con.execute(f"drop table if exists raw.{source.name}__quarantine__loading")


def _stage(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    settings: Settings,
    files: list[LandingFile],
    load_id: str,
    result: LoadResult,
    progress: ProgressFn | None,
) -> list[dict]:
    quarantine_table = f"raw.{source.name}__quarantine__loading"
    con.execute(create_table_sql(quarantine_table, _QUARANTINE_SCHEMA, if_not_exists=False))
    manifest = []
    writer = _Writer(con)
    parts = {
        key: rawfiles.PartWriter(rawfiles.location(settings, table.name, load_id), table.schema)
        for key, table in source.tables.items()
    }
    buffers = {key: _Buffer(parts[key], writer) for key in source.tables}
    quarantine_buffer = _Buffer(quarantine_table, writer)
    infos = {file: source.file_info(file) for file in files}
    per_file = {file: {"rows": 0, "quarantined": 0} for file in files}
    total_bytes = sum(f.path.stat().st_size for f in {f.path: f for f in files}.values())
    try:
        _consume(
            source,
            files,
            settings,
            total_bytes,
            buffers,
            quarantine_buffer,
            per_file,
            result,
            progress,
        )
        for buffer in [*buffers.values(), quarantine_buffer]:
            buffer.flush()
    finally:
        writer.close()
    for key, table in source.tables.items():  # the views the checks read
        parts[key].finish()
        con.execute(rawfiles.view_sql(staging_name(table.name), parts[key].directory))
    result.timings["stage_writes"] = writer.seconds
    for file in files:
        info = infos[file]
        if info.extract_date and (
            result.extract_date is None or info.extract_date > result.extract_date
        ):
            result.extract_date = info.extract_date
        manifest.append(
            {
                "file": file,
                "extract_date": info.extract_date,
                "declared_records": info.declared_records,
                "rows": per_file[file]["rows"],
                "quarantined": per_file[file]["quarantined"],
            }
        )
    return manifest


def _consume(
    source: Source,
    files: list[LandingFile],
    settings: Settings,
    total_bytes: int,
    buffers: dict[str, _Buffer],
    quarantine_buffer: _Buffer,
    per_file: dict[LandingFile, dict[str, int]],
    result: LoadResult,
    progress: ProgressFn | None,
) -> None:
    total = 0
    done: set[LandingFile] = set()
    with _parse_pool(source, settings, total_bytes) as pool:
        directories = {
            key: b.table.directory
            for key, b in buffers.items()
            if isinstance(b.table, rawfiles.PartWriter)
        }
        sink = PartSink(directories) if pool else None
        for file, batch in source.parse(files, pool, sink):
            for key, table in batch.tables.items():
                buffers[key].add(table)
            for key in source.tables:
                name = source.tables[key].name
                result.rows[name] = result.rows.get(name, 0) + batch.count(key)
            per_file[file]["rows"] += batch.rows
            if batch.quarantine:
                quarantine_buffer.add(_quarantine_table(batch.quarantine))
                per_file[file]["quarantined"] += len(batch.quarantine)
                result.quarantined += len(batch.quarantine)
            total += batch.rows
            done.add(file)
            if progress:
                progress(file.name, total, len(done) - 1, len(files))
    if progress and files:
        progress(files[-1].name, total, len(files), len(files))
    for table in source.tables.values():
        result.rows.setdefault(table.name, 0)


# Rows per flushed batch: a full DuckDB row group (122,880 rows) per Parquet part or insert
# (smaller DuckDB inserts go through the write-ahead log first, costing about twice the CPU).
ROW_GROUP = 122_880


Target = Union["rawfiles.PartWriter", str]  # Parquet parts of a raw table, or a DuckDB table


class _Writer:
    """Writes batches (Parquet parts, or rows of a DuckDB staging table) on a thread.

    Parquet encoding and DuckDB both release the GIL, so the main thread keeps handing
    chunks to the parse workers meanwhile. The bounded queue keeps memory bounded: when the
    writer falls behind, the producer waits.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, depth: int = 3) -> None:
        self._cursor = con.cursor()
        self._queue: queue.Queue[tuple[Target, pa.Table] | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="bvs-staging-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._error is not None:
                continue  # drain after a failure
            target, rows = item
            tick = time.perf_counter()
            try:
                if isinstance(target, rawfiles.PartWriter):
                    target.write(rows)
                else:
                    _append(self._cursor, target, rows)
            except BaseException as exc:  # surfaced in put()/close()
                self._error = exc
            self.seconds += time.perf_counter() - tick

    def put(self, target: Target, rows: pa.Table) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put((target, rows))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        self._cursor.close()
        if self._error is not None:
            raise self._error


class _Buffer:
    """Collects parser batches for one staging table and inserts them a row group at a time."""

    def __init__(self, table: Target, writer: _Writer) -> None:
        self.table = table
        self.writer = writer
        self.parts: list[pa.Table] = []
        self.rows = 0

    def add(self, rows: pa.Table) -> None:
        if rows.num_rows:
            self.parts.append(rows)
            self.rows += rows.num_rows
        if self.rows >= 2 * ROW_GROUP:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            self.writer.put(self.table, pa.concat_tables(self.parts).combine_chunks())
        self.parts, self.rows = [], 0


def _append(con: duckdb.DuckDBPyConnection, table: str, rows: pa.Table) -> None:
    cursor = con.cursor()
    try:
        cursor.register("_bvs_batch", rows)
        cursor.execute(f"insert into {table} select * from _bvs_batch")
        cursor.unregister("_bvs_batch")
    finally:
        cursor.close()


def _quarantine_table(rows: list[Quarantined]) -> pa.Table:
    return pa.Table.from_pydict(
        {
            "file_name": [q.file for q in rows],
            "line": [q.line for q in rows],
            "reason": [q.reason for q in rows],
            "raw": [q.raw for q in rows],
        },
        schema=_QUARANTINE_SCHEMA,
    )


def _check(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    settings: Settings,
    load_id: str,
    previous: dict | None,
) -> dict[str, list[CheckOutcome]]:
    outcomes: dict[str, list[CheckOutcome]] = {}
    for table in source.tables.values():
        previous_rows = previous["row_counts"].get(table.name) if previous else None
        table_outcomes = run_checks(
            con,
            staging_name(table.name),
            table.checks,
            previous_rows=previous_rows,
            max_drift=settings.max_row_drift,
        )
        record_outcomes(
            con,
            load_id=load_id,
            source=source.name,
            table=f"raw.{table.name}",
            outcomes=table_outcomes,
        )
        outcomes[table.name] = table_outcomes
    return outcomes


def _swap(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    settings: Settings,
    load_id: str,
    started: dt.datetime,
    sums: dict[Path, str],
    manifest: list[dict],
    result: LoadResult,
    carried_from: str | None = None,
) -> None:
    con.execute("begin transaction")
    try:
        for table in source.tables.values():
            directory = rawfiles.location(settings, table.name, load_id)
            con.execute(f"drop view if exists {staging_name(table.name)}")
            rawfiles.point_view(con, f"raw.{table.name}", directory)
            con.execute(
                "insert or replace into meta.raw_tables values (?, ?, ?)",
                [f"raw.{table.name}", str(directory), load_id],
            )
        con.execute(
            f"""
            insert into meta.quarantine
            select ?, ?, file_name, line, reason, raw from raw.{source.name}__quarantine__loading
            """,
            [load_id, source.name],
        )
        con.execute(f"drop table raw.{source.name}__quarantine__loading")
        if carried_from is not None:  # the files read before, as they were recorded
            con.execute(
                """
                insert into meta.manifest
                select ?, source, file_name, path, size_bytes, modified_at, sha256,
                    extract_date, declared_records, rows, quarantined
                from meta.manifest where load_id = ?
                """,
                [load_id, carried_from],
            )
        for entry in manifest:
            file: LandingFile = entry["file"]
            stat = file.path.stat()
            con.execute(
                "insert into meta.manifest values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    load_id,
                    source.name,
                    file.name,
                    str(file.path),
                    stat.st_size,
                    _modified_at(file.path),
                    sums[file.path],
                    entry["extract_date"],
                    entry["declared_records"],
                    entry["rows"],
                    entry["quarantined"],
                ],
            )
        _record_load(
            con,
            load_id,
            source.name,
            "loaded",
            started,
            _content_fingerprint(sums),
            result.rows,
            result.quarantined,
            result.extract_date,
            f"{sum(result.rows.values())} rows from {len(result.files)} files"
            + (f" ({len(manifest)} new, the rest carried over)" if carried_from else "")
            + "".join(f"; {w}" for w in result.warnings),
        )
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    con.execute("checkpoint")
    for table in source.tables.values():  # the previous load's files, now unused
        rawfiles.remove_unused(con, settings, table.name)


def _record_load(
    con: duckdb.DuckDBPyConnection,
    load_id: str,
    source: str,
    status: str,
    started: dt.datetime,
    fingerprint: str | None,
    rows: dict[str, int],
    quarantined: int,
    extract_date: dt.date | None,
    message: str,
) -> None:
    con.execute(
        "insert into meta.loads values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            load_id,
            source,
            status,
            started,
            _now(),
            fingerprint,
            extract_date,
            json.dumps(rows),
            quarantined,
            message,
        ],
    )
