"""Benchmark: the CPU of the live checks' DNS client per domain, alone.

A server process (the DNS server of tests/live/servers.py, ``--domains`` domains
``dNNNNN.bench.test`` as bench_live.py plants them, each answer after ``--latency``
seconds) and, in this process, every domain's DNS lookup (A, AAAA, MX, TXT, ``_dmarc`` TXT,
NS) and blocklist check (two zones) with ``--workers`` domains in flight: 8 questions a
domain, as in a pipeline run. Reports the wall time and this process's CPU (user + sys),
which is the client's alone: building, sending, receiving and reading the messages.

    python tests/benchmarks/bench_live_dns.py --domains 10000 --latency 0.1
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def serve(n: int, latency: float, conn: Any) -> None:
    from tests.benchmarks.bench_live import bench_zone
    from tests.live.servers import DnsServer

    server = DnsServer(bench_zone(n), latency=latency)
    conn.send(server.port)
    conn.recv()  # "stop"
    server.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--domains", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds added to every answer")
    parser.add_argument("--workers", type=int, default=128, help="domains in flight")
    args = parser.parse_args()

    from pipelines.live import blocklists
    from pipelines.live.dns_client import DnsClient
    from tests.benchmarks.bench_live import ZONES, domain

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    server = ctx.Process(target=serve, args=(args.domains, args.latency, child), daemon=True)
    server.start()
    port = parent.recv()
    client = DnsClient((("127.0.0.1", port),), timeout=5.0)
    outcomes: dict[str, int] = {}

    def check(i: int) -> str:
        name = domain(i)
        try:
            found = client.lookup(name)
            listed = blocklists.check(client, name, ZONES)
        except Exception as error:  # counted, not raised: the figure is the CPU
            return f"error {type(error).__name__}"
        ok = found.addresses == ["127.0.0.1"] and found.mx and found.spf and found.dmarc
        return f"dns={'ok' if ok else 'wrong'} listed={bool(listed.listed)} failed={len(listed.failed)}"

    started, cpu0 = time.monotonic(), time.process_time()
    with ThreadPoolExecutor(args.workers) as pool:
        for outcome in pool.map(check, range(args.domains)):
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    wall, cpu = time.monotonic() - started, time.process_time() - cpu0
    parent.send("stop")
    server.join(5)
    print(json.dumps({"domains": args.domains, "latency_s": args.latency, "workers": args.workers,
                      "wall_s": round(wall, 1), "cpu_s": round(cpu, 2),
                      "cpu_ms_per_domain": round(cpu * 1000 / args.domains, 3),
                      "cpu_us_per_question": round(cpu * 1e6 / args.domains / 8, 1),
                      "outcomes": outcomes}))  # fmt: skip


if __name__ == "__main__":
    main()
