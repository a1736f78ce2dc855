"""Rate-limit counting (docs/api.md, docs/decisions/11-rate-limit-headers.md) on the state database itself.

The HTTP tests (tests/e2e/test_api_http.py) check the headers, the windows and 200
parallel requests through two workers; these check the counter rules underneath: admitted
requests count in every window, a refused one changes nothing, past minute and hour rows
are dropped, counting stays exact across threads, and ``write_lock`` excludes other
processes.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from pipelines.settings import Settings
from pipelines.state.db import state_store, write_lock
from pipelines.state.limits import consume, rate_counters

NOW = dt.datetime(2026, 11, 23, 0, 30, 15, tzinfo=dt.UTC)  # 10:30:15 in Brisbane


@pytest.fixture
def engine(settings: Settings) -> Iterator[sa.Engine]:
    with state_store(settings) as engine:
        yield engine


def _count(engine: sa.Engine, limits: dict, now: dt.datetime = NOW, key: str = "k1") -> bool:
    with write_lock(engine), engine.begin() as conn:
        return consume(conn, key, limits, now).allowed


def _rows(engine: sa.Engine) -> dict[tuple[str, str], int]:
    c = rate_counters.c
    with engine.connect() as conn:
        rows = conn.execute(sa.select(c.counter, c.window_start, c.count)).all()
    return {(r.counter, r.window_start): r.count for r in rows}


def test_admitted_requests_count_in_every_window_and_a_refusal_changes_nothing(
    engine: sa.Engine,
) -> None:
    limits = {"minute": 3, "hour": 10, "day": None}
    assert [_count(engine, limits) for _ in range(4)] == [True, True, True, False]
    assert _rows(engine) == {
        ("minute", "2026-11-23T10:30"): 3,
        ("hour", "2026-11-23T10"): 3,
        ("day", "2026-11-23"): 3,  # unlimited, still counted: the usage `bvs keys list` shows
    }
    with engine.begin() as conn:
        refused = consume(conn, "k1", limits, NOW)
    assert not refused.allowed
    assert [w.counter for w in refused.exceeded] == ["minute"]
    assert refused.retry_after == 45  # the minute window resets at 10:31:00
    assert refused.headers()["X-RateLimit-Remaining"] == "0"


def test_the_next_minute_is_a_new_window_and_the_past_ones_are_dropped(
    engine: sa.Engine,
) -> None:
    limits = {"minute": 1, "hour": 10, "day": None}
    assert _count(engine, limits)
    assert not _count(engine, limits)
    assert _count(engine, limits, NOW + dt.timedelta(seconds=45))  # 10:31:00
    rows = _rows(engine)
    assert ("minute", "2026-11-23T10:30") not in rows
    assert rows[("minute", "2026-11-23T10:31")] == 1
    assert rows[("hour", "2026-11-23T10")] == 2


def test_a_dry_run_reads_the_counts_without_counting(engine: sa.Engine) -> None:
    limits = {"hour": 10, "day": None}
    _count(engine, limits)
    with engine.begin() as conn:
        quiet = consume(conn, "k1", limits, NOW, dry_run=True)
    assert quiet.allowed and {w.counter: w.used for w in quiet.windows} == {"hour": 1, "day": 1}
    assert _rows(engine)[("hour", "2026-11-23T10")] == 1


def test_keys_are_counted_apart(engine: sa.Engine) -> None:
    limits = {"minute": 1, "day": None}
    assert _count(engine, limits, key="k1")
    assert _count(engine, limits, key="k2")
    assert not _count(engine, limits, key="k1")


def test_counting_is_exact_across_threads(engine: sa.Engine) -> None:
    limits = {"minute": 100, "day": None}
    admitted: list[bool] = []
    guard = threading.Lock()

    def client() -> None:
        for _ in range(40):
            ok = _count(engine, limits)
            with guard:
                admitted.append(ok)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert admitted.count(True) == 100 and len(admitted) == 320
    assert _rows(engine)[("minute", "2026-11-23T10:30")] == 100


def test_write_lock_excludes_another_process(engine: sa.Engine, settings: Settings) -> None:
    """Another process holding the lock makes this one wait, and hands it over at once."""
    holder = subprocess.Popen(
        [
            sys.executable, "-c",
            "import sys, time\n"
            "from pipelines.settings import get_settings\n"
            "from pipelines.state.db import state_store, write_lock\n"
            f"with state_store(get_settings(data_dir={str(settings.data_dir)!r})) as e:\n"
            "    with write_lock(e):\n"
            "        print('held', flush=True)\n"
            "        time.sleep(1.0)\n",
        ],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        began = time.perf_counter()
        with write_lock(engine):
            waited = time.perf_counter() - began
    finally:
        holder.wait(timeout=30)
    assert 0.5 < waited < 1.5, waited


def test_premium_quota_counts_per_month_in_brisbane_and_then_limits(settings: Settings) -> None:
    """docs/ledgers.md / 8.8: an Individual key's premium checks (phone, street view) count against a
    monthly quota; past it they come back limited until the 1st of the next month, Brisbane
    time. The API charges only the premium checks that ran (docs/decisions/18-a-check-that-did-not-run-is-unknown.md); none do
    in this deployment yet, so the counting is tested here, on the gatekeeper itself."""
    from pipelines.api.app import Gatekeeper
    from pipelines.state.keys import create_key

    settings = settings.model_copy(
        update={"plan_limits": '{"individual": {"premium_per_month": 2}}'}
    )
    now = [dt.datetime(2026, 11, 23, 0, 30, tzinfo=dt.UTC)]
    gate = Gatekeeper(settings, lambda: now[0])
    try:
        _, key = create_key(gate.engine, "premium", "individual")
        plan = gate.plans["individual"]
        assert gate.premium(key, plan, ["phone", "street_view"]) == {}
        assert gate.premium(key, plan, ["phone"]) == {}
        limited = gate.premium(key, plan, ["phone", "street_view"])
        assert set(limited) == {"phone"}  # street view has one left
        assert limited["phone"] == dt.datetime(2026, 11, 30, 14, 0, tzinfo=dt.UTC)
        assert gate.premium(key, plan, ["abn_status"]) == {}  # not premium: not counted
        now[0] = dt.datetime(2026, 11, 30, 14, 0, tzinfo=dt.UTC)  # 1 December in Brisbane
        assert gate.premium(key, plan, ["phone"]) == {}
    finally:
        gate.engine.dispose()
