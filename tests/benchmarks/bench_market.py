"""Market signals at the real size: a full recompute and one new day, wall time and memory.

    python tests/benchmarks/bench_market.py [--products 2500] [--repeat 3]

The sample generator's market module (``bvs_sample.market``) writes a year of daily
landing files ending on the extract date for ``--products`` ASX products (2,500 is what it
writes at the real scale, 20M ABN records) plus its 8 crypto and 7 forex pairs: ASIC short
positions, end-of-day prices, positioning and the activist campaigns, and the ASX list of
its universe. It is written twice, cached under .bench/market/<products>/: ending on
EXTRACT (a Thursday) and ending one trading day later (NEXT, the Friday); the second copy
only gives the new day's files (its names not in the first that carry NEXT's date: one
short-position file and one price file per market).

Once: a warehouse gets every source loaded with the real loader (only the market sources
and the ASX list have files; the others' raw tables are created empty), then the seeds and
everything upstream of `tag:market` are built (``match_asx_listed`` on empty ABR data). That
state is kept and restored before each run. Each run, in a process of its own:

* ``startup``  - `dbt run --select stg_meta__source_loads` (one view): dbt's own start with
  its partial parse current;
* ``full``     - `dbt run --select tag:market --full-refresh` (the squeeze and activist
  models) over the year, as of EXTRACT;
* ``new day``  - the new day's files are added to the landing folder, the market sources
  are loaded again (incremental: only the new files are parsed, the rest is carried over;
  positioning, the activist files and the ASX list are unchanged) and `tag:market` is
  built as of NEXT, as the daily run does: the as-of date in BVS_AS_OF (dbt keeps its
  partial parse), the squeeze models incremental (only the new day is recomputed). The
  ingest and dbt seconds are reported apart; the same day is then recomputed whole
  (`--full-refresh`) and its scores must equal the incremental ones.

Each run is made two ways (``--repeat`` times each, the order interleaved), every command
starting this environment's ``dbt`` (about 2 s of imports, then the partial parse):

* ``dbt``       - the new day is `dbt run`;
* ``dbt-build`` - the new day is `dbt build` (its tests too), which is what the daily job
  runs.

Prints every run, the medians per way, dbt's seconds per model (slowest first), row counts
and the peak RSS of the dbt processes.
"""

from __future__ import annotations

import argparse
import datetime as dt
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

from dbt_runner import model_seconds, run_dbt  # noqa: E402  (this folder)

EXTRACT = dt.date(2026, 11, 19)  # a Thursday: the next trading day is one calendar day on
NEXT = dt.date(2026, 11, 20)  # the Friday (dbt_runner.AS_OF): one new file per daily source
SEED = 7
CACHE = ROOT / ".bench" / "market"
MARKET_SOURCES = (
    "asic_short_positions",
    "prices_asx",
    "prices_crypto",
    "prices_forex",
    "positioning",
    "activist_campaigns",
    "activist_amplification",
    "asx_listed",
)
SLOWEST = 6  # models printed per run


# -- data -------------------------------------------------------------------------------------


def generate(products: int, extract: dt.date, landing: Path) -> Path:
    """The market landing files (and the ASX list) for ``products`` ASX products (cached)."""
    marker = landing / ".complete"
    if marker.exists():
        return landing
    from bvs_sample import formats as F
    from bvs_sample import market as M
    from bvs_sample.registers import REAL_SCALE

    shutil.rmtree(landing, ignore_errors=True)
    landing.mkdir(parents=True)
    started = time.perf_counter()
    # the product count follows the scale: 2,500 at REAL_SCALE
    scale = products * REAL_SCALE // M.PRODUCTS_AT_REAL_SCALE
    universe = M.build_universe(scale, SEED, [])
    if len(universe.tickers) != products:
        raise SystemExit(
            f"the generator gives {len(universe.tickers):,} products, not {products:,}"
        )
    M.write_market(landing, universe, seed=SEED, extract_date=extract)
    # the ASX list: written by the whole sample only; here the universe's names alone
    target = F.targets(extract)["asx"]
    (landing / target.source).mkdir(parents=True, exist_ok=True)
    text = target.head() + "".join(target.line(list(r)) for r in universe.listed_rows).encode()
    (landing / target.rel).write_bytes(text)
    marker.touch()
    print(
        f"generated {products:,} ASX products, a year to {extract} in"
        f" {time.perf_counter() - started:.1f}s: {landing}",
        flush=True,
    )
    return landing


def new_day_files(base: Path, later: Path, day: dt.date) -> list[str]:
    """Paths (relative) of the files ``later`` has and ``base`` has not, dated ``day``."""
    stamp = f"{day:%Y%m%d}"
    found = sorted(
        str(p.relative_to(later))
        for p in later.rglob("*")
        if p.is_file() and stamp in p.name and not (base / p.relative_to(later)).exists()
    )
    if not found:
        raise SystemExit(f"no new files for {day} in {later}")
    return found


def link_tree(source: Path, target: Path) -> None:
    """``target`` holds the files of ``source`` as hard links (same bytes and mtimes)."""
    shutil.copytree(source, target, copy_function=os.link, ignore=shutil.ignore_patterns(".*"))


# -- the prepared warehouse -------------------------------------------------------------------


def load(settings, names) -> dict:  # noqa: ANN001
    """Load the named sources (the real loader); their status, rows and seconds."""
    from pipelines.ingest.sources import SOURCES
    from pipelines.warehouse.connection import warehouse
    from pipelines.warehouse.loader import load_source

    out = {}
    with warehouse(settings) as con:
        for name in names:
            result = load_source(con, SOURCES[name], settings)
            out[name] = {
                "status": result.status,
                "rows": sum(result.rows.values()),
                "files": len(result.files),
                "quarantined": result.quarantined,
                "seconds": round(result.seconds, 2),
            }
    return out


def prepare(landing: Path, work: Path, backup: Path) -> None:
    """Every source loaded and everything upstream of tag:market built; kept in ``backup``."""
    from pipelines.ingest.sources import SOURCES
    from pipelines.settings import get_settings

    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(backup, ignore_errors=True)
    work.mkdir(parents=True)
    link_tree(landing, work / "landing")
    settings = get_settings(data_dir=work, progress=False)
    started = time.perf_counter()
    loaded = load(settings, MARKET_SOURCES)
    ingest = time.perf_counter() - started
    load(settings, [name for name in SOURCES if name not in MARKET_SOURCES])  # empty tables
    rows = {name: r["rows"] for name, r in loaded.items()}
    print(f"loaded the year in {ingest:.1f}s: {json.dumps(rows)}", flush=True)
    warehouse = settings.warehouse
    started = time.perf_counter()
    run_dbt(warehouse, work, "seed", as_of=EXTRACT.isoformat())
    run_dbt(warehouse, work, "run", "--select", "+tag:market", as_of=EXTRACT.isoformat())
    print(
        f"built the seeds and +tag:market (untimed) in {time.perf_counter() - started:.1f}s",
        flush=True,
    )
    shutil.copytree(work, backup, ignore=shutil.ignore_patterns("landing"))


def restore(landing: Path, work: Path, backup: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(backup, work)
    link_tree(landing, work / "landing")


# -- one run ----------------------------------------------------------------------------------


def _counts(warehouse: Path) -> dict[str, int]:
    import duckdb

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return dict(
            con.execute(
                "select 'squeeze_scores', count(*) from marts.squeeze_scores union all"
                " select 'squeeze_latest', count(*) from marts.squeeze_latest union all"
                " select 'activist_campaigns', count(*) from marts.activist_campaigns union all"
                " select 'viper', count(*) from marts.viper"
            ).fetchall()
        )
    finally:
        con.close()


def _scores_digest(warehouse: Path) -> list:
    """Row count and an order-free digest of every score column but built_at, doubles to 9
    decimals: DuckDB's parallel window sums may differ in the last bit from run to run."""
    import duckdb

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        columns = [
            f"round({name}, 9)" if kind == "DOUBLE" else name
            for name, kind in con.execute(
                "select column_name, data_type from information_schema.columns"
                " where table_schema = 'marts' and table_name = 'squeeze_scores'"
                " and column_name <> 'built_at' order by ordinal_position"
            ).fetchall()
        ]
        row = con.execute(
            f"select count(*), sum(hash({', '.join(columns)})) from marts.squeeze_scores"
        ).fetchone()
        return [row[0], str(row[1])]
    finally:
        con.close()


def _elapsed(work: Path) -> float:
    """dbt's own wall time for executing the nodes of its last command (no start-up)."""
    return json.loads((work / "target" / "run_results.json").read_text())["elapsed_time"]


MODES = {  # name: (the executable, the new day's dbt command)
    "dbt": ("dbt", "run"),
    "dbt-build": ("dbt", "build"),
}


def measure_once(work: Path, later: Path, new_files: list[str], mode: str) -> dict:
    import pipelines.warehouse.loader  # noqa: F401  (imported before the clock starts)
    from pipelines.settings import get_settings

    settings = get_settings(data_dir=work, progress=False)
    warehouse = settings.warehouse
    extract, next_day = EXTRACT.isoformat(), NEXT.isoformat()
    dbt, day_command = MODES[mode]
    market = ("run", "--select", "tag:market")

    # dbt's start: one view, the parse current
    startup = run_dbt(
        warehouse, work, "run", "--select", "stg_meta__source_loads", as_of=extract, dbt=dbt
    )
    full = run_dbt(warehouse, work, *market, "--full-refresh", as_of=extract, dbt=dbt)
    full_elapsed = _elapsed(work)
    full_steps = model_seconds(work)
    full_counts = _counts(warehouse)

    for rel in new_files:  # the new day lands
        (work / "landing" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(later / rel, work / "landing" / rel)
    started = time.perf_counter()
    loaded = load(settings, MARKET_SOURCES)
    ingest = time.perf_counter() - started
    # the daily run: a new as_of (BVS_AS_OF: the partial parse holds), incremental models
    day = run_dbt(warehouse, work, day_command, *market[1:], as_of=next_day, dbt=dbt)
    day_elapsed = _elapsed(work)
    day_steps = model_seconds(work)
    day_counts = _counts(warehouse)
    day_digest = _scores_digest(warehouse)
    # the same day recomputed whole: the incremental build must have given the same scores
    day_full = run_dbt(warehouse, work, *market, "--full-refresh", as_of=next_day, dbt=dbt)
    if _scores_digest(warehouse) != day_digest:
        raise SystemExit("the incremental new day differs from the full recompute")
    return {
        "mode": mode,
        "startup_seconds": round(startup, 2),
        "full_seconds": round(full, 2),
        "full_dbt_elapsed_seconds": round(full_elapsed, 2),
        "full_model_seconds": round(sum(full_steps.values()), 2),
        "new_day_ingest_seconds": round(ingest, 2),
        "new_day_dbt_seconds": round(day, 2),
        "new_day_dbt_elapsed_seconds": round(day_elapsed, 2),
        "new_day_model_seconds": round(sum(day_steps.values()), 2),
        "new_day_full_refresh_seconds": round(day_full, 2),
        "full_counts": full_counts,
        "new_day_counts": day_counts,
        "new_day_loads": {
            name: f"{r['status']} {r['files']} files {r['seconds']}s" for name, r in loaded.items()
        },
        "peak_rss_mb_dbt": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
        "peak_rss_mb_ingest": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "full_steps": dict(list(full_steps.items())[:SLOWEST]),
        "new_day_steps": dict(list(day_steps.items())[:SLOWEST]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--products", type=int, default=2_500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # internal: one run
    args = parser.parse_args()
    if args.one:
        work, later, files, mode = args.one
        run = measure_once(Path(work), Path(later), json.loads(files), mode)
        print(json.dumps(run))
        return 0

    folder = CACHE / str(args.products)
    base = generate(args.products, EXTRACT, folder / "landing")
    later = generate(args.products, NEXT, folder / "landing-next")
    new_files = new_day_files(base, later, NEXT)
    print(f"the new day ({NEXT}): {', '.join(new_files)}", flush=True)
    work, backup = folder / "run", folder / "run-prepared"
    prepare(base, work, backup)

    runs: dict[str, list[dict]] = {mode: [] for mode in MODES}
    for i in range(args.repeat):
        for mode in MODES:
            restore(base, work, backup)
            out = subprocess.run(
                [sys.executable, __file__, "--one", str(work), str(later),
                 json.dumps(new_files), mode],
                check=False, capture_output=True, text=True,
            )  # fmt: skip
            if out.returncode != 0:
                raise SystemExit(f"run {i + 1} ({mode}) failed:\n{out.stdout}{out.stderr}")
            run = json.loads(out.stdout.strip().splitlines()[-1])
            runs[mode].append(run)
            print(f"run {i + 1} ({mode}): {json.dumps(run)}", flush=True)
    shutil.rmtree(backup, ignore_errors=True)

    def median(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[mode])

    every = [r for mode_runs in runs.values() for r in mode_runs]
    counts = every[-1]["full_counts"]
    day_counts = every[-1]["new_day_counts"]
    print(
        f"market models, {args.products:,} ASX products + 8 crypto + 7 forex, a year of days,"
        f" median of {args.repeat} each:"
    )
    for mode, (dbt, command) in MODES.items():
        ingest = median(mode, "new_day_ingest_seconds")
        day = median(mode, "new_day_dbt_seconds")
        print(
            f"  {mode} ({dbt}):\n"
            f"    full recompute (run tag:market --full-refresh): {median(mode, 'full_seconds'):.1f}"
            f" s wall, dbt's execution {median(mode, 'full_dbt_elapsed_seconds'):.2f} s"
            f" (target < 30 s)\n"
            f"    new day: ingest {ingest:.2f} s + {command} tag:market {day:.2f} s ="
            f" {ingest + day:.2f} s (target < 5 s); dbt's execution"
            f" {median(mode, 'new_day_dbt_elapsed_seconds'):.2f} s, a one-view command"
            f" {median(mode, 'startup_seconds'):.2f} s\n"
            f"    the new day recomputed whole instead: "
            f"{median(mode, 'new_day_full_refresh_seconds'):.1f} s (same scores: checked)"
        )
    print(
        f"  rows: squeeze_scores {counts['squeeze_scores']:,}, {day_counts['squeeze_scores']:,}"
        f" after the new day; squeeze_latest {counts['squeeze_latest']:,}\n"
        f"  peak RSS (the dbt runs): dbt {max(r['peak_rss_mb_dbt'] for r in runs['dbt']):,} MB,"
        f" ingest process {max(r['peak_rss_mb_ingest'] for r in every):,} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
