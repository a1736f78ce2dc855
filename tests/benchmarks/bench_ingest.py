"""Ingest speed of the ABR bulk extract: records per second, wall time, peak memory.

    python tests/benchmarks/bench_ingest.py --records 2000000 [--repeat 3] [--format xml|zip]

Generates the sample extract once (cached under .bench/), then loads it into a fresh
warehouse ``--repeat`` times, each in a new process, and prints every run and the medians.
Peak memory is the largest resident set of the loading process and of any one parse
worker; run with two sizes to see that it does not grow with the input.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def generate(records: int, fmt: str) -> Path:
    landing = ROOT / ".bench" / f"abr-{records}-{fmt}" / "landing"
    marker = landing / ".complete"
    if not marker.exists():
        shutil.rmtree(landing, ignore_errors=True)
        from bvs_sample import write_sample

        started = time.perf_counter()
        write_sample(landing, scale=records, seed=7, abr_format=fmt)
        print(f"generated {records:,} records ({fmt}) in {time.perf_counter() - started:.1f}s")
        marker.touch()
    return landing


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def load_once(landing: Path, workers: int) -> dict:
    """Load the ABR source into a new warehouse in this process; report what it took."""
    from pipelines.ingest.sources import SOURCES
    from pipelines.settings import get_settings
    from pipelines.warehouse.connection import warehouse
    from pipelines.warehouse.loader import load_source

    data = landing.parent / "run"
    shutil.rmtree(data, ignore_errors=True)
    (data / "landing").mkdir(parents=True)
    (data / "landing" / "abr").symlink_to(landing / "abr")
    settings = get_settings(data_dir=data, parse_workers=workers, progress=False)
    startup = _cpu(resource.RUSAGE_SELF)  # the interpreter and the imports, before the load
    started = time.perf_counter()
    with warehouse(settings) as con:
        result = load_source(con, SOURCES["abr"], settings)
    seconds = time.perf_counter() - started
    records = result.rows["abr__abns"] + result.quarantined
    # CPU (user + system) of the whole command: this process, and the parse workers (waited
    # for when the load's pool shut down, so counted in RUSAGE_CHILDREN)
    loader, workers_cpu = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    per_record = {
        "startup": startup,
        "loader_process": loader - startup,
        "parse_workers": workers_cpu,
        "total": loader + workers_cpu,
    }
    return {
        "records": records,
        "other_names": result.rows["abr__other_names"],
        "quarantined": result.quarantined,
        "seconds": round(seconds, 2),
        "records_per_second": round(records / seconds),
        "phases": {k: round(v, 2) for k, v in result.timings.items()},
        "cpu_seconds": {k: round(v, 2) for k, v in per_record.items()},
        "cpu_us_per_record": {k: round(1e6 * v / records, 2) for k, v in per_record.items()},
        "load_average": round(os.getloadavg()[0], 1),
        "peak_rss_mb_loader": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "peak_rss_mb_worker": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--format", choices=("xml", "zip"), default="xml")
    parser.add_argument("--workers", type=int, default=0, help="parse workers (0 = cores)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one measured run
    args = parser.parse_args()
    if args.one:
        print(json.dumps(load_once(Path(args.one), args.workers)))
        return 0

    landing = generate(args.records, args.format)
    runs = []
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(landing), "--workers", str(args.workers)],
            check=True,
            capture_output=True,
            text=True,
        )
        run = json.loads(out.stdout.strip().splitlines()[-1])
        runs.append(run)
        print(json.dumps(run))
    median = {
        k: statistics.median(r[k] for r in runs)
        for k in ("records_per_second", "seconds", "peak_rss_mb_loader", "peak_rss_mb_worker")
    }
    cpu = statistics.median(r["cpu_us_per_record"]["total"] for r in runs)
    print(
        f"ABR ingest, {runs[0]['records']:,} records ({args.format}), median of {len(runs)}: "
        f"{median['records_per_second']:,.0f} records/s, {median['seconds']:.1f} s wall, "
        f"{cpu:.1f} µs CPU a record (every process), "
        f"peak RSS loader {median['peak_rss_mb_loader']:.0f} MB, per worker {median['peak_rss_mb_worker']:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
