"""Two API machines behind a load balancer, one PostgreSQL state (docs/api.md, "More than one
machine"): two `bvs serve` instances, each with its own copy of the published snapshot, its
own data and counters folders and two worker processes, and `BVS_STATE_URL` naming one
PostgreSQL server started for this module (tests/postgres_server.py). Keys are created and
revoked with `bvs keys` on one machine; requests go to both.

Skipped only when no PostgreSQL binaries exist (`.ci/run` installs them).
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import requests
from api_server import data_copy, free_port

from pipelines.settings import BRISBANE, get_settings
from pipelines.warehouse.snapshot import current_snapshot
from tests.postgres_server import PostgresServer, postgres_bin_dir, postgres_server

pytestmark = pytest.mark.slow

BVS = str(Path(sys.executable).with_name("bvs"))
VERIFY = "/api/robot/verify/{abn}"
DAY_LIMIT = 150  # the Enterprise plan's daily limit for this test (BVS_PLAN_LIMITS)
PLAN_LIMITS = json.dumps(
    {"enterprise": {"per_minute": None, "per_hour": None, "per_day": DAY_LIMIT}}
)


@dataclass
class Machine:
    url: str
    env: dict[str, str]
    counters: Path
    process: subprocess.Popen[bytes]

    def bvs(self, *args: str) -> str:
        done = subprocess.run(
            [BVS, *args], env=self.env, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def verify(self, abn: str, key: str, **params: str) -> int:
        return requests.get(
            self.url + VERIFY.format(abn=abn),
            params=params,
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        ).status_code


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    if postgres_bin_dir() is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    with postgres_server() as server:
        yield server


@pytest.fixture(scope="module")
def machines(
    pipeline_world: dict, postgres: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[Machine]]:
    """Two `bvs serve` instances (two workers each) on one PostgreSQL state."""
    published = pipeline_world["data"]
    state_url = postgres.create_database("bvs_api")
    root = tmp_path_factory.mktemp("two-machines")
    started: list[Machine] = []
    try:
        for name in ("a", "b"):
            data = data_copy(published, root / name / "data")  # the snapshot copied to each
            port = free_port()
            env = {
                **os.environ,
                "BVS_DATA_DIR": str(data),
                "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
                "BVS_STATE_URL": state_url,
                "BVS_COUNTERS_DIR": str(root / name / "counters"),
                "BVS_PLAN_LIMITS": PLAN_LIMITS,
                "BVS_API_WORKERS": "2",
            }
            process = subprocess.Popen(
                [BVS, "serve", "--port", str(port), "--log-level", "warning"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            started.append(
                Machine(f"http://127.0.0.1:{port}", env, root / name / "counters", process)
            )
        deadline = time.monotonic() + 90
        for machine in started:
            while True:
                try:
                    if requests.get(f"{machine.url}/health", timeout=2).status_code == 200:
                        break
                except requests.ConnectionError:
                    pass
                assert machine.process.poll() is None, "bvs serve stopped"
                assert time.monotonic() < deadline, "bvs serve did not start"
                time.sleep(0.2)
        yield started
    finally:
        for machine in started:
            machine.process.terminate()
        for machine in started:
            machine.process.wait(timeout=30)


@pytest.fixture(scope="module")
def abn(pipeline_world: dict) -> str:
    info = current_snapshot(get_settings(data_dir=pipeline_world["data"]))
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        found = con.execute(
            "select abn from marts.verifications where status = 'Active' order by abn limit 1"
        ).fetchone()
    finally:
        con.close()
    assert found
    return str(found[0])


def _clear_of_midnight() -> None:
    """The daily window resets at midnight in Brisbane: start well inside one day."""
    now = dt.datetime.now(BRISBANE)
    left = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), BRISBANE) - now
    if left < dt.timedelta(seconds=60):
        time.sleep(left.total_seconds() + 1)


def test_two_machines_admit_exactly_the_plans_limit_between_them(
    machines: list[Machine], abn: str
) -> None:
    """400 requests of one key at once, half to each machine, a limit of 150 a day: exactly
    150 answered between them, the rest 429, and `bvs keys list` on either machine shows
    150 used."""
    first, second = machines
    key = first.bvs("keys", "create", "--name", "burst", "--plan", "enterprise").strip()
    _clear_of_midnight()
    total = 400
    barrier = threading.Barrier(total)

    def one(i: int) -> tuple[int, int]:
        barrier.wait()
        return i % 2, machines[i % 2].verify(abn, key, cache="false")

    with cf.ThreadPoolExecutor(max_workers=total) as pool:
        answers = list(pool.map(one, range(total)))
    codes = Counter(code for _, code in answers)
    assert codes == Counter({200: DAY_LIMIT, 429: total - DAY_LIMIT})
    # every request was answered by the machine it went to (half each); with a count per
    # machine instead of one, 300 would have been answered
    assert Counter(where for where, code in answers if code in (200, 429)) == {0: 200, 1: 200}
    for machine in machines:
        listed = json.loads(machine.bvs("keys", "list", "--json"))
        burst = next(k for k in listed if k["name"] == "burst")
        assert burst["requests_today"] == DAY_LIMIT
        # counted on the server only: nothing in either machine's counters folder
        assert not machine.counters.exists() or not any(machine.counters.iterdir())
    assert second.verify(abn, key) == 429


def test_a_key_revoked_on_one_machine_is_refused_by_the_other_at_once(
    machines: list[Machine], abn: str
) -> None:
    first, second = machines
    key = first.bvs("keys", "create", "--name", "leaving", "--plan", "enterprise").strip()
    assert second.verify(abn, key) == 200  # created on one, accepted by the other
    assert second.verify(abn, key) == 200  # and its answer is now in the verify cache
    key_id = key.split("_")[1]
    assert json.loads(first.bvs("keys", "revoke", key_id))["revoked"] == key_id
    assert second.verify(abn, key) == 401  # the next request, cached answer or not
    assert first.verify(abn, key) == 401
