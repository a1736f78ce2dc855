"""Benchmark: the read API over HTTP — verify throughput and latency, search latency, and a
snapshot published mid-run with zero failed requests.

1. A base: the sample (20,000 ABNs) run through the whole pipeline once (cached under
   ``.bench/api-base``).
2. A big snapshot: the base's marts with ``marts.verifications`` replicated to ``--abns``
   ABNs (new valid ABNs, the sample's rows repeated), published with ``publish_snapshot``
   and its verify lookup, as the pipeline does.
3. ``bvs serve`` with ``--workers`` processes; a key on the Enterprise plan with its limits
   raised through ``BVS_PLAN_LIMITS`` (the limiter still counts every request).
4. The client: ``--connections`` keep-alive HTTP/1.1 connections on one asyncio loop (uvloop)
   in this process, random ABNs, for ``--seconds``; halfway through, a second snapshot is
   published by a separate process. Every non-200 answer counts as a failure.
5. Search: the same for ``/search`` with queries for each tier, fewer connections.

    python tests/benchmarks/bench_api.py --abns 2000000
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
from collections import Counter
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / ".bench"
BVS = str(Path(sys.executable).with_name("bvs"))
AS_OF = "2026-11-20"


def _env(data: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(data / "dagster_home"),
        "CI": "true",
        **extra,
    }


def base_snapshot() -> Path:
    """The sample run once through the pipeline; returns its data folder."""
    base = BENCH / "api-base"
    if (base / "serving" / "CURRENT").exists():
        return base
    shutil.rmtree(base, ignore_errors=True)
    env = _env(base)
    subprocess.run(
        [BVS, "sample", "--out", str(base / "landing"), "--scale", "20000"],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    subprocess.run([BVS, "run", "--as-of", AS_OF], env=env, check=True, capture_output=True)
    return base


def build_warehouse(base: Path, work: Path, abns: int) -> float:
    """A warehouse whose marts are the base's, verifications replicated to ``abns`` rows."""
    from pipelines.identifiers import abn_with_check_digits
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import current_snapshot

    info = current_snapshot(get_settings(data_dir=base))
    assert info is not None
    started = time.perf_counter()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    con = duckdb.connect(str(work / "warehouse.duckdb"))
    con.execute(f"attach '{info.path}' as base (read_only)")
    con.execute("create schema marts")
    tables = con.execute(
        "select table_name, table_type from information_schema.tables"
        " where table_catalog = 'base' and table_schema = 'marts'"
    ).fetchall()
    for name, kind in tables:
        if name not in ("verifications", "tiles") and kind == "BASE TABLE":
            con.execute(f"create table marts.{name} as select * from base.marts.{name}")
    base_rows = con.execute("select count(*) from base.marts.verifications").fetchall()[0][0]
    import pyarrow as pa

    numbers = random.Random(7).sample(range(10_000_000, 999_999_999), abns)
    new_abns = pa.table(
        {
            "n": pa.array(range(abns), pa.int64()),
            "new_abn": [abn_with_check_digits(f"{x:09d}") for x in numbers],
        }
    )
    con.register("new_abns", new_abns)
    con.execute(
        f"""
        create table marts.verifications as
        with base as (
            select *, row_number() over (order by abn) - 1 as k from base.marts.verifications
        )
        select base.* exclude (abn, k), new_abn as abn
        from new_abns join base on base.k = new_abns.n % {base_rows}
        order by abn
        """
    )
    con.execute("create table meta_ok as select 1")  # the warehouse is ready
    con.close()
    return time.perf_counter() - started


def publish(work: Path) -> dict:
    """Publish a snapshot of ``work``'s warehouse (with the verify lookup); returns timings."""
    import datetime as dt

    from pipelines.serving.lookup import build_verify_lookup
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import publish_snapshot

    settings = get_settings(data_dir=work, warehouse_path=work / "warehouse.duckdb")
    started = time.perf_counter()
    con = duckdb.connect(str(settings.warehouse))
    try:
        info = publish_snapshot(
            con,
            settings,
            as_of=dt.date.fromisoformat(AS_OF),
            sidecars={"verify": build_verify_lookup},
        )
    finally:
        con.close()
    return {"snapshot_id": info.snapshot_id, "seconds": round(time.perf_counter() - started, 1)}


async def _load(
    port: int, key: str, paths: list[str], seconds: float, connections: int,
    on_half: asyncio.Future | None = None,
) -> tuple[list[float], Counter[int], set[str]]:  # fmt: skip
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    snapshots: set[str] = set()
    deadline = time.perf_counter() + seconds
    rng = random.Random(11)

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < deadline:
            path = paths[rng.randrange(len(paths))]
            request = (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\r\n"
            ).encode()
            began = time.perf_counter()
            writer.write(request)
            status_line = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            latencies.append(time.perf_counter() - began)
            status = int(status_line.split()[1])
            statuses[status] += 1
            if status == 200 and b'"snapshot_id"' in body[-120:]:
                snapshots.add(json.loads(body)["snapshot_id"])
        writer.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return latencies, statuses, snapshots


def _percentiles(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)

    def at(p: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)

    return {"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": at(1.0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abns", type=int, default=2_000_000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--publish-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.publish_only:
        print(json.dumps(publish(args.publish_only)))
        return 0
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass

    base = base_snapshot()
    work = BENCH / f"api-{args.abns}"
    built = build_warehouse(base, work, args.abns)
    first = publish(work)
    print(f"snapshot of {args.abns:,} ABNs: warehouse {built:.1f} s, publish {first['seconds']} s")

    from pipelines.settings import get_settings
    from pipelines.state.db import state_store
    from pipelines.state.keys import create_key

    with state_store(get_settings(data_dir=work)) as engine:
        key, _ = create_key(engine, "bench", "enterprise")
    con = duckdb.connect(str(work / "warehouse.duckdb"), read_only=True)
    abns = [
        r[0]
        for r in con.execute("select abn from marts.verifications using sample 20000").fetchall()
    ]
    names = [
        r[0]
        for r in con.execute("select legal_name from marts.entities using sample 200").fetchall()
    ]
    con.close()
    port = 8000 + random.Random().randrange(1000, 2000)
    limits = json.dumps({"enterprise": {"per_minute": 10**9, "per_hour": 10**9, "per_day": 10**9}})
    server = subprocess.Popen(
        [BVS, "serve", "--port", str(port), "--workers", str(args.workers), "--log-level", "warning"],
        env=_env(work, BVS_PLAN_LIMITS=limits),
    )  # fmt: skip
    try:
        import requests

        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/health", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.3)
        verify_paths = [f"/api/robot/verify/{a}?cache=false" for a in abns]
        asyncio.run(_load(port, key, verify_paths, 3, args.connections))  # warm up

        publisher: subprocess.Popen[str] | None = None

        async def verify_with_publish() -> tuple[list[float], Counter[int], set[str]]:
            nonlocal publisher
            load = asyncio.ensure_future(
                _load(port, key, verify_paths, args.seconds, args.connections)
            )
            await asyncio.sleep(args.seconds / 4)
            publisher = subprocess.Popen(
                [sys.executable, __file__, "--publish-only", str(work)],
                stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            return await load

        started = time.perf_counter()
        latencies, statuses, seen = asyncio.run(verify_with_publish())
        elapsed = time.perf_counter() - started
        assert publisher is not None
        out, _ = publisher.communicate(timeout=1800)
        second = json.loads(out.strip().splitlines()[-1])
        failures = sum(n for s, n in statuses.items() if s != 200)
        report = {
            "abns": args.abns,
            "client": f"asyncio+uvloop raw HTTP/1.1, {args.connections} keep-alive connections",
            "workers": args.workers,
            "verify": {
                "requests": len(latencies),
                "rps": round(len(latencies) / elapsed),
                **_percentiles(latencies),
                "failed": failures,
                "statuses": dict(statuses),
                "snapshots_served": len(seen),
                "mid_run_publish_s": second["seconds"],
                "switched_to_new": second["snapshot_id"] in seen,
            },
        }
        words = [w for n in names if n for w in n.split()[:2]]
        queries = (
            [n[:6] for n in names if n]  # T1 prefix
            + [" ".join(n.split()[:2]) for n in names if n]  # T1/T2 words
            + words[:100]  # single words (T2/T3/T5)
            + [n[:-2] + "XX" for n in names if n and len(n) > 6]  # fuzzy (T4)
        )
        search_paths = [f"/api/robot/search?q={requests.utils.quote(q)}" for q in queries]
        latencies, statuses, _ = asyncio.run(_load(port, key, search_paths, 10, 4))
        report["search"] = {
            "requests": len(latencies),
            **_percentiles(latencies),
            "statuses": dict(statuses),
            "names_indexed": "the base sample's (search index not replicated)",
        }
        print(json.dumps(report, indent=2))
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
