"""Benchmark: verify latency with the API's state on SQLite (one machine: keys in the state
file, counters in /dev/shm) and on a PostgreSQL server (several machines: ``BVS_STATE_URL``),
side by side, same snapshot, same load, same moment of the machine.

For each state, in turn (``--repeat`` rounds, alternating, so both see the same neighbours):

1. ``bvs serve --workers 2`` on a copy of bench_api's base snapshot (the sample run once
   through the pipeline; the verify lookup is read into memory, so the snapshot's size
   matters little to a verify), an Enterprise key with its limits raised through
   ``BVS_PLAN_LIMITS`` (every request is still read, authenticated and counted).
2. Capacity: 8 keep-alive connections, closed loop, ``--seconds`` / 2.
3. Verify at ``--rate`` requests a second, open loop (latency from when each request was
   due), ``--seconds``, 64 connections, random ABNs, ``cache=false``.

PostgreSQL: a local server started by this script (tests/postgres_server.py) with fsync on
(durable commits, as a production server runs), over TCP on 127.0.0.1; ``--pg-option``
adds server settings (``synchronous_commit=off``). The CPU seconds of the API's processes and
of the PostgreSQL server's are read from /proc around the fixed-rate phase and given per
request: what the state costs, beside what the request costs.

    python tests/benchmarks/bench_api_state.py --rate 1000 --seconds 30 --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_api import BENCH, BVS, Load, _env, _for, base_snapshot  # noqa: E402

from tests.postgres_server import PostgresServer, postgres_server  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def cpu_seconds(root: int) -> float:
    """User + system CPU seconds of ``root`` and its descendants now (children that ended
    and were waited for included)."""
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
        todo.extend(_children(pid))
    return total / TICK


def _serve(data: Path, extra: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    import requests

    port = 8000 + random.Random().randrange(2000, 3000)
    limits = json.dumps({"enterprise": {"per_minute": 10**9, "per_hour": 10**9, "per_day": 10**9}})
    server = subprocess.Popen(
        [BVS, "serve", "--port", str(port), "--workers", "2", "--log-level", "warning"],
        env=_env(data, BVS_PLAN_LIMITS=limits, **extra),
    )  # fmt: skip
    deadline, ready = time.monotonic() + 300, 0
    try:
        while ready < 20:
            try:
                health = requests.get(f"http://127.0.0.1:{port}/health", timeout=10)
                ready = ready + 1 if health.ok and health.json()["snapshot"]["preload"] else 0
            except requests.RequestException:
                ready = 0
            assert server.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05 if ready else 0.3)
    except BaseException:
        server.terminate()
        server.wait(timeout=30)
        raise
    return server, port


def one_round(
    state: str, base: Path, abns: list[str], args: argparse.Namespace, pg: PostgresServer | None
) -> dict:
    from pipelines.settings import get_settings
    from pipelines.state.db import state_store
    from pipelines.state.keys import create_key

    data = BENCH / f"api-state-{state}"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    shutil.copytree(base / "serving", data / "serving")
    extra: dict[str, str] = {}
    if pg is not None:
        name = f"bvs_{state}_{int(time.time() * 1000)}"
        extra["BVS_STATE_URL"] = pg.create_database(name)
    settings = get_settings(data_dir=data, state_url=extra.get("BVS_STATE_URL"))
    with state_store(settings) as engine:
        key, _ = create_key(engine, "bench", "enterprise")
    paths = [f"/api/robot/verify/{a}?cache=false" for a in abns]
    server, port = _serve(data, extra)
    try:
        warm = Load(port, key, paths, 8)

        async def warm_up() -> None:
            asyncio.get_running_loop().call_later(5, warm.stop.set)
            await warm.run()

        asyncio.run(warm_up())
        capacity = asyncio.run(_for(Load(port, key, paths, 8), args.seconds / 2))
        api_before = cpu_seconds(server.pid)
        pg_before = cpu_seconds(pg.postmaster_pid()) if pg is not None else 0.0
        load = Load(port, key, paths, 64, args.rate)
        fixed = asyncio.run(_for(load, args.seconds))
        api_cpu = cpu_seconds(server.pid) - api_before
        pg_cpu = (cpu_seconds(pg.postmaster_pid()) - pg_before) if pg is not None else 0.0
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)
    requests_done = max(fixed["requests"], 1)
    return {
        "state": state,
        "load": os.getloadavg()[0],
        "capacity": capacity,
        "fixed_rate": fixed,
        "api_cpu_ms_per_request": round(1000 * api_cpu / requests_done, 3),
        "state_server_cpu_ms_per_request": round(1000 * pg_cpu / requests_done, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=1000, help="verify requests a second")
    parser.add_argument("--seconds", type=float, default=30, help="the fixed-rate phase")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--pg-option",
        action="append",
        default=[],
        help="a PostgreSQL server setting, name=value (repeatable)",
    )
    parser.add_argument(
        "--states", default="sqlite,postgres", help="which states, in this order each round"
    )
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    base = base_snapshot()
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import current_snapshot

    info = current_snapshot(get_settings(data_dir=base))
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    abns = [r[0] for r in con.execute("select abn from marts.verifications").fetchall()]
    con.close()
    states = args.states.split(",")
    results = []
    with postgres_server("max_connections=200", *args.pg_option, fsync=True) as pg:
        for _ in range(args.repeat):
            for state in states:
                found = one_round(state, base, abns, args, pg if state == "postgres" else None)
                print(json.dumps(found), flush=True)
                results.append(found)
    summary = {}
    for state in states:
        rounds = [r for r in results if r["state"] == state]
        summary[state] = {
            "p50_ms": [r["fixed_rate"]["p50_ms"] for r in rounds],
            "p99_ms": [r["fixed_rate"]["p99_ms"] for r in rounds],
            "max_ms": [r["fixed_rate"]["max_ms"] for r in rounds],
            "failed": sum(r["fixed_rate"]["failed"] for r in rounds),
            "capacity_rps": [r["capacity"]["rps"] for r in rounds],
            "api_cpu_ms_per_request": [r["api_cpu_ms_per_request"] for r in rounds],
            "state_server_cpu_ms_per_request": [
                r["state_server_cpu_ms_per_request"] for r in rounds
            ],
            "load": [round(r["load"], 1) for r in rounds],
        }
    print(
        json.dumps(
            {
                "abns_in_snapshot": len(abns),
                "rate": args.rate,
                "seconds": args.seconds,
                "pg_options": args.pg_option,
                "summary": summary,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
