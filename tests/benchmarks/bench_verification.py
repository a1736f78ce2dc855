"""Tiles, scores and flags for millions of ABNs: wall time and peak memory of the dbt models.

    python tests/benchmarks/bench_verification.py [--abns 2000000] [--repeat 3]

The verification models read the marts and staging tables upstream of them (entities,
phoenix assessments, every match table and the registers they point to). To reach millions
of ABNs without running ingest and matching at that size, the benchmark builds a small real
warehouse once (`bvs sample --scale 20000`, `bvs run`, cached under .bench/verification-seed/)
and replicates it: copy k of every upstream table gets its own ABNs (a fresh 11-digit number
per original ABN and copy) and its own record keys (the original key plus "~k"), so every
distribution (entity types, statuses, match rates, planted cases) is the real pipeline's,
repeated. Each run then builds, in that warehouse, the seeds and every model tagged
`verification` with the real `dbt run`: the evidence per register, `int_check_outcomes`
(every rule), `risk_flags`, `tiles` (one row per ABN and check), `verifications` and
`checks`. Prints each run, the medians and the seconds per model; run two sizes to see
the growth.
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
sys.path.insert(0, str(ROOT))

from dbt_runner import AS_OF, model_seconds, run_dbt  # noqa: E402  (this folder)

SEED_SCALE = 20_000
CACHE = ROOT / ".bench" / "verification-seed-2"  # rebuilt when the upstream marts change
BVS = str(Path(sys.executable).with_name("bvs"))

# Upstream relations the verification models read (schema, table), and their key columns
# that must stay unique per copy. Columns named abn or grantor_abn are renumbered.
UPSTREAM = {
    ("marts", "entities"): ["acn"],
    ("marts", "phoenix_assessments"): ["acn"],
    ("marts", "phoenix_links"): ["acn", "deregistered_acn"],
    ("marts", "match_insolvency"): ["acn"],
    ("marts", "match_gazette"): ["notice_id"],
    ("marts", "match_adverse"): ["record_id"],
    ("marts", "match_licences"): ["licence_number"],
    ("marts", "match_financial_advisers"): ["adviser_number"],
    ("marts", "match_banned_organisations"): ["organisation_name"],
    ("marts", "match_banned_persons"): ["person_name"],
    ("marts", "match_afs_licensees"): ["licence_number"],
    ("marts", "match_credit_licensees"): ["licence_number"],
    ("marts", "match_business_names"): ["business_name"],
    ("marts", "match_charities"): ["charity_legal_name"],
    ("marts", "match_registers"): ["record_id"],
    ("marts", "match_liquidators"): ["liquidator_number"],
    ("marts", "match_ppsr"): ["registration_number"],
    ("marts", "match_asx_listed"): ["asx_code"],
    ("marts", "viper"): ["ticker", "latest_campaign_id"],
    ("marts", "squeeze_latest"): ["ticker"],
    ("staging", "stg_asic__companies"): ["acn"],
    ("staging", "stg_gazette__notices"): ["notice_id"],
    ("staging", "stg_adverse__records"): ["record_id"],
    ("staging", "stg_licences__licences"): ["licence_number"],
    ("staging", "stg_industry__abn_industry"): [],
    ("staging", "stg_asic__financial_advisers"): ["adviser_number"],
    ("staging", "stg_asic__banned_organisations"): ["organisation_name"],
    ("staging", "stg_asic__banned_persons"): ["person_name"],
    ("staging", "stg_asic__afs_licensees"): ["licence_number"],
    ("staging", "stg_asic__credit_licensees"): ["licence_number"],
    ("staging", "stg_asic__business_names"): ["business_name"],
    ("staging", "stg_acnc__charities"): ["charity_legal_name"],
    ("staging", "stg_registers__records"): ["record_id"],
    ("staging", "stg_asic__liquidators"): ["liquidator_number"],
    ("staging", "stg_ppsr__registrations"): ["registration_number"],
    ("meta", "loads"): [],
}
ABN_COLUMNS = {"abn", "grantor_abn"}


def seed_warehouse() -> Path:
    """The small real warehouse the benchmark replicates (built once, cached)."""
    warehouse = CACHE / "warehouse.duckdb"
    if (CACHE / ".complete").exists():
        return warehouse
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True)
    env = {
        **os.environ,
        "BVS_DATA_DIR": str(CACHE),
        "DAGSTER_HOME": str(CACHE / "dagster_home"),
        "CI": "true",
    }
    for args in (
        ["sample", "--out", str(CACHE / "landing"), "--scale", str(SEED_SCALE), "--seed", "5"],
        ["run", "--as-of", AS_OF],
    ):
        subprocess.run([BVS, *args], env=env, check=True, capture_output=True)
    (CACHE / ".complete").touch()
    return warehouse


def replicate(seed: Path, work: Path, abns: int) -> tuple[Path, int]:
    """A warehouse holding `copies` copies of the seed's upstream tables; (path, copies)."""
    import duckdb

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    warehouse = work / "warehouse.duckdb"
    con = duckdb.connect(str(warehouse))
    try:
        con.execute(f"attach '{seed}' as seed (read_only)")  # a path this script built
        seed_abns = con.execute("select count(*) from seed.marts.entities").fetchall()[0][0]
        copies = max(1, round(abns / seed_abns))
        # every ABN any upstream table holds, numbered once
        unions = " union ".join(
            f"select {col} as abn from seed.{schema}.{table}"
            for (schema, table) in UPSTREAM
            for col in _columns(con, schema, table)
            if col in ABN_COLUMNS
        )
        con.execute(
            f"create temp table abn_map as select abn, row_number() over (order by abn) as n"
            f" from ({unions}) where abn is not null"
        )
        con.execute(f"create temp table copies as select range as k from range({copies})")
        for (schema, table), keys in UPSTREAM.items():
            con.execute(f"create schema if not exists {schema}")
            select = []
            joins = []
            for col in _columns(con, schema, table):
                if col in ABN_COLUMNS:
                    alias = f"map_{col}"
                    joins.append(f"left join abn_map {alias} on t.{col} = {alias}.abn")
                    select.append(
                        f"lpad(cast(copies.k * 100000000 + {alias}.n as varchar), 11, '0') as {col}"
                    )
                elif col in keys:
                    select.append(f"t.{col} || '~' || cast(copies.k as varchar) as {col}")
                else:
                    select.append(f"t.{col}")
            source = f"seed.{schema}.{table}"
            if (schema, table) == ("meta", "loads"):
                con.execute(f"create table meta.loads as select * from {source}")
                continue
            con.execute(
                f"create table {schema}.{table} as select {', '.join(select)}"
                f" from {source} t cross join copies {' '.join(joins)}"
            )
        con.execute("checkpoint")
        total = con.execute("select count(*) from marts.entities").fetchall()[0][0]
    finally:
        con.close()
    return warehouse, total


def _columns(con, schema: str, table: str) -> list[str]:  # noqa: ANN001
    rows = con.execute(
        "select column_name from information_schema.columns where table_catalog = 'seed'"
        " and table_schema = ? and table_name = ? order by ordinal_position",
        [schema, table],
    ).fetchall()
    return [r[0] for r in rows]


def measure_once(work: Path) -> dict:
    import duckdb

    warehouse = work / "warehouse.duckdb"
    run_dbt(warehouse, work, "seed")
    seconds = run_dbt(warehouse, work, "run", "--full-refresh", "--select", "tag:verification")
    steps = model_seconds(work)
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        counts = dict(
            con.execute(
                "select 'verifications', count(*) from marts.verifications union all"
                " select 'tiles', count(*) from marts.tiles union all"
                " select 'risk_flags', count(*) from marts.risk_flags"
            ).fetchall()
        )
    finally:
        con.close()
    return {
        "seconds": round(seconds, 1),
        **counts,
        "peak_rss_mb_dbt": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
        "steps": steps,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--abns", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one measured run
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_once(Path(args.one).resolve())))
        return 0

    seed = seed_warehouse()
    work = ROOT / ".bench" / "verification-run"
    started = time.perf_counter()
    _, total = replicate(seed, work, args.abns)
    print(
        f"replicated the seed warehouse to {total:,} ABNs in {time.perf_counter() - started:.1f}s"
    )
    runs = []
    for i in range(args.repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(work)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        run = json.loads(out.stdout.strip().splitlines()[-1])
        runs.append(run)
        print(f"run {i + 1}: {json.dumps(run)}")
    median = statistics.median(r["seconds"] for r in runs)
    print(
        f"verification models, {total:,} ABNs: median {median:.1f}s over {len(runs)} runs"
        f" ({median / total * 1e6:.1f} us per ABN, dbt's start of about 6 s included: run two"
        f" sizes for the growth); peak RSS {max(r['peak_rss_mb_dbt'] for r in runs):,} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
