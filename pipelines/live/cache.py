"""Results per (provider, key) with a time to live, in a SQLite file that survives restarts.

docs/api.md: a result under 24 hours old is used again. Only answers are kept under a result's
key; a provider's rate limit is kept apart, under provider ``rate_limit`` and its endpoint,
until its ``retry_at`` (checker.py), so that no result says "rate limited" and a restarted
run still honours it. One connection shared by every thread behind a lock (SQLite in WAL mode): however many
checks run at once, the cache's memory is one connection's.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
create table if not exists live_cache (
    provider text not null,
    key text not null,
    fetched_at real not null,
    expires_at real not null,
    value text not null,
    primary key (provider, key)
)
"""


class Cache:
    def __init__(self, path: Path | None, ttl_seconds: float) -> None:
        """``path`` None keeps nothing (every lookup is fresh)."""
        self.path = path
        self.ttl = ttl_seconds
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            con.execute("pragma journal_mode=wal")
            con.execute("pragma synchronous=normal")
            con.execute(SCHEMA)
            self._connection = con

    def _con(self) -> _Locked:
        assert self._connection is not None
        return _Locked(self._connection, self._lock)

    def get(self, provider: str, key: str, now: float | None = None) -> Any | None:
        """The cached value, or None when absent or expired."""
        if self.path is None:
            return None
        rows = self._con().execute(
            "select value, expires_at from live_cache where provider = ? and key = ?",
            (provider, key),
        )
        row = rows[0] if rows else None
        if row is None or row[1] <= (time.time() if now is None else now):
            return None
        return json.loads(row[0])

    def put(self, provider: str, key: str, value: Any, *, expires_at: float | None = None) -> None:
        if self.path is None:
            return
        now = time.time()
        self._con().execute(
            "insert or replace into live_cache values (?, ?, ?, ?, ?)",
            (provider, key, now, now + self.ttl if expires_at is None else expires_at,
             json.dumps(value, default=str)),
        )  # fmt: skip

    def fresh_keys(self, provider: str, keys: list[str]) -> set[str]:
        """Which of ``keys`` have an unexpired entry (a resumed run skips them)."""
        if self.path is None or not keys:
            return set()
        now = time.time()
        found: set[str] = set()
        con = self._con()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                r[0]
                for r in con.execute(
                    f"select key from live_cache where provider = ? and expires_at > ? and key in ({marks})",
                    (provider, now, *chunk),
                )
            )
        return found

    def entries(self, provider: str) -> list[tuple[str, Any]]:
        """Every unexpired (key, value) of ``provider``."""
        if self.path is None:
            return []
        rows = self._con().execute(
            "select key, value from live_cache where provider = ? and expires_at > ?",
            (provider, time.time()),
        )
        return [(key, json.loads(value)) for key, value in rows]

    def clear(self, provider: str, key: str) -> None:
        if self.path is not None:
            self._con().execute(
                "delete from live_cache where provider = ? and key = ?", (provider, key)
            )


class _Locked:
    """``execute`` on the shared connection under the lock, results fetched inside it."""

    def __init__(self, con: sqlite3.Connection, lock: threading.Lock) -> None:
        self.con, self.lock = con, lock

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self.lock:
            return self.con.execute(sql, params).fetchall()
