"""Publishing a snapshot: build, verify, sidecars, rename, switch the pointer, retain.

1. build ``<id>.duckdb.tmp`` from the writer's own connection (``build``), fsync it: a clone
   of the current snapshot with only what changed written into it (``update``), or a copy
   of every table when there is none;
2. verify it from a separate read-only process (``verify``);
3. build the sidecars from it (``<id>.<name>.sqlite``), rename it to ``<id>.duckdb`` (so
   every final-named file has been verified), fsync the folder;
4. switch the pointer ``CURRENT`` (``pointer``), and empty the builds' records of the keys
   they wrote since the last publish (``update.mark_published``), which the next publish
   compares instead of hashing every row;
5. keep the newest ``settings.snapshots_kept`` files and the current one (``retention``).

While steps 1 to 3 write, the files being written are flushed as they go (``flush``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import duckdb

from . import update
from .build import build_snapshot_file
from .core import (
    SIDECAR_SUFFIX,
    SUFFIX,
    TMP_SUFFIX,
    SnapshotError,
    SnapshotInfo,
    duckdb_setting,
    fsync_dir,
    fsync_file,
    new_snapshot_id,
    remove_database_file,
    snapshots_dir,
)
from .flush import flushed_as_written
from .pointer import current_snapshot, switch_pointer
from .retention import clean_leftovers, retain_snapshots
from .verify import verify_snapshot

if TYPE_CHECKING:
    from pipelines.settings import Settings

log = logging.getLogger(__name__)


class SidecarBuilder(Protocol):
    """Builds a file derived from the snapshot (e.g. a point-lookup index) from the snapshot's
    path into ``out_path``; returns the rows written. ``threads`` caps DuckDB's threads
    (0: DuckDB's default), as the publish does on its own connection. ``previous`` is the
    current snapshot's file and its sidecar of the same name, if both are there: a builder
    may start from them and rewrite what differs."""

    def __call__(
        self,
        snapshot_path: Path,
        out_path: Path,
        *,
        threads: int = 0,
        previous: tuple[Path, Path] | None = None,
    ) -> int: ...


def _current_files(settings: Settings) -> tuple[Path, dict[str, Path]] | None:
    """The current snapshot's file and its sidecars, or None (none yet, or unreadable)."""
    try:
        current = current_snapshot(settings)
    except SnapshotError as exc:
        log.warning("the current snapshot is not read (the new one is written afresh): %s", exc)
        return None
    if current is None or not current.path.is_file():
        return None
    return current.path, current.sidecars


@contextlib.contextmanager
def _threads(con: duckdb.DuckDBPyConnection, threads: int) -> Iterator[None]:
    """DuckDB's threads on ``con`` set to ``threads`` while the block runs (0: unchanged)."""
    if not threads:
        yield
        return
    with duckdb_setting(con, "threads", threads):
        yield


def publish_snapshot(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    *,
    as_of: dt.date,
    schemas: Sequence[str] = ("marts",),
    extra_tables: Sequence[str] = (),
    sidecars: Mapping[str, SidecarBuilder] | None = None,
    cadences: Mapping[str, int] | None = None,
    keys: Mapping[str, Sequence[str]] | None = None,
    orders: Mapping[str, Sequence[str]] | None = None,
) -> SnapshotInfo:
    """Publish the marts as a new immutable snapshot and make it current.

    ``con`` is the pipeline's (only) read-write warehouse connection; the snapshot is written
    through it with ``ATTACH``. ``extra_tables`` are qualified names (``meta.dq_results``).
    ``sidecars`` build files derived from the verified snapshot (``<id>.<name>.sqlite``,
    e.g. the verify lookup) before it becomes current; the pointer names them.
    ``cadences`` (source -> refresh cadence in days) go into ``meta.sources``.
    The new file starts as a clone of the current snapshot, and only what changed is written
    into it (``update``): a table with a key in ``keys`` ("schema.table" -> key columns) by
    its changed keys' rows, one without by a whole copy when it changed; a table in
    ``orders`` ("schema.table" -> columns) is stored in that order (an update keeps one
    run in that order after the sorted one).
    Raises SnapshotError, leaving ``CURRENT`` as it was, if anything fails.
    """
    directory = snapshots_dir(settings)
    directory.mkdir(parents=True, exist_ok=True)
    clean_leftovers(settings)
    current = _current_files(settings)

    built_at = dt.datetime.now(dt.UTC)
    snapshot_id = new_snapshot_id(built_at)
    tmp = directory / f"{snapshot_id}{TMP_SUFFIX}"
    final = directory / f"{snapshot_id}{SUFFIX}"

    seconds: dict[str, float] = {}
    stage = time.perf_counter()

    def timed(name: str) -> None:
        nonlocal stage
        now = time.perf_counter()
        seconds[name] = round(now - stage, 3)
        stage = now

    flushed = flushed_as_written(directory, snapshot_id, settings.publish_flush_seconds)
    with _removed_on_error(tmp), flushed, _threads(con, settings.publish_threads):
        counts, views = build_snapshot_file(
            con,
            tmp,
            snapshot_id=snapshot_id,
            built_at=built_at,
            as_of=as_of,
            schemas=schemas,
            extra_tables=extra_tables,
            cadences=cadences or {},
            previous=current[0] if current is not None else None,
            keys=keys,
            orders=orders,
        )
        fsync_file(tmp)
        timed("file")
        threads = settings.publish_threads
        verify_snapshot(tmp, counts, snapshot_id=snapshot_id, views=views, threads=threads)
        timed("check")
        built: dict[str, Path] = {}
        try:
            for name, build in (sidecars or {}).items():
                side = directory / f"{snapshot_id}.{name}{SIDECAR_SUFFIX}"
                side_tmp = side.with_name(side.name + ".tmp")
                previous = None
                if current is not None and current[1].get(name, Path()).is_file():
                    previous = (current[0], current[1][name])
                with _removed_on_error(side_tmp):
                    build(tmp, side_tmp, threads=threads, previous=previous)
                    fsync_file(side_tmp)
                    os.replace(side_tmp, side)
                built[name] = side
                timed(f"sidecar {name}")
            os.replace(tmp, final)
        except BaseException:
            for side in built.values():
                side.unlink(missing_ok=True)
            raise
    fsync_dir(directory)

    info = SnapshotInfo(
        snapshot_id=snapshot_id,
        path=final,
        built_at=built_at,
        as_of=as_of,
        tables=counts,
        views=views,
        sidecars=built,
        seconds=seconds,
    )
    switch_pointer(info, settings)
    _mark_published(con, snapshot_id)
    timed("made current")
    log.info(
        "published snapshot %s (as of %s): %d tables, %d rows, %d views; seconds: %s",
        snapshot_id,
        as_of,
        len(counts),
        sum(counts.values()),
        len(views),
        ", ".join(f"{name} {value:.1f}" for name, value in seconds.items()),
    )
    retain_snapshots(settings)
    return info


def _mark_published(con: duckdb.DuckDBPyConnection, snapshot_id: str) -> None:
    """The builds' records of the keys they wrote emptied, counted from ``snapshot_id``
    (``update.mark_published``). Not done, the next publish compares its tables whole
    instead: a warning, not a failed publish."""
    cur = con.cursor()
    try:
        update.mark_published(cur, snapshot_id)
    except duckdb.Error as exc:
        log.warning("the keys written before snapshot %s stay recorded: %s", snapshot_id, exc)
    finally:
        cur.close()


@contextlib.contextmanager
def _removed_on_error(path: Path) -> Iterator[None]:
    try:
        yield
    except BaseException:
        remove_database_file(path)
        raise
