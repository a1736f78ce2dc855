"""Benchmark: the live checks of 10,000 domains against local servers with 100 ms added to
every answer (issue 21), with bounded concurrency and flat memory, and a run killed half-way
that resumes from its cache without repeating the domains it had finished.

1. A server process (the second core): the authoritative DNS server and the HTTP(S) server of
   tests/live/servers.py, answering ``--domains`` domains ``dNNNNN.bench.test`` (A, MX, SPF,
   DMARC, NS, two blocklist zones with every 50th domain listed and every 97th answering the
   127.255.255.254 rate-limit code, RDAP, certificate transparency, a site), each answer
   after ``--latency`` seconds.
2. A run: every domain through the pipeline's own path (``check_many``: DNS, blocklists,
   RDAP, CT, the site, the tiles) with ``--workers`` in flight, shared among ``--processes``
   worker processes as in a pipeline run; wall time, CPU time of the checking processes and
   of the server, memory (RSS of the checking processes) sampled along the way.
3. Resume: a fresh cache, a child process running the same check killed (SIGKILL) once half
   the domains are done, then a second child over every domain: it must ask the servers for
   none of the domains the first had finished.

    python tests/benchmarks/bench_live.py --domains 10000 --latency 0.1
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import multiprocessing as mp
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

ZONES = ("dbl.bench", "uri.bench")


def domain(i: int) -> str:
    return f"d{i:05d}.bench.test"


def bench_zone(n: int) -> Any:
    """The DNS zone of ``n`` bench domains: A, MX, SPF, DMARC, NS, every 50th domain listed
    on the first blocklist zone and every 97th answering the second's rate-limit code."""
    from tests.live.servers import Zone

    zone = Zone()
    for i in range(n):
        name = domain(i)
        zone.add(name, "A", "127.0.0.1")
        zone.add(name, "MX", f"10 mail.{name}.")
        zone.add(name, "TXT", '"v=spf1 -all"')
        zone.add(f"_dmarc.{name}", "TXT", '"v=DMARC1; p=reject"')
        zone.add(name, "NS", "ns1.bench.test.")
        if i % 50 == 0:
            zone.add(f"{name}.{ZONES[0]}", "A", "127.0.1.2")
        if i % 97 == 0:
            zone.add(f"{name}.{ZONES[1]}", "A", "127.255.255.254")
    return zone


def serve(n: int, latency: float, cert_dir: str, conn: Any) -> None:
    """The server process: build the world, start both servers, report ports, wait."""
    from tests.live.servers import DnsServer, Site, WebServer, WebWorld

    zone, world = bench_zone(n), WebWorld(record_requests=False)
    zone.add("probe.test", "A", "127.0.0.1")
    body = (
        "<html><head><title>x</title></head><body>"
        + "<p>An established business.</p>" * 30
        + "</body></html>"
    )
    for i in range(n):
        name = domain(i)
        world.rdap[name] = {
            "events": [{"eventAction": "registration", "eventDate": "2015-01-01T00:00:00Z"}]
        }
        world.ct[name] = [{"id": i, "not_before": "2016-01-01T00:00:00", "name_value": name}]
        world.sites[name] = Site(body=body)
    dns_server = DnsServer(zone, latency=latency)
    web = WebServer(world, Path(cert_dir), ["*.bench.test"], latency=latency)
    seen: dict[str, int] = {}

    original = web._handle

    def counting(h: Any) -> None:  # which domains' sites were asked for (the resume check)
        host = (h.headers.get("Host") or "").rsplit(":", 1)[0]
        seen[host] = seen.get(host, 0) + 1
        original(h)

    web._handle = counting  # type: ignore[method-assign]
    conn.send({"dns": dns_server.port, "https": web.https_port, "http": web.http_port,
               "ca": str(web.ca_bundle), "base": web.base})  # fmt: skip
    while True:
        message = conn.recv()
        if message == "seen":
            conn.send(dict(seen))
            seen.clear()
        elif message == "cpu":
            r = resource.getrusage(resource.RUSAGE_SELF)
            conn.send(r.ru_utime + r.ru_stime)
        elif message == "stop":
            return


def config_for(ports: dict[str, Any], cache: Path, workers: int, processes: int) -> Any:
    from pipelines.live.config import LiveConfig
    from pipelines.live.throttle import DEFAULT_LIMITS, Limits

    limits = dict(DEFAULT_LIMITS)
    # the bench's servers stand in for many providers at once: per-provider limits sized to it
    for name in ("dns", "blocklist", "rdap", "ct", "web"):
        limits[name] = Limits(concurrency=workers, per_second=100_000.0)
    return LiveConfig(
        resolvers=(("127.0.0.1", ports["dns"]),), dns_timeout=5.0, blocklist_zones=ZONES,
        rdap_bootstrap_url=f"{ports['base']}/rdap/bootstrap.json", rdap_au_url=f"{ports['base']}/au-rdap/",
        ct_url=f"{ports['base']}/ct?q=%25.{{domain}}", http_timeout=10.0, cache_path=cache,
        workers=workers, processes=processes, limits=limits, probe_name="probe.test", allow_private=True,
        https_port=ports["https"], http_port=ports["http"], ca_bundle=Path(ports["ca"]),
    )  # fmt: skip


def rss_mb(pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:  # gone meanwhile
        pass
    return 0.0


def checking_rss_mb(server_pid: int | None) -> float:
    """RSS of this process and its worker processes (not the bench's server)."""
    children: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            children += [int(p) for p in (task / "children").read_text().split()]
    return rss_mb() + sum(rss_mb(p) for p in children if p != server_pid)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker processes, once joined
    return r.ru_utime + r.ru_stime


def run_checks(
    ports: dict[str, Any],
    cache: Path,
    n: int,
    workers: int,
    processes: int,
    progress: bool = False,
    server_pid: int | None = None,
) -> dict[str, Any]:
    from pipelines.live.checker import EntityFacts, LiveChecker
    from pipelines.live.run import check_many

    checker = LiveChecker(config_for(ports, cache, workers, processes))
    facts = (EntityFacts(abn=f"{i:011d}", legal_names=["Bench Pty Ltd"], domain=domain(i), domain_source="ledger")
             for i in range(n))  # fmt: skip
    statuses: dict[str, int] = {}
    samples: list[float] = []
    done = 0
    started = time.monotonic()
    cpu0, children0 = time.process_time(), children_cpu()
    for _, tiles in check_many(checker, facts, dt.date(2026, 11, 1)):
        done += 1
        key = f"domain={tiles['domain'].status} trust={tiles['trust'].status} web={tiles['web_presence'].status}"
        statuses[key] = statuses.get(key, 0) + 1
        if tiles["domain"].reason.startswith("Not run"):  # why, once per distinct reason
            why = f"domain: {tiles['domain'].reason[:160]}"
            statuses[why] = statuses.get(why, 0) + 1
        if done % max(1, n // 10) == 0:
            samples.append(round(checking_rss_mb(server_pid), 1))
            if progress:
                print(
                    f"  {done:>6} domains  {time.monotonic() - started:6.1f} s  rss {samples[-1]} MB",
                    flush=True,
                )
    return {"domains": done, "wall_s": round(time.monotonic() - started, 1),
            "cpu_s": round(time.process_time() - cpu0 + children_cpu() - children0, 1),
            "cpu_workers_s": round(children_cpu() - children0, 1),
            "processes": processes, "rss_mb_by_tenth": samples,
            "outcomes": statuses}  # fmt: skip


def cached_web_domains(cache: Path) -> set[str]:
    if not cache.exists():
        return set()
    con = sqlite3.connect(cache, timeout=30)
    try:
        return {r[0] for r in con.execute("select key from live_cache where provider = 'web'")}
    finally:
        con.close()


def child_main() -> None:
    args = json.loads(sys.argv[2])
    result = run_checks(args["ports"], Path(args["cache"]), args["n"], args["workers"],
                        args["processes"])  # fmt: skip
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--domains", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds added to every answer")
    parser.add_argument("--workers", type=int, default=256, help="domains in flight")
    parser.add_argument(
        "--processes",
        type=int,
        default=2,
        help="worker processes sharing them (BVS_LIVE_PROCESSES)",
    )
    parser.add_argument("--skip-resume", action="store_true")
    parser.add_argument("--skip-run", action="store_true", help="only the resume check")
    parser.add_argument(
        "--target-seconds", type=float, default=120.0, help="the run must finish within this"
    )
    args = parser.parse_args()

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        server = ctx.Process(
            target=serve, args=(args.domains, args.latency, tmp, child), daemon=True
        )
        server.start()
        ports = parent.recv()
        print(f"servers up: {args.domains} domains, {args.latency * 1000:.0f} ms added per answer, "
              f"{args.workers} in flight over {args.processes} process(es)")  # fmt: skip

        failures: list[str] = []
        if not args.skip_run:
            parent.send("cpu")
            server_cpu0 = parent.recv()
            result = run_checks(ports, Path(tmp) / "run.sqlite", args.domains, args.workers,
                                args.processes, progress=True, server_pid=server.pid)  # fmt: skip
            parent.send("cpu")
            result["server_cpu_s"] = round(parent.recv() - server_cpu0, 1)
            print(json.dumps({"run": result}))
            if result["domains"] != args.domains:
                failures.append(f"{result['domains']} of {args.domains} domains checked")
            if result["wall_s"] >= args.target_seconds:
                failures.append(
                    f"took {result['wall_s']} s, the target is under {args.target_seconds:g} s"
                )

        if not args.skip_resume:
            cache = Path(tmp) / "resume.sqlite"
            parent.send("seen")
            parent.recv()
            spec = json.dumps(
                {
                    "ports": ports,
                    "cache": str(cache),
                    "n": args.domains,
                    "workers": args.workers,
                    "processes": args.processes,
                }  # fmt: skip
            )
            first = subprocess.Popen(
                [sys.executable, __file__, "--child", spec], stdout=subprocess.PIPE
            )
            while len(cached_web_domains(cache)) < args.domains // 2:
                time.sleep(0.2)
            first.send_signal(signal.SIGKILL)
            first.wait()
            finished = cached_web_domains(cache)
            parent.send("seen")
            parent.recv()
            started = time.monotonic()
            second = subprocess.run(
                [sys.executable, __file__, "--child", spec],
                capture_output=True,
                text=True,
                check=True,
            )
            parent.send("seen")
            asked_again = {h for h in parent.recv() if h.endswith(".bench.test")}
            resumed = json.loads(second.stdout)
            repeated = finished & asked_again
            print(json.dumps({"resume": {
                "finished_before_kill": len(finished), "asked_in_second_run": len(asked_again),
                "repeated": len(repeated), "second_run_wall_s": round(time.monotonic() - started, 1),
                "second_run_domains": resumed["domains"]}}))  # fmt: skip
            if repeated:
                failures.append(f"{len(repeated)} finished domains asked again after the restart")
        parent.send("stop")
        server.join(5)
    if failures:
        print("FAILED: " + "; ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child_main()
    else:
        main()
