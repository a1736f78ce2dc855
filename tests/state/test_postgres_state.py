"""The API's state on a PostgreSQL server (``BVS_STATE_URL``), as several API machines share
it: keys, rate counters and usage, against a real server started for this module
(tests/postgres_server.py). Each machine is an engine of its own here, with its own data and
counters folders; tests/e2e/test_api_postgres.py runs two `bvs serve` instances on it.
Skipped only when no PostgreSQL binaries exist (`.ci/run` installs them)."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy as sa

from pipelines.settings import Settings, get_settings
from pipelines.state.counters import Counters
from pipelines.state.db import create_state_engine, driver_reads, driver_transaction
from pipelines.state.keys import authenticate, create_key, revoke_key
from pipelines.state.limits import consume, daily_usage, rate_counters
from tests.postgres_server import PostgresServer, postgres_bin_dir, postgres_server

NOW = dt.datetime(2026, 11, 23, 0, 30, 15, tzinfo=dt.UTC)  # 10:30:15 in Brisbane


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    if postgres_bin_dir() is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    with postgres_server("max_connections=200") as server:
        yield server


_DATABASES = itertools.count()


@pytest.fixture
def state_url(postgres: PostgresServer) -> str:
    """A new empty database on the module's server."""
    return postgres.create_database(f"bvs_state_{next(_DATABASES)}")


@pytest.fixture
def machine(
    tmp_path: Path, state_url: str
) -> Iterator[Callable[[str], tuple[Settings, sa.Engine]]]:
    """``machine(name)``: the settings and state engine of one API machine: its own data and
    counters folders, the one PostgreSQL state."""
    engines: list[sa.Engine] = []

    def make(name: str) -> tuple[Settings, sa.Engine]:
        settings = get_settings(
            data_dir=tmp_path / name / "data",
            counters_dir=tmp_path / name / "counters",
            state_url=state_url,
        )
        engine = create_state_engine(settings)
        engines.append(engine)
        return settings, engine

    yield make
    for engine in engines:
        engine.dispose()


def test_the_tables_are_created_once_when_every_worker_starts_at_once(state_url: str) -> None:
    """Eight workers open a new state database together: none fails (two concurrent CREATE
    TABLEs of one name fail on PostgreSQL unless serialised)."""
    barrier = threading.Barrier(8)
    settings = get_settings(state_url=state_url)

    def start(_: int) -> list[str]:
        barrier.wait()
        engine = create_state_engine(settings)
        try:
            return sorted(sa.inspect(engine).get_table_names())
        finally:
            engine.dispose()

    with ThreadPoolExecutor(8) as pool:
        tables = list(pool.map(start, range(8)))
    assert all("rate_counters" in t and "api_keys" in t for t in tables)
    assert len({tuple(t) for t in tables}) == 1


def test_two_machines_admit_exactly_the_limit_between_them(
    machine: Callable[[str], tuple[Settings, sa.Engine]],
) -> None:
    """300 requests of one key at once, 12 threads on each of two machines, a limit of 50 a
    minute: exactly 50 admitted, and the refused ones left the counts as they were."""
    machines = []
    for name in ("a", "b"):
        settings, engine = machine(name)
        counters = Counters(settings, engine, clock=lambda: NOW)
        assert not counters.separate and counters.path is None  # counted on the server
        machines.append(counters)
    limits = {"minute": 50, "hour": 1000, "day": 100_000}
    barrier = threading.Barrier(24)

    def one(i: int) -> bool:
        if i < 24:
            barrier.wait()
        with driver_transaction(machines[i % 2].engine) as conn:
            return consume(conn, "k1", limits, NOW).allowed

    with ThreadPoolExecutor(24) as pool:
        admitted = list(pool.map(one, range(300)))
    assert admitted.count(True) == 50
    # both machines admitted some (the load reached both), and their counts are one count
    assert {i % 2 for i, ok in enumerate(admitted) if ok} == {0, 1}
    c = rate_counters.c
    with machines[1].engine.connect() as conn:
        counts = dict(conn.execute(sa.select(c.counter, c.count).where(c.key_id == "k1")).all())
    assert counts == {"minute": 50, "hour": 50, "day": 50}
    assert daily_usage(machines[0].engine, NOW)["k1"] == {"today": 50, "total": 50, "days": 1}


def test_a_premium_quota_is_one_quota_across_machines(
    machine: Callable[[str], tuple[Settings, sa.Engine]],
) -> None:
    engines = [machine(name)[1] for name in ("a", "b")]
    results = []
    for i in range(8):
        with driver_transaction(engines[i % 2]) as conn:
            results.append(consume(conn, "k1", {"month:phone": 5}, NOW).allowed)
    assert results == [True] * 5 + [False] * 3


def test_a_key_revoked_on_one_machine_is_refused_by_the_other_at_once(
    machine: Callable[[str], tuple[Settings, sa.Engine]],
) -> None:
    _, first = machine("a")
    _, second = machine("b")
    key, record = create_key(first, "shared", "enterprise")
    with driver_reads(second) as reads:
        found = authenticate(reads, key)
    assert found is not None and found.key_id == record.key_id
    revoke_key(first, record.key_id)
    with driver_reads(second) as reads:
        assert authenticate(reads, key) is None


def test_the_counters_folder_is_not_used_with_a_server(
    machine: Callable[[str], tuple[Settings, sa.Engine]],
) -> None:
    settings, engine = machine("a")
    counters = Counters(settings, engine, clock=lambda: NOW)
    counters.start()
    with driver_transaction(counters.engine) as conn:
        assert consume(conn, "k1", {"day": 3}, NOW).allowed
    assert counters.flush() == 0
    c = rate_counters.c
    with engine.connect() as conn:  # counted in the server's database
        assert conn.execute(sa.select(c.count).where(c.key_id == "k1")).scalar_one() == 1
    counters.stop()
    assert settings.counters_dir is not None and not settings.counters_dir.exists()
    assert not settings.state_dir.exists()  # no SQLite file beside it either


def test_counts_commit_without_waiting_for_the_disk_and_keys_with_it(
    machine: Callable[[str], tuple[Settings, sa.Engine]],
) -> None:
    """A request's count need not survive a crash of the server (at most its last fraction
    of a second is lost); a key or a revocation must."""
    settings, engine = machine("a")
    counters = Counters(settings, engine, clock=lambda: NOW)
    with counters.engine.connect() as conn:
        assert conn.exec_driver_sql("show synchronous_commit").scalar() == "off"
    with engine.connect() as conn:
        assert conn.exec_driver_sql("show synchronous_commit").scalar() == "on"
    counters.stop()
