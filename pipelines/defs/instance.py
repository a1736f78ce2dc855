"""The Dagster instance's SQLite storage during a run started by ``bvs``.

Dagster's default storage writes each event of a run (a step starting, an output, a
materialisation, a check) to SQLite files under DAGSTER_HOME, opening a new connection for
each write. Every commit then waits for the disk (an fsync), and every close of what is
momentarily the file's last connection checkpoints the write-ahead log into the database and
deletes it (more fsyncs, of the file and of its folder). A nightly ledger run writes a few
hundred events; counted with ``strace -f -c -e trace=fdatasync`` around runs of 31 assets,
about 1,600 disk syncs a run, about 4 ms each on this machine's disk (a synced commit),
seconds of a run spent waiting for nothing else (``docs/ledgers.md``, "Speed").

:func:`quick_event_log` keeps, for the length of a run in this process, one idle
connection open to each of these files, so closing the others never checkpoints, and sets
``synchronous=NORMAL`` on the connections of files in WAL mode (all of Dagster's, once
created). WAL with ``NORMAL`` is SQLite's documented choice for this: a commit is not synced,
the database is never corrupted, a killed process loses nothing (the log is in the
operating system's cache), and a power cut can lose only the last events written, never
the warehouse's data (DuckDB's own files are not touched by this). About 150 syncs a run
remain, from creating each run's files.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def quick_event_log() -> Iterator[None]:
    """Dagster's SQLite storage without a disk sync per event, for the ``with`` block."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    keepers: dict[str, sqlite3.Connection] = {}
    lock = threading.Lock()

    def on_connect(connection: Any, _record: Any) -> None:
        if not isinstance(connection, sqlite3.Connection):
            return
        if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            return  # a file being created: Dagster turns WAL on next; until then, as it was
        connection.execute("PRAGMA synchronous=NORMAL")
        path = connection.execute("PRAGMA database_list").fetchone()[2]
        with lock:
            if path and path not in keepers:
                keeper = sqlite3.connect(path, check_same_thread=False)
                # a connection joins the log's shared index only once it has read something
                keeper.execute("SELECT count(*) FROM sqlite_master").fetchone()
                keepers[path] = keeper

    event.listen(Engine, "connect", on_connect)
    try:
        yield
    finally:
        event.remove(Engine, "connect", on_connect)
        with lock:
            for keeper in keepers.values():
                keeper.close()  # the last connection: SQLite checkpoints the log here, once
            keepers.clear()
