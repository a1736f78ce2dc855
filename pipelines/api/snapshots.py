"""The snapshot in service: opened read-only, switched without a restart or a failed request.

Each request asks ``SnapshotHolder.current()`` for the snapshot to answer from. The holder
stats the ``CURRENT`` pointer at most every ``poll_seconds``, and so does a watcher thread
between requests (``start``), so a worker with no requests switches too and lets the old
file go rather than holding it, deleted and unreadable by anyone else, until its next
request. When the pointer names a new snapshot,
the new file (and its verify lookup) is opened before it replaces the old one, and a request
that already holds the old one finishes on it (DuckDB and SQLite keep a deleted file
readable through an open handle). The old snapshot is closed on a background thread once
the last request using it has let it go: closing frees its DuckDB buffers and unlocks its
lookup, which took 100-200 ms, too long for the request that happened to drop it last. If
the new file cannot be opened, the old one stays in service and the failure is logged; it
is tried again at the next poll.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from pipelines.serving.lookup import VerifyLookup
from pipelines.serving.preload import Pinned, Preloaded, default_budget, preload
from pipelines.serving.verify import Context, load_context
from pipelines.settings import Settings
from pipelines.warehouse.snapshot import (
    SnapshotError,
    SnapshotInfo,
    current_snapshot,
    open_snapshot,
    pointer_path,
)

log = logging.getLogger(__name__)

RELEASE_WAIT_SECONDS = 300.0  # a request holding the old snapshot longer: left to the GC


@dataclass
class Served:
    """One open snapshot: its metadata, DuckDB connection, verify lookup and catalogue."""

    info: SnapshotInfo
    con: duckdb.DuckDBPyConnection
    lookup: VerifyLookup | None
    context: Context
    cache: dict[Any, Any] = field(default_factory=dict)  # per-snapshot memo (health, …)
    preloaded: Preloaded | None = None  # None until its files have been read into memory
    pinned: Pinned | None = None  # the verify lookup, locked in memory while this serves

    @property
    def lookup_file(self) -> Path | None:
        """The verify lookup's file, when this snapshot answers verify from one."""
        return self.info.sidecars.get("verify") if self.lookup is not None else None

    @property
    def files(self) -> list[Path]:
        """Its files, the hottest first: the verify lookup, then the DuckDB file."""
        return [*filter(None, [self.lookup_file]), self.info.path]

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor of its own (a DuckDB connection is not shared between threads)."""
        cur = self.con.cursor()
        try:
            yield cur
        finally:
            cur.close()

    def close(self) -> None:
        self.con.close()
        if self.pinned is not None:
            self.pinned.close()


def _open(settings: Settings) -> Served:
    con = open_snapshot(settings)
    try:
        row = con.execute(
            "select snapshot_id, built_at, as_of, row_counts from meta.snapshot"
        ).fetchone()
        info = current_snapshot(settings)
        if row is None or info is None:
            raise SnapshotError("the snapshot has no meta.snapshot row")
        if str(row[0]) != info.snapshot_id:
            # the pointer moved between reading it and opening: use what was opened
            info = SnapshotInfo(
                snapshot_id=str(row[0]),
                path=info.path,
                built_at=row[1],
                as_of=row[2],
                tables=info.tables,
            )
        lookup_path = info.sidecars.get("verify")
        lookup = VerifyLookup(lookup_path) if lookup_path and lookup_path.is_file() else None
        if lookup is None:
            log.warning("snapshot %s has no verify lookup: verify reads DuckDB", info.snapshot_id)
        return Served(info=info, con=con, lookup=lookup, context=load_context(con))
    except BaseException:
        con.close()
        raise


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


class SnapshotHolder:
    def __init__(self, settings: Settings, *, poll_seconds: float = 0.5) -> None:
        self.settings = settings
        self.poll_seconds = poll_seconds
        self._lock = threading.Lock()
        self._served: Served | None = None
        self._pointer_stamp: tuple[int, int, int] | None = None
        self._checked_at = 0.0
        self._opening = False
        self._stop = threading.Event()
        self.preload_budget = (
            default_budget() if settings.api_preload_bytes is None else settings.api_preload_bytes
        )
        self.last_error: str | None = None
        self._warned_unpinned = False
        self._watching = False

    def start(self) -> None:
        """Watch the pointer between requests (once; the first request starts it too). The
        thread holds the holder weakly: it ends with the holder, or at ``stop``."""
        with self._lock:
            if self._watching:
                return
            self._watching = True
        threading.Thread(
            target=_watch, args=(weakref.ref(self), self._stop, self.poll_seconds),
            name="bvs-snapshot-watch", daemon=True,
        ).start()  # fmt: skip

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(pointer_path(self.settings))
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def current(self) -> Served | None:
        """The snapshot to answer from (None before the first publish).

        A newly published snapshot is opened in a background thread while the old one keeps
        answering (opening reads the catalogue and can take a while on a big file; requests
        run on the event loop and must not wait for it). Only the first snapshot is opened
        in the request that finds it."""
        now = time.monotonic()
        served = self._served
        if served is not None and now - self._checked_at < self.poll_seconds:
            return served
        if not self._watching:
            self.start()
        with self._lock:
            if self._served is not None and now - self._checked_at < self.poll_seconds:
                return self._served
            self._checked_at = now
            stamp = self._stamp()
            if stamp is None or stamp == self._pointer_stamp or self._opening:
                return self._served
            if self._served is None:
                self._switch(stamp)
            else:
                self._opening = True
                threading.Thread(
                    target=self._switch_in_background, args=(stamp,), daemon=True
                ).start()
            return self._served

    def _switch_in_background(self, stamp: tuple[int, int, int]) -> None:
        try:
            self._switch(stamp)  # without the lock: requests go on with the old snapshot
        finally:
            self._opening = False

    def _switch(self, stamp: tuple[int, int, int]) -> None:
        """Open the published snapshot and serve it: under the lock for the first one, else
        in the one background opener (``_opening``)."""
        try:
            fresh = _open(self.settings)
        except (SnapshotError, duckdb.Error, OSError, ValueError) as exc:
            self.last_error = str(exc)
            log.error("cannot open the published snapshot (keeping the old one): %s", exc)
            return
        current = self._served
        new = current is None or fresh.info.snapshot_id != current.info.snapshot_id
        if new and current is not None:
            # the lookup in memory before it answers; the DuckDB file has just been written
            # and reading it again here starved the old snapshot (docs/api.md, "Snapshots")
            self._preload(fresh, whole=False)
        self._pointer_stamp = stamp
        self.last_error = None
        if not new:
            fresh.close()
            return
        log.info("serving snapshot %s", fresh.info.snapshot_id)
        self._served = fresh
        if current is None:  # the first: answer at once, read its files in the background
            threading.Thread(target=self._preload, args=(fresh, True), daemon=True).start()
        else:
            old = [current]  # handed over, so the releasing thread holds the only reference
            del current
            threading.Thread(target=self._release, args=(old,), daemon=True).start()

    def _release(self, handed: list[Served]) -> None:
        """Close a snapshot that has left service, here rather than in whichever request
        drops it last, once no request holds it (CPython's reference count)."""
        old = handed.pop()
        started = time.monotonic()
        # two references left when no request holds it: ``old`` and getrefcount's argument
        while sys.getrefcount(old) > 2:
            if time.monotonic() - started > RELEASE_WAIT_SECONDS or self._stop.is_set():
                log.warning(
                    "snapshot %s is still in use %.0f s after leaving service; it is closed"
                    " when its last request ends",
                    old.info.snapshot_id,
                    time.monotonic() - started,
                )
                return
            time.sleep(0.05)
        old.close()
        log.info(
            "released snapshot %s, %.1f s after it left service",
            old.info.snapshot_id,
            time.monotonic() - started,
        )

    def _preload(self, served: Served, whole: bool) -> None:
        """Lock the verify lookup in memory (which reads it in); read what is left of the
        budget: ``whole``, the DuckDB file too."""
        started = time.perf_counter()
        lookup = served.lookup_file
        if lookup is not None and 0 <= _size(lookup) <= self.preload_budget:
            try:
                served.pinned = Pinned(lookup)
            except OSError as exc:
                if not self._warned_unpinned:  # once a worker: the same cause every time
                    self._warned_unpinned = True
                    log.warning(
                        "the verify lookup is read into memory but not locked there (a"
                        " publish beside the server can push it out): %s; give the server"
                        " CAP_IPC_LOCK or a memlock limit as large as the file",
                        exc,
                    )
        locked = served.pinned.bytes if served.pinned is not None else 0
        files = served.files if whole else served.files[:1] if lookup is not None else []
        if served.pinned is not None:
            files = files[1:]  # the lock has read it already
        try:
            rest = preload(files, self.preload_budget - locked, stop=self._stop)
        except OSError as exc:  # a slower start, not an outage
            log.warning("could not read snapshot %s into memory: %s", served.info.snapshot_id, exc)
            return
        served.preloaded = Preloaded(
            bytes=rest.bytes + locked,
            wanted=rest.wanted + locked,
            seconds=round(time.perf_counter() - started, 2),
        )
        log.info(
            "snapshot %s in memory: %d of %d bytes in %.1f s",
            served.info.snapshot_id,
            served.preloaded.bytes,
            served.preloaded.wanted,
            served.preloaded.seconds,
        )

    @property
    def serving_id(self) -> str | None:
        """The id of the snapshot in service, without looking at the pointer."""
        served = self._served
        return None if served is None else served.info.snapshot_id

    def stop(self) -> None:
        """End the watcher and a preload still reading (the server is shutting down)."""
        self._stop.set()


def _watch(holder: weakref.ref[SnapshotHolder], stop: threading.Event, every: float) -> None:
    """Poll the pointer every ``every`` seconds (at least 0.05) until the holder is gone."""
    while not stop.wait(max(every, 0.05)):
        current = holder()
        if current is None:
            return
        current.current()  # switches in the background when the pointer moved
        del current  # hold neither the holder nor a snapshot while waiting
