"""Where the rate limiter counts: a SQLite file in memory, copied to a file on disk.

Every API request writes its rate counters. On the state database's disk those writes wait
whenever the disk is busy: publishing a 5 GB snapshot to the same disk made every WAL write
and checkpoint stall for 0.2 to 8 s (docs/api.md), and the kernel throttles any process
writing to a disk with too much unwritten data, fsync or not. The counters therefore live in
their own SQLite file on a memory filesystem (``/dev/shm``, which the kernel never writes
back or throttles), shared by every worker process of the machine and exact under
concurrency as before: the same statements, the same ``BEGIN IMMEDIATE`` transaction, the
same file lock (``pipelines.state.db``).

Durability comes from a copy. Every ``FLUSH_SECONDS`` a thread of each API worker copies the
day and month counters (the usage ``bvs keys list`` shows, the daily limit, the monthly
premium quotas) to ``rate_counters`` in ``bvs.counters.sqlite`` beside the state database,
as absolute values: a copy is idempotent, and two workers copying at once agree. The copies
have a file of their own so that the state database, where every request reads its key,
does not change while the API serves: a SQLite reader writes its read mark into the
database's disk-backed ``-shm`` file whenever the WAL has changed since, and that write
waits on a busy disk like any other. A counters file that does not exist yet
(a new machine, a reboot) starts from those copies. A crash of the machine loses at most the
last seconds of counts and the minute and hour windows then open, which at worst lets a key
through a little early in the hour after a reboot. ``bvs keys list`` reads both and shows
the larger of each count, so it is exact on the machine that serves.

Settings: ``BVS_COUNTERS_DIR`` (default ``/dev/shm/bvs-counters``, or the state folder where
there is no ``/dev/shm``); the file is ``<dir>/<hash of the state database path>.sqlite``,
so two data folders never share counters. With ``BVS_STATE_URL`` set (a database server
shared by several machines), the counters stay in that database and nothing here applies
but one thing: on PostgreSQL a request's count commits without waiting for the server's
disk (``synchronous_commit=off`` on the counting connections only: a crash of the server
loses at most its last fraction of a second of counts, never a key or a revocation, the
same bargain as the copies above).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from pipelines.settings import Settings
from pipelines.state.db import run, server_counting_engine, sqlite_engine, write_lock
from pipelines.state.limits import window_bounds
from pipelines.state.tables import rate_counters

log = logging.getLogger(__name__)

FLUSH_SECONDS = 2.0
MEMORY_FILESYSTEM = Path("/dev/shm")
DURABLE_COUNTERS = ("day", "month:%")  # what outlives a reboot: usage, daily limit, quotas

_COPY = sa.text(
    "insert into rate_counters (key_id, counter, window_start, count)"
    " values (:key_id, :counter, :window_start, :count)"
    " on conflict (key_id, counter, window_start)"
    " do update set count = max(rate_counters.count, excluded.count)"
)
_DURABLE_ROWS = sa.text(
    "select key_id, counter, window_start, count from rate_counters"
    " where (counter = 'day' and window_start >= :day) or (counter like 'month:%'"
    " and window_start >= :month)"
)


def counters_path(settings: Settings) -> Path | None:
    """The counters file for these settings; None when the state database is a server."""
    if settings.state_url is not None and not settings.state_url.startswith("sqlite"):
        return None
    folder = settings.counters_dir
    if folder is None:
        shm = MEMORY_FILESYSTEM
        folder = shm / "bvs-counters" if shm.is_dir() and os.access(shm, os.W_OK) else None
    if folder is None:
        folder = settings.state_dir
    state = sa.make_url(settings.state_database_url).database or ""
    digest = hashlib.sha256(str(Path(state).resolve()).encode()).hexdigest()[:16]
    return folder / f"counters-{digest}.sqlite"


def copies_path(settings: Settings) -> Path | None:
    """The durable copies' file beside the state database (``bvs.counters.sqlite``); None
    when the state database is a server."""
    if counters_path(settings) is None:
        return None
    state = Path(sa.make_url(settings.state_database_url).database or "").resolve()
    return state.with_name(f"{state.stem}.counters{state.suffix or '.sqlite'}")


def _ensure_table(engine: sa.Engine) -> None:
    with write_lock(engine), engine.begin() as conn:  # workers start together
        conn.execute(sa.schema.CreateTable(rate_counters, if_not_exists=True))


class Counters:
    """The rate counters' store for one process: ``engine`` to count on, ``flush()`` to copy
    the durable counters to ``copies`` (a SQLite file beside the state database, so the
    keys' database does not change while the API serves and its readers never write),
    ``start()``/``stop()`` for the copying thread. Without a counters file (a server
    database), ``engine`` and ``copies`` are the state database."""

    def __init__(
        self,
        settings: Settings,
        state: sa.Engine,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ) -> None:
        self.state = state
        self.clock = clock  # the windows copied: yesterday's and today's days, two months
        self.path = counters_path(settings)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        copies = copies_path(settings)
        if self.path is None or copies is None:
            # a database server shared by several machines counts; a request's count is
            # committed without waiting for the server's disk (server_counting_engine)
            self.engine = server_counting_engine(state)
            self.copies = state
            return
        self.copies = sqlite_engine(copies)  # on disk, durable at every checkpoint
        _ensure_table(self.copies)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists()
        # synchronous=off: the file is in memory; what must survive is in the copies
        self.engine = sqlite_engine(self.path, synchronous="off")
        _ensure_table(self.engine)
        if fresh:
            self._seed()

    @property
    def separate(self) -> bool:
        """Counted in a file of this machine (not in the state database server)."""
        return self.path is not None

    def _seed(self) -> None:
        """Start from the copies of the current day and month counters (and from the state
        database's own, where a release before the copies' file counted)."""
        for source in (self.copies, self.state):
            rows = self._durable_rows(source)
            if rows:
                self._copy(self.engine, rows)

    def _durable_rows(self, engine: sa.Engine) -> list[dict[str, Any]]:
        now = self.clock()
        day = window_bounds("day", now - dt.timedelta(days=1))[0]
        month = window_bounds("month", now.replace(day=1) - dt.timedelta(days=1))[0]
        with engine.connect() as conn:
            found = run(conn, _DURABLE_ROWS, {"day": day, "month": month})
        return [
            {"key_id": r[0], "counter": r[1], "window_start": r[2], "count": int(r[3])}
            for r in found
        ]

    @staticmethod
    def _copy(engine: sa.Engine, rows: list[dict[str, Any]]) -> None:
        with write_lock(engine), engine.begin() as conn:
            conn.execute(_COPY, rows)

    def flush(self) -> int:
        """Copy this machine's current day and month counters to the copies' file."""
        if not self.separate:
            return 0
        rows = self._durable_rows(self.engine)
        if rows:
            self._copy(self.copies, rows)
        return len(rows)

    def start(self) -> None:
        if not self.separate or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="bvs-counters-flush", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_SECONDS):
            try:
                self.flush()
            except Exception:  # the next round tries again; requests are not affected
                log.exception("copying the rate counters to their durable file failed")

    def stop(self) -> None:
        """Stop the copying thread after a last copy."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        try:
            self.flush()
        finally:
            if self.separate:
                self.engine.dispose()
                self.copies.dispose()
            elif self.engine is not self.state:
                self.engine.dispose()


def usage_engines(settings: Settings, state: sa.Engine) -> list[sa.Engine]:
    """The stores holding day counters: the state database, the copies' file and this
    machine's counters file, those that exist (``bvs keys list`` shows the larger count of
    each day)."""
    engines = [state]
    for path in (copies_path(settings), counters_path(settings)):
        if path is not None and path.exists():
            engines.append(sqlite_engine(path, synchronous="off"))
    return engines
