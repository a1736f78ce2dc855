"""Network analysis at the real sizes: the build of its mart and the read of one request.

    python tests/benchmarks/bench_network.py [--companies 3500000] [--officeholders 5000000]
                                             [--repeat 3]

Uses the synthetic registers of bench_phoenix.py (the same generator and cache under .bench/:
companies with an ABN each, officeholder rows with colliding names, serial directors). In a
fresh warehouse the raw tables are filled, `entities`, the officeholder snapshot, the keyed
officeholders and the phoenix marts are built (not timed); then, timed:

* ``model``   - `dbt run --select network_officeholders` (the join to entities and the sort
  by ABN), repeated;
* ``build``   - `dbt build --select network_officeholders` (model, unit test, data tests);
* ``request`` - the marts published as a serving snapshot, then `network()` for 20 ABNs
  that share serial directors (median of several requests, milliseconds).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench_phoenix import generate, prepare  # noqa: E402  (this folder)
from dbt_runner import AS_OF, model_seconds, run_dbt  # noqa: E402

UPSTREAM = (
    "directors__officeholders asic__deregistered_companies int_officeholders_keyed"
    " int_companies_deregistered phoenix_links"
)
REQUESTS = 9


def _request_abns(warehouse: Path) -> list[str]:
    """20 ABNs of companies whose officeholders hold several offices (serial directors).

    The generator's ABNs are `51` + ACN, mostly with a failing checksum: only those that pass
    (about 1 in 89) can be requested, so few of the 20 share a person.
    """
    import duckdb

    from pipelines.identifiers import abn_is_valid

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(
            "with people as ("
            "  select person_key, birth_date from marts.network_officeholders"
            "  where person_key is not null group by all"
            "  having count(distinct abn) between 3 and 8)"
            " select distinct abn from marts.network_officeholders"
            " inner join people using (person_key, birth_date) order by abn"
        ).fetchall()
    finally:
        con.close()
    return [abn for (abn,) in rows if abn_is_valid(abn)][:20]


def measure(work: Path, repeat: int) -> dict:
    import duckdb

    from pipelines.serving.network import network
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import open_snapshot, publish_snapshot

    warehouse = work / "warehouse.duckdb"
    run_dbt(warehouse, work, "build", "--select", UPSTREAM)  # snapshots too
    model = []
    for _ in range(repeat):
        run_dbt(warehouse, work, "run", "--select", "network_officeholders")
        model.append(model_seconds(work)["network_officeholders"])
    build = run_dbt(warehouse, work, "build", "--select", "network_officeholders")
    build_steps = model_seconds(work)

    settings = get_settings(data_dir=work)
    con = duckdb.connect(str(warehouse))
    try:
        rows = con.execute("select count(*) from marts.network_officeholders").fetchone()
        publish_snapshot(con, settings, as_of=dt.date.fromisoformat(AS_OF))
    finally:
        con.close()
    abns = _request_abns(warehouse)
    snap = open_snapshot(settings)
    try:
        timings = []
        for _ in range(REQUESTS):
            started = time.perf_counter()
            response = network(snap, abns)
            timings.append((time.perf_counter() - started) * 1000)
    finally:
        snap.close()
    return {
        "network_officeholders_rows": rows[0] if rows else 0,
        "model_seconds": model,
        "build_wall_seconds": round(build, 1),
        "build_steps": build_steps,
        "request_abns": len(abns),
        "request_ms_median": round(statistics.median(timings), 1),
        "request_ms_first": round(timings[0], 1),
        "shared_directors": len(response["shared_directors"]),
        "phoenix_links": len(response["phoenix_links"]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--companies", type=int, default=3_500_000)
    parser.add_argument("--officeholders", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = generate(args.companies, args.officeholders)
    work = prepare(folder)
    try:
        result = measure(work, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result))
    print(
        f"network_officeholders, {args.companies:,} companies,"
        f" {result['network_officeholders_rows']:,} rows: model"
        f" {statistics.median(result['model_seconds']):.1f} s (median of {args.repeat}),"
        f" dbt build {result['build_wall_seconds']:.1f} s wall;"
        f" a request for {result['request_abns']} ABNs {result['request_ms_median']:.0f} ms"
        f" ({result['shared_directors']} shared directors)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
