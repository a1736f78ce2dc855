"""The rate counters' own store (pipelines/state/counters.py): counted in a file on a memory
filesystem, the day and month counters copied to the state database, a new file started
from those copies."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from pipelines.settings import Settings, get_settings
from pipelines.state import counters as counters_module
from pipelines.state.counters import Counters, counters_path, usage_engines
from pipelines.state.db import driver_transaction, state_store
from pipelines.state.limits import consume, daily_usage, rate_counters

NOW = dt.datetime(2026, 11, 23, 0, 30, 15, tzinfo=dt.UTC)  # 10:30:15 in Brisbane
LIMITS = {"minute": 100, "hour": 1000, "day": 5}


@pytest.fixture
def state(settings: Settings) -> Iterator[sa.Engine]:
    with state_store(settings) as engine:
        yield engine


def _open(settings: Settings, state: sa.Engine) -> Counters:
    return Counters(settings, state, clock=lambda: NOW)


def _count(counters: Counters, limits: dict = LIMITS, key: str = "k1") -> bool:
    with driver_transaction(counters.engine) as conn:
        return consume(conn, key, limits, NOW).allowed


def _rows(engine: sa.Engine) -> dict[tuple[str, str, str], int]:
    c = rate_counters.c
    with engine.connect() as conn:
        rows = conn.execute(sa.select(c.key_id, c.counter, c.window_start, c.count)).all()
    return {(r.key_id, r.counter, r.window_start): r.count for r in rows}


def test_counts_go_to_their_own_file_and_the_day_and_month_ones_are_copied(
    settings: Settings, state: sa.Engine, counters_dir: Path
) -> None:
    counters = _open(settings, state)
    assert counters.separate and counters.path is not None
    assert counters.path.parent == counters_dir
    assert [_count(counters) for _ in range(3)] == [True, True, True]
    assert _count(counters, {"month:phone": 30})
    assert _rows(counters.copies) == {}  # nothing on disk per request

    assert counters.flush() == 2
    assert _rows(counters.copies) == {
        ("k1", "day", "2026-11-23"): 3,
        ("k1", "month:phone", "2026-11"): 1,
    }  # minute and hour windows stay in memory
    counters.flush()  # a copy is idempotent
    assert _rows(counters.copies)[("k1", "day", "2026-11-23")] == 3
    assert _rows(state) == {}  # the keys' database never changes while the API counts
    assert counters.copies.url.database.endswith("state/bvs.counters.sqlite")  # type: ignore[union-attr]
    counters.stop()


def test_a_new_counters_file_starts_from_the_copies(settings: Settings, state: sa.Engine) -> None:
    counters = _open(settings, state)
    assert [_count(counters) for _ in range(5)] == [True] * 5
    counters.stop()  # the last copy
    assert counters.path is not None
    counters.path.unlink()  # a reboot empties /dev/shm

    again = _open(settings, state)
    assert not _count(again)  # the day's limit of 5 still holds
    assert _rows(again.engine)[("k1", "day", "2026-11-23")] == 5
    again.stop()


def test_a_copy_never_lowers_a_count(settings: Settings, state: sa.Engine) -> None:
    counters = _open(settings, state)
    _count(counters)
    with counters.copies.begin() as conn:  # a larger count copied by another worker, later
        conn.execute(
            rate_counters.insert().values(
                key_id="k1", counter="day", window_start="2026-11-23", count=7
            )
        )
    counters.flush()
    assert _rows(counters.copies)[("k1", "day", "2026-11-23")] == 7
    counters.stop()


def test_a_new_counters_file_also_starts_from_counts_in_the_state_database(
    settings: Settings, state: sa.Engine
) -> None:
    with state.begin() as conn:  # counted by a release before the copies' file
        conn.execute(
            rate_counters.insert().values(
                key_id="k1", counter="day", window_start="2026-11-23", count=5
            )
        )
    counters = _open(settings, state)
    assert not _count(counters)
    counters.stop()


def test_usage_shows_the_larger_count_of_the_file_and_the_copy(
    settings: Settings, state: sa.Engine
) -> None:
    counters = _open(settings, state)
    for _ in range(3):
        _count(counters)
    _count(counters, key="k2")
    counters.flush()
    _count(counters)  # counted, not copied yet
    usage = daily_usage(usage_engines(settings, state), NOW)
    assert usage["k1"] == {"today": 4, "total": 4, "days": 1}
    assert usage["k2"]["today"] == 1
    assert daily_usage(counters.copies, NOW)["k1"]["today"] == 3  # the copy alone lags
    counters.stop()


def test_where_the_counters_file_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BVS_COUNTERS_DIR")
    shm = tmp_path / "shm"
    shm.mkdir()
    monkeypatch.setattr(counters_module, "MEMORY_FILESYSTEM", shm)
    one = get_settings(data_dir=tmp_path / "one")
    two = get_settings(data_dir=tmp_path / "two")
    path = counters_path(one)
    assert path is not None and path.parent == shm / "bvs-counters"
    assert counters_path(two) != path  # two data folders never share counters

    monkeypatch.setattr(counters_module, "MEMORY_FILESYSTEM", tmp_path / "none")
    assert counters_path(one).parent == one.state_dir  # type: ignore[union-attr]

    server = get_settings(data_dir=tmp_path, state_url="postgresql+psycopg://db/bvs")
    assert counters_path(server) is None  # a server database counts in itself
