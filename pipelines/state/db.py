"""The state database: API keys, rate-limit counters, watches and alerts.

SQLAlchemy Core on ``settings.state_database_url``. The default is a SQLite file under
``<data_dir>/state/`` (WAL journal, so readers never wait for the writer); a deployment with
more than one machine points ``BVS_STATE_URL`` at a PostgreSQL server
(``postgresql+psycopg://user:pass@host/bvs``; the psycopg driver is a dependency) and
nothing else changes: keys, rate counters, usage and watches are then one state for every
API machine (tests/state/test_postgres_state.py, tests/e2e/test_api_postgres.py).

Every write transaction on SQLite starts with ``BEGIN IMMEDIATE``: it takes the write lock
at once, so a read-check-write sequence (the rate limiter) is serialised across threads and
worker processes, and a busy writer is waited for (``busy_timeout``) instead of failing.
On PostgreSQL the same code locks the rows it writes (the limiter's upsert).

SQLite waits for a busy lock by sleeping (1, 2, 5, 10 … ms), which is the tail latency of
a request when two API workers count requests at once. The limiter's transaction therefore
runs inside ``write_lock(engine)``: an exclusive ``flock`` on ``<database>.lock`` (and a
thread lock, since flock does not exclude threads of one process) that the kernel hands to
the next waiter the moment it is released. Other writers (``bvs keys``, watches) are rare
and rely on ``busy_timeout``.

The API reads the key through ``driver_reads`` and counts the request through
``driver_transaction``, on the counters' own store (``pipelines.state.counters``): the same ``text()`` statements, compiled once for the engine's
dialect and executed on the driver's own cursor. SQLAlchemy's per-statement machinery costs
about ten times the work SQLite does for these statements (0.5 ms against 0.05 ms a
request, measured), which at a thousand requests a second is a quarter of a core.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from pipelines.settings import Settings
from pipelines.state.tables import metadata

__all__ = ["metadata"]  # the tables' (pipelines/state/tables.py), re-exported for callers

SQLITE_BUSY_TIMEOUT_SECONDS = 30
# the PostgreSQL advisory lock held while the tables are created (any fixed number)
SCHEMA_LOCK_ID = 0x62767321


def create_state_engine(settings: Settings) -> sa.Engine:
    """An engine on the state database, its tables created if missing."""
    url = sa.make_url(settings.state_database_url)
    if url.get_backend_name() != "sqlite":
        engine = sa.create_engine(url, pool_pre_ping=True)
    else:
        if settings.state_url is None:
            settings.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        engine = sqlite_engine(url)
    if engine.dialect.name == "postgresql":
        # the API's workers on every machine start together: one creates the tables while
        # the others wait (two concurrent CREATE TABLEs of one name fail on PostgreSQL)
        with engine.begin() as conn:
            conn.execute(sa.text("select pg_advisory_xact_lock(:id)"), {"id": SCHEMA_LOCK_ID})
            metadata.create_all(conn)
            _add_missing_columns(conn)
        return engine
    metadata.create_all(engine)
    with engine.begin() as conn:
        _add_missing_columns(conn)
    return engine


def server_counting_engine(state: sa.Engine) -> sa.Engine:
    """The engine the API counts requests on when the state is a database server: on
    PostgreSQL a second engine on the same database whose transactions commit without
    waiting for the server's WAL to reach its disk (``synchronous_commit=off``): the count
    is visible to every machine at once; only a crash of the server can lose the last
    fraction of a second of counts. Keys, revocations and watches keep the state engine's
    durable commits. Other databases: the state engine itself."""
    if state.dialect.name != "postgresql":
        return state
    return sa.create_engine(
        state.url,
        pool_pre_ping=True,
        connect_args={"options": "-c synchronous_commit=off"},
    )


def _add_missing_columns(conn: sa.Connection) -> None:
    """Columns added to a table after a deployment created it (create_all adds tables, not
    columns): added empty, so an older state database keeps working."""
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        if not inspector.has_table(table.name):
            continue
        present = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in present and column.nullable:
                kind = column.type.compile(dialect=conn.dialect)
                # names come from the declared tables
                conn.exec_driver_sql(f'alter table {table.name} add column "{column.name}" {kind}')


def sqlite_engine(url: sa.URL | Path, *, synchronous: str = "normal") -> sa.Engine:
    """An engine on a SQLite file: WAL, ``BEGIN IMMEDIATE`` writes, ``synchronous`` as given
    (normal: durable at every checkpoint, fast commits; off: for a file in memory)."""
    if isinstance(url, Path):
        url = sa.URL.create("sqlite", database=str(url))
    if url.database and url.database != ":memory:" and not url.database.startswith("file:"):
        owner_only(Path(url.database))
    engine = sa.create_engine(
        url,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
    )
    _serialise_sqlite_writes(engine, synchronous)
    return engine


def _serialise_sqlite_writes(engine: sa.Engine, synchronous: str) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("pragma journal_mode=wal")
        cursor.execute(f"pragma synchronous={synchronous}")
        cursor.execute(f"pragma busy_timeout={SQLITE_BUSY_TIMEOUT_SECONDS * 1000}")
        cursor.execute("pragma foreign_keys=on")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        connection.exec_driver_sql("begin immediate")


def owner_only(database: Path) -> None:
    """The database file readable and writable by its owner only (0600), created so if
    missing: it holds API key hashes, owners and customers. SQLite gives its WAL and
    shared-memory files the database file's mode."""
    fd = os.open(database, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)  # a file an older version created 0644
    finally:
        os.close(fd)
    for companion in ("-wal", "-shm", ".lock"):
        path = database.with_name(database.name + companion)
        if path.exists():
            path.chmod(0o600)


class _FileLock:
    """An exclusive lock across threads and processes on one file."""

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + ".lock")
        self._thread_lock = threading.Lock()
        self._fd: int | None = None
        self._pid = -1

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._thread_lock:
            if self._fd is None or self._pid != os.getpid():  # opened anew after a fork
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
                self._pid = os.getpid()
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)


_LOCKS: dict[str, _FileLock] = {}  # database path as the URL gives it -> its lock
_LOCKS_GUARD = threading.Lock()


@contextmanager
def write_lock(engine: sa.Engine) -> Iterator[None]:
    """Serialise a short write transaction with the other processes' (SQLite files only;
    a server database locks rows itself, so this is a no-op there)."""
    database = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    if not database or database == ":memory:":
        yield
        return
    lock = _LOCKS.get(database)
    if lock is None:
        with _LOCKS_GUARD:
            lock = _LOCKS.setdefault(database, _FileLock(Path(database).resolve()))
    with lock.held():
        yield


Statement = sa.TextClause | sa.TextualSelect


class DriverSession:
    """Runs ``text()`` statements on a driver cursor, each compiled once for the dialect."""

    _compiled: dict[tuple[str, int], tuple[str, Sequence[str] | None]] = {}

    def __init__(self, cursor: Any, dialect: sa.Dialect) -> None:
        self.cursor = cursor
        self.dialect = dialect

    def run(self, statement: Statement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        key = (self.dialect.name, id(statement))
        found = self._compiled.get(key)
        if found is None:
            compiled = statement.compile(dialect=self.dialect)
            found = (compiled.string, compiled.positiontup)
            self._compiled[key] = found
        sql, positions = found
        self.cursor.execute(sql, [params[name] for name in positions] if positions else params)
        return list(self.cursor.fetchall()) if self.cursor.description else []


def run(
    conn: sa.Connection | DriverSession, statement: Statement, params: Mapping[str, Any]
) -> list[Any]:
    """Rows of a ``text()`` statement on either a SQLAlchemy connection or a driver session."""
    if isinstance(conn, DriverSession):
        return conn.run(statement, params)
    result = conn.execute(statement, dict(params))
    return list(result.all()) if result.returns_rows else []


@contextmanager
def driver_transaction(engine: sa.Engine) -> Iterator[DriverSession]:
    """A short write transaction on a pooled driver connection, serialised by
    ``write_lock``; committed on success, rolled back on any error. Statements must be
    module-level ``text()`` objects (they are compiled once, keyed by identity)."""
    with write_lock(engine):
        raw = engine.raw_connection()
        cursor = raw.cursor()
        try:
            if engine.dialect.name == "sqlite":
                cursor.execute("begin immediate")  # the driver runs in autocommit mode
            yield DriverSession(cursor, engine.dialect)
            raw.commit()
        except BaseException:
            raw.rollback()
            raise
        finally:
            cursor.close()
            raw.close()  # back to the pool


@contextmanager
def driver_reads(engine: sa.Engine) -> Iterator[DriverSession]:
    """Reads on a pooled driver connection, outside any write transaction (SQLite's WAL:
    they never wait for a writer)."""
    raw = engine.raw_connection()
    cursor = raw.cursor()
    try:
        yield DriverSession(cursor, engine.dialect)
        if engine.dialect.name != "sqlite":
            raw.commit()  # end the server's implicit transaction
    except BaseException:
        raw.rollback()
        raise
    finally:
        cursor.close()
        raw.close()


@contextmanager
def state_store(settings: Settings) -> Iterator[sa.Engine]:
    """The state database for the length of a command."""
    engine = create_state_engine(settings)
    try:
        yield engine
    finally:
        engine.dispose()
