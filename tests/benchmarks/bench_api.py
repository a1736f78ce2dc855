"""Benchmark: the read API over HTTP — verify throughput and latency, search latency, each
while a new snapshot is published mid-run, with zero failed requests.

1. A base: the sample (20,000 ABNs) run through the whole pipeline once (cached under
   ``.bench/api-base``).
2. A big snapshot: the base's marts with ``marts.verifications`` replicated to ``--abns``
   ABNs (new valid ABNs, the sample's rows repeated) and the search tables of
   ``bench_search`` at the same number of ABNs (built and cached by it: 1.5 names an ABN,
   drawn from 20 million generated names), published with ``publish_snapshot`` and its
   verify lookup, as the pipeline does.
3. ``bvs serve`` with ``--workers`` processes; a key on the Enterprise plan with its limits
   raised through ``BVS_PLAN_LIMITS`` (the limiter still counts every request).
4. Capacity: ``--connections`` keep-alive HTTP/1.1 connections on one asyncio loop (uvloop)
   in this process, each sending its next request when the last is answered (a closed loop:
   by Little's law the mean latency is connections / throughput). Random ABNs with
   ``cache=false``.
5. Verify at ``--rate`` requests a second, open loop (each request due at a fixed time, its
   latency measured from then), while a second snapshot is published by a separate process
   a quarter of the way in, at idle CPU priority (``chrt --idle 0``: a batch job beside the
   API runs on what the API leaves; ``--publish-priority nice`` for ``nice 10``). The load runs for ``--seconds`` and at least a
   quarter of that after the new snapshot went into service. Every non-200 answer is a
   failure; the figures are split before, during and after the publish.
6. Search at ``--search-rate`` with ``bench_search``'s queries (every tier), the same way,
   with another mid-run publish.

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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_search  # noqa: E402  (this folder)

BENCH = ROOT / ".bench"
BVS = str(Path(sys.executable).with_name("bvs"))
AS_OF = "2026-11-20"
# The mid-run publish is a batch job beside the API: it yields the cores to the API's
# workers but still gets a share (nice 19 starves it outright while the API is saturated).
PUBLISH_NICENESS = 10
# ... and with one DuckDB thread (BVS_PUBLISH_THREADS), leaving the API a core of the two.
PUBLISH_THREADS = 1
# --publish-priority idle: the publisher under SCHED_IDLE instead (chrt --idle 0): it runs only
# on a core nothing else wants, and a request that wakes up takes the core back at once.
PRIORITIES = {
    "nice": ["nice", "-n", str(PUBLISH_NICENESS)],
    "idle": ["chrt", "--idle", "0"],
}


def _env(data: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(data / "dagster_home"),
        "CI": "true",
        # the API's own throughput: cache=false renders from the snapshot, without the live
        # checks (their cost is tests/benchmarks/bench_live.py's)
        "BVS_LIVE_CHECKS": "false",
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


def build_warehouse(base: Path, work: Path, abns: int, search: Path) -> float:
    """A warehouse whose marts are the base's, verifications replicated to ``abns`` rows and
    the search tables taken from ``search`` (bench_search's snapshot at the same size)."""
    from pipelines.identifiers import abn_with_check_digits
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import current_snapshot

    info = current_snapshot(get_settings(data_dir=base))
    assert info is not None
    started = time.perf_counter()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    con = duckdb.connect(str(work / "warehouse.duckdb"))
    con.execute("set enable_progress_bar = false")
    con.execute(f"attach '{info.path}' as base (read_only)")
    con.execute(f"attach '{search}' as search (read_only)")
    con.execute("create schema marts")
    tables = con.execute(
        "select table_name, table_type from information_schema.tables"
        " where table_catalog = 'base' and table_schema = 'marts'"
    ).fetchall()
    replaced = {"verifications", "tiles", *bench_search.SEARCH_TABLES}
    for name, kind in tables:
        if name not in replaced and kind == "BASE TABLE":
            con.execute(f"create table marts.{name} as select * from base.marts.{name}")
    for name in bench_search.SEARCH_TABLES:
        con.execute(f"create table marts.{name} as select * from search.marts.{name}")
    base_rows = con.execute("select count(*) from base.marts.verifications").fetchall()[0][0]
    import pyarrow as pa

    numbers = random.Random(7).sample(range(10_000_000, 999_999_999), abns)
    new_abns = pa.table(
        {
            "n": pa.array(range(abns), pa.int64()),
            # in ABN order, so the table is written in ABN order without sorting wide rows
            "new_abn": sorted(abn_with_check_digits(f"{x:09d}") for x in numbers),
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
        """
    )
    con.execute("checkpoint")
    con.close()
    return time.perf_counter() - started


def publish(work: Path) -> dict:
    """Publish a snapshot of ``work``'s warehouse (with the verify lookup); returns timings."""
    import datetime as dt

    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import publish_snapshot
    from pipelines.warehouse.verify_lookup import build_verify_lookup

    # two kept (the one in service and the new one): a 20M-ABN snapshot is about 10 GB
    settings = get_settings(
        data_dir=work, warehouse_path=work / "warehouse.duckdb", snapshots_kept=2
    )
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


class Load:
    """HTTP/1.1 load on keep-alive connections until ``stop`` is set; records (finish time,
    latency, status) per request.

    Closed loop (``rate`` None): each connection sends its next request when the last is
    answered, which finds the server's capacity. Open loop (``rate`` requests a second):
    request k of connection c is due at start + (k * connections + c) / rate and its latency
    is measured from when it was due, so a stalled server is charged for the requests it
    held back (no coordinated omission). ``connections`` must cover rate x latency."""

    def __init__(
        self, port: int, key: str, paths: list[str], connections: int, rate: float | None = None
    ) -> None:
        self.port, self.key, self.paths = port, key, paths
        self.connections, self.rate = connections, rate
        self.records: list[tuple[float, float, int]] = []
        self.snapshots: set[str] = set()
        self.stop = asyncio.Event()

    async def _connection(self, index: int, start: float) -> None:
        rng = random.Random(index)
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        sent = 0
        while not self.stop.is_set():
            path = self.paths[rng.randrange(len(self.paths))]
            request = (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {self.key}\r\n\r\n"
            ).encode()
            if self.rate is None:
                due = time.perf_counter()
            else:
                due = start + (sent * self.connections + index) / self.rate
                if (wait := due - time.perf_counter()) > 0:
                    await asyncio.sleep(wait)
                if self.stop.is_set():
                    break
            sent += 1
            writer.write(request)
            status_line = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            done = time.perf_counter()
            status = int(status_line.split()[1])
            self.records.append((done, done - due, status))
            if status == 200 and b'"snapshot_id"' in body:
                at = body.rindex(b'"snapshot_id":"') + len(b'"snapshot_id":"')
                self.snapshots.add(body[at : body.index(b'"', at)].decode())
        writer.close()

    async def run(self) -> None:
        start = time.perf_counter()
        await asyncio.gather(*(self._connection(i, start) for i in range(self.connections)))


def _percentiles(latencies: list[float]) -> dict[str, float]:
    if not latencies:
        return {}
    ordered = sorted(latencies)

    def at(p: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)

    return {"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": at(1.0)}


def _figures(records: list[tuple[float, float, int]], start: float, end: float) -> dict:
    inside = [(lat, status) for done, lat, status in records if start <= done < end]
    seconds = max(end - start, 1e-9)
    return {
        "seconds": round(seconds, 1),
        "requests": len(inside),
        "rps": round(len(inside) / seconds),
        **_percentiles([lat for lat, _ in inside]),
        "failed": sum(1 for _, status in inside if status != 200),
    }


async def _for(load: Load, seconds: float) -> dict:
    started = time.perf_counter()
    running = asyncio.ensure_future(load.run())
    await asyncio.sleep(seconds)
    load.stop.set()
    await running
    return _figures(load.records, started, time.perf_counter())


async def _with_publish(load: Load, work: Path, seconds: float, priority: str) -> dict:
    """Run ``load``; publish a new snapshot (niced, another process) a quarter of the way in;
    stop when ``seconds`` have passed and the new snapshot has served for a quarter of it."""
    started = time.perf_counter()
    running = asyncio.ensure_future(load.run())
    memory: list[list[int]] = []
    sampling = asyncio.ensure_future(_sample_memory(memory, load.stop))
    await asyncio.sleep(seconds / 4)
    served = _served_files(work)
    resident_before = await asyncio.to_thread(_resident_share, served)
    publish_began = time.perf_counter()
    publisher = await asyncio.create_subprocess_exec(
        *PRIORITIES[priority], sys.executable, __file__, "--publish-only", str(work),
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "BVS_PUBLISH_THREADS": str(PUBLISH_THREADS)},
    )  # fmt: skip
    out, _ = await publisher.communicate()
    publish_ended = time.perf_counter()
    resident_after = await asyncio.to_thread(_resident_share, served)
    published = json.loads(out.decode().strip().splitlines()[-1])
    await asyncio.sleep(max(seconds / 4, started + seconds - time.perf_counter()))
    load.stop.set()
    await running
    await sampling
    ended = time.perf_counter()
    statuses = Counter(status for _, _, status in load.records)
    by_second: dict[int, list[float]] = {}
    for done, latency, _status in load.records:
        by_second.setdefault(int(done - started), []).append(latency)
    return {
        "p99_ms_by_second": [
            _percentiles(by_second.get(second, [])).get("p99_ms")
            for second in range(int(ended - started) + 1)
        ],
        "publish_from_to_second": [
            round(publish_began - started, 1),
            round(publish_ended - started, 1),
        ],
        "all": _figures(load.records, started, ended),
        "before_publish": _figures(load.records, started, publish_began),
        "during_publish": _figures(load.records, publish_began, publish_ended),
        "after_publish": _figures(load.records, publish_ended, ended),
        "statuses": dict(statuses),
        "publish_seconds": published["seconds"],
        "snapshots_served": len(load.snapshots),
        "switched_to_new": published["snapshot_id"] in load.snapshots,
        "served_files_in_memory_before_and_after_publish": [resident_before, resident_after],
        "memory_by_second": {
            "columns": [
                "mb_available",
                "direct_reclaim_stalls",
                "compaction_stalls",
                "major_faults",
                "steal_ms",
            ],
            "rows": memory,
        },
    }


def _serve(work: Path, workers: int) -> tuple[subprocess.Popen[bytes], int]:
    import requests

    port = 8000 + random.Random().randrange(1000, 2000)
    limits = json.dumps({"enterprise": {"per_minute": 10**9, "per_hour": 10**9, "per_day": 10**9}})
    server = subprocess.Popen(
        [BVS, "serve", "--port", str(port), "--workers", str(workers), "--log-level", "warning"],
        env=_env(work, BVS_PLAN_LIMITS=limits),
    )  # fmt: skip
    deadline = time.monotonic() + 600
    in_memory = 0  # consecutive answers (from any worker) whose snapshot is read into memory
    while in_memory < 10 * workers:
        try:
            health = requests.get(f"http://127.0.0.1:{port}/health", timeout=2)
            preload = health.json()["snapshot"]["preload"] if health.ok else None
        except requests.ConnectionError:
            preload = None
        in_memory = in_memory + 1 if preload is not None else 0
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05 if preload is not None else 0.3)
    print(f"serving, the snapshot read into memory: {json.dumps(preload)}", flush=True)
    return server, port


def _resident_share(paths: list[Path]) -> float:
    """The share of ``paths`` in the page cache now."""
    from pipelines.serving.preload import resident_bytes

    present = [p for p in paths if p.exists()]
    total = sum(p.stat().st_size for p in present)
    return round(sum(resident_bytes(p) for p in present) / total, 3) if total else 0.0


_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _memory_now() -> tuple[int, int, int, int, int]:
    """(MB available, direct-reclaim stalls, compaction stalls, major faults, ms of CPU time
    the hypervisor took, all vCPUs) of the machine."""
    counters = dict(line.split() for line in Path("/proc/vmstat").read_text().splitlines())
    info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    cpu = Path("/proc/stat").read_text().split("\n", 1)[0].split()  # cpu user nice ... steal
    return (
        int(info["MemAvailable"].split()[0]) // 1024,
        sum(int(v) for k, v in counters.items() if k.startswith("allocstall_")),
        int(counters.get("compact_stall", 0)),
        int(counters.get("pgmajfault", 0)),
        round(int(cpu[8]) * _TICK_MS) if len(cpu) > 8 else 0,
    )


async def _sample_memory(samples: list[list[int]], stop: asyncio.Event) -> None:
    """Each second: MB available and the stalls, major faults and steal of that second."""
    last = _memory_now()
    while not stop.is_set():
        await asyncio.sleep(1)
        now = _memory_now()
        samples.append([now[0], *(b - a for a, b in zip(last[1:], now[1:], strict=True))])
        last = now


def _served_files(work: Path) -> list[Path]:
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import current_snapshot

    info = current_snapshot(get_settings(data_dir=work))
    assert info is not None
    return [*info.sidecars.values(), info.path]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abns", type=int, default=2_000_000)
    parser.add_argument("--seconds", type=float, default=40, help="at least this long a phase")
    parser.add_argument("--connections", type=int, default=8, help="closed loop: capacity")
    parser.add_argument("--rate", type=float, default=1000, help="verify requests a second")
    parser.add_argument("--search-rate", type=float, default=20, help="searches a second")
    parser.add_argument("--open-connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--search-abns", type=int, help="size of the search index (default: --abns)"
    )
    parser.add_argument(
        "--publish-priority",
        choices=sorted(PRIORITIES),
        default="idle",
        help="the mid-run publisher's CPU priority: SCHED_IDLE (as docs/api.md advises where the"
        " pipeline and the API share a machine), or nice 10",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder afterwards")
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
    search_snapshot = bench_search.build(args.search_abns or args.abns)
    work = BENCH / f"api-{args.abns}"
    built = build_warehouse(base, work, args.abns, search_snapshot)
    first = publish(work)
    print(
        f"snapshot of {args.abns:,} ABNs: warehouse {built:.1f} s, publish {first['seconds']} s",
        flush=True,
    )

    from pipelines.settings import get_settings
    from pipelines.state.db import state_store
    from pipelines.state.keys import create_key

    with state_store(get_settings(data_dir=work)) as engine:
        key, _ = create_key(engine, "bench", "enterprise")
    con = duckdb.connect(str(work / "warehouse.duckdb"), read_only=True)
    abns = [
        r[0]
        for r in con.execute(
            "select abn from marts.verifications using sample reservoir(50000 rows) repeatable (7)"
        ).fetchall()
    ]
    con.close()
    categories = bench_search.queries(search_snapshot, 40)
    from urllib.parse import quote

    search_paths = [f"/api/robot/search?q={quote(q)}" for qs in categories.values() for q in qs]
    verify_paths = [f"/api/robot/verify/{a}?cache=false" for a in abns]
    server, port = _serve(work, args.workers)
    try:
        warm = Load(port, key, verify_paths[:2000] + search_paths, args.connections)

        async def warm_up() -> None:
            asyncio.get_running_loop().call_later(5, warm.stop.set)
            await warm.run()

        asyncio.run(warm_up())
        capacity = asyncio.run(
            _for(Load(port, key, verify_paths, args.connections), args.seconds / 2)
        )
        print(f"verify capacity: {json.dumps(capacity)}", flush=True)
        verify = Load(port, key, verify_paths, args.open_connections, args.rate)
        verify_report = asyncio.run(
            _with_publish(verify, work, args.seconds, args.publish_priority)
        )
        print(f"verify at {args.rate:g}/s: {json.dumps(verify_report)}", flush=True)
        search = Load(port, key, search_paths, args.open_connections // 4, args.search_rate)
        search_report = asyncio.run(
            _with_publish(search, work, args.seconds, args.publish_priority)
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    report = {
        "abns": args.abns,
        "search_index_abns": args.search_abns or args.abns,
        "snapshot_bytes": sum(
            f.stat().st_size for f in (work / "serving" / "snapshots").iterdir() if f.is_file()
        ),
        "client": (
            "asyncio+uvloop raw HTTP/1.1 in one process, keep-alive connections; capacity:"
            f" closed loop, {args.connections} connections; the rest open loop at a fixed"
            f" rate (latency from when each request was due), {args.open_connections}"
            f" connections for verify, {args.open_connections // 4} for search"
        ),
        "publish_priority": " ".join(PRIORITIES[args.publish_priority]),
        "publish_threads": PUBLISH_THREADS,
        "server": f"bvs serve --workers {args.workers} (uvicorn, httptools, uvloop)",
        "first_publish_seconds": first["seconds"],
        "verify_capacity": capacity,
        "verify": {"rate": args.rate, **verify_report},
        "search": {"rate": args.search_rate, "queries": len(search_paths), **search_report},
    }
    print(json.dumps(report, indent=2))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
