"""Home-page search at scale: the latency of `search()` per tier against a large index.

    python tests/benchmarks/bench_search.py [--abns 20000000] [--queries 40] [--repeat 5]

The index is built the way the pipeline builds it, at a size the sample generator cannot
reach quickly. The seed is the small real warehouse of bench_verification (`bvs sample
--scale 20000` + `bvs run`, cached); it is replicated to `--abns` ABNs: copy k of every
seed ABN gets its own ABN (k * 10^8 + its number), the seed's statuses, states, postcodes
and its list of names (one legal name, and the business, trading, other and DGR names with
their kinds and register statuses). Copy 0 keeps the seed's own names (the planted cases);
the names of the other copies are drawn in turn from the 20 million generated names of
bench_matching (the sample generator's own name functions, cached as Parquet), so the
vocabulary, the word and trigram frequencies grow the way real names do. Then the real
`dbt run` builds every model tagged `search`, and the search tables are copied into a snapshot file with
`create table as select *`, as `pipelines.warehouse.snapshot` copies them. Everything is
cached under .bench/search-<abns>/ (delete the folder to rebuild).

Queries are drawn from the index (seeded) in one category per tier: an exact legal name,
a legal-name prefix (T1), two words of a legal name in reverse order (T2), a business-name
prefix (T3a), business-name words reversed (T3b), a business name's first word followed
by a word no name has (T5, and T4 for what T5 leaves), a one-letter typo in a name (T4),
and one to three letters. Each query runs `--repeat` times after a warm-up pass; the
median of its runs is its time. Prints p50/p95/p99 per category (and of all queries),
the tiers the answers came from, the build times and the table sizes.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench_matching import generate as generate_name_pool  # noqa: E402  (this folder)
from bench_verification import seed_warehouse  # noqa: E402  (this folder)
from dbt_runner import model_seconds, run_dbt  # noqa: E402  (this folder)

POOL_NAMES = 20_000_000  # the generated names cached by bench_matching (8 parts of 2.5M)
# the search models, and the distinct normalised names the trigram counts are kept for
MODELS = "int_matching__entity_names_keyed tag:search"
SEARCH_TABLES = ("search_names", "search_words", "search_word_frequencies")


def build(abns: int, *, rebuild_models: bool = False) -> Path:
    """The snapshot file holding the search tables for `abns` ABNs (built once, cached).

    The replicated warehouse is kept beside it, so `rebuild_models` re-runs only dbt and the
    snapshot copy (after a change to the search models)."""
    work = ROOT / ".bench" / f"search-{abns}"
    snapshot = work / "snapshot.duckdb"
    warehouse = work / "warehouse.duckdb"
    if (work / ".complete").exists() and not rebuild_models:
        return snapshot
    timings: dict[str, object] = {"abns": abns}
    if not (work / ".replicated").exists():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        started = time.perf_counter()
        replicate(abns, warehouse)
        (work / ".replicated").touch()
        timings["replicate_seconds"] = round(time.perf_counter() - started, 1)
    (work / ".complete").unlink(missing_ok=True)
    timings["dbt_seconds"] = round(run_dbt(warehouse, work, "run", "--select", MODELS), 1)
    timings["model_seconds"] = model_seconds(work)
    started = time.perf_counter()
    copy_snapshot(warehouse, snapshot)
    timings["snapshot_copy_seconds"] = round(time.perf_counter() - started, 1)
    (work / "build.json").write_text(json.dumps(timings, indent=2))
    (work / ".complete").touch()
    return snapshot


def replicate(abns: int, warehouse: Path) -> None:
    """`marts.entities` (with the `input_hash` the search index's week compares) and
    `marts.entity_names` for `abns` ABNs, from the seed (module docs)."""
    import duckdb

    seed = seed_warehouse()
    pool = generate_name_pool(POOL_NAMES)
    con = duckdb.connect(str(warehouse))
    try:
        con.execute("set enable_progress_bar = false")
        con.execute(f"attach '{seed}' as seed (read_only)")  # a path this script built
        seed_abns = con.execute("select count(*) from seed.marts.entities").fetchall()[0][0]
        copies = max(1, round(abns / seed_abns))
        con.execute(
            "create temp table pool as select row_number() over () - 1 as i, name,"
            " name_normalised from read_parquet(?)",
            [pool],
        )
        pool_size = con.execute("select count(*) from pool").fetchall()[0][0]
        con.execute(
            "create temp table seed_entities as select row_number() over (order by abn) as n, *"
            " from seed.marts.entities"
        )
        con.execute(
            "create temp table seed_names as select row_number() over (order by abn, name) - 1"
            " as j, e.n, s.* from seed.marts.entity_names s join seed_entities e using (abn)"
        )
        seed_names = con.execute("select count(*) from seed_names").fetchall()[0][0]
        con.execute(f"create temp table copies as select range as k from range({copies})")
        con.execute("create schema marts")
        con.execute(
            f"""
            create table marts.entity_names as
            select
                lpad(cast(copies.k * 100000000 + s.n as varchar), 11, '0') as abn,
                case when copies.k = 0 then s.name else pool.name end as name,
                case when copies.k = 0 then s.name_normalised else pool.name_normalised end
                    as name_normalised,
                s.name_kind, s.is_legal_name, s.bn_status, s.sources
            from seed_names s
            cross join copies
            left join pool
                on copies.k > 0
                and pool.i = ((copies.k - 1) * {seed_names} + s.j) % {pool_size}
            """
        )
        con.execute(
            """
            create table marts.entities as
            select
                lpad(cast(copies.k * 100000000 + e.n as varchar), 11, '0') as abn,
                names.name as legal_name, e.abn_status, e.state, e.postcode,
                -- what a week's index compares per ABN (macros/search/changed_rows.sql);
                -- the index here is built whole, so any hash of the row serves
                hash(copies.k, e.n, names.name, e.abn_status, e.state, e.postcode)
                    as input_hash
            from seed_entities e
            cross join copies
            left join marts.entity_names names
                on names.abn = lpad(cast(copies.k * 100000000 + e.n as varchar), 11, '0')
                and names.is_legal_name
            """
        )
        con.execute("checkpoint")
    finally:
        con.close()


def copy_snapshot(warehouse: Path, snapshot: Path) -> None:
    """The search tables copied as the serving snapshot copies them."""
    import duckdb

    snapshot.unlink(missing_ok=True)
    con = duckdb.connect(str(snapshot))
    try:
        con.execute("set enable_progress_bar = false")
        con.execute(f"attach '{warehouse}' as wh (read_only)")  # a path this script chose
        con.execute("create schema marts")
        for table in SEARCH_TABLES:
            con.execute(f"create table marts.{table} as select * from wh.marts.{table}")
        con.execute("detach wh")
        con.execute("checkpoint")
    finally:
        con.close()


def _typo(word: str, rnd: random.Random) -> str:
    """`word` with two neighbouring letters swapped (or one doubled when too short)."""
    if len(word) < 4:
        return word + word[-1]
    i = rnd.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


# typo query -> the name it was made from (filled by queries())
TYPO_SOURCES: dict[str, str] = {}


def queries(snapshot: Path, per_category: int, seed: int = 11) -> dict[str, list[str]]:
    """Queries per category, drawn from the index."""
    import duckdb

    rnd = random.Random(seed)
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        sample = per_category * 4

        def keys(legal: bool) -> list[str]:
            # The sample is taken from the filtered rows (a sample clause on the table
            # itself would sample before the filter).
            rows = con.execute(
                "select search_key from (select search_key from marts.search_names"
                f" where is_legal_name = ?) using sample reservoir({sample} rows)"
                f" repeatable ({seed})",
                [legal],
            ).fetchall()
            return [r[0] for r in rows]

        legal, business = keys(True), keys(False)
    finally:
        con.close()

    def multi(names: list[str]) -> list[str]:
        return [n for n in names if len(n.split()) >= 2]

    def prefix(name: str) -> str:
        cut = max(4, int(len(name) * 0.6))
        return name[:cut].rstrip()

    def typo(name: str) -> str:
        words = name.split()
        longest = max(range(len(words)), key=lambda i: len(words[i]))
        words[longest] = _typo(words[longest], rnd)
        return " ".join(words)

    typo_sources = legal[-per_category:] + business[-per_category:]
    typos = [typo(n) for n in typo_sources]
    TYPO_SOURCES.update(zip(typos, typo_sources, strict=True))
    letters = "ABCDEFGHIJKLMNOPRSTW"
    short = [
        "".join(rnd.choice(letters) for _ in range(rnd.randint(1, 3))) for _ in range(per_category)
    ]
    out = {
        "exact": legal[:per_category],
        "T1 prefix": [prefix(n) for n in legal[per_category : 2 * per_category]],
        "T2 words": [" ".join(reversed(n.split()[:2])) for n in multi(legal)[:per_category]],
        "T3a prefix": [prefix(n) for n in business[:per_category]],
        "T3b words": [" ".join(reversed(n.split()[:2])) for n in multi(business)[:per_category]],
        "T5 first word": [
            n.split()[0] + " QZXVW" for n in business[per_category : 2 * per_category]
        ],
        "T4 typo": typos,
        "short": short,
    }
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def measure(
    snapshot: Path, categories: dict[str, list[str]], repeat: int, threads: int = 0
) -> dict:
    import duckdb

    from pipelines.matching import normalise_name
    from pipelines.serving.search import search

    config = {"threads": threads} if threads else {}
    con = duckdb.connect(str(snapshot), read_only=True, config=config)
    try:
        every = [q for qs in categories.values() for q in qs]
        for q in every:  # warm-up: the blocks a query needs are read from disk once
            search(con, q)
        report: dict[str, dict] = {}
        all_times: list[float] = []
        typo_found = 0
        for category, qs in categories.items():
            times: list[float] = []
            tiers: dict[str, int] = {}
            for q in qs:
                runs = []
                for _ in range(repeat):
                    started = time.perf_counter()
                    response = search(con, q)
                    runs.append((time.perf_counter() - started) * 1000)
                times.append(statistics.median(runs))
                top = response["results"][0]["tier"] if response["results"] else "none"
                tiers[top] = tiers.get(top, 0) + 1
                if q in TYPO_SOURCES:
                    keys = {normalise_name(r["matched_name"]) for r in response["results"]}
                    typo_found += TYPO_SOURCES[q] in keys
            all_times.extend(times)
            report[category] = {
                "queries": len(qs),
                "p50_ms": round(percentile(times, 50), 1),
                "p95_ms": round(percentile(times, 95), 1),
                "p99_ms": round(percentile(times, 99), 1),
                "max_ms": round(max(times), 1),
                "top_result_tiers": tiers,
                "example": qs[0],
            }
        if TYPO_SOURCES:
            report["T4 typo"]["source_name_found"] = f"{typo_found} of {len(TYPO_SOURCES)}"
        report["all"] = {
            "queries": len(all_times),
            "p50_ms": round(percentile(all_times, 50), 1),
            "p95_ms": round(percentile(all_times, 95), 1),
            "p99_ms": round(percentile(all_times, 99), 1),
            "max_ms": round(max(all_times), 1),
        }
        sizes = {
            t: con.execute(f"select count(*) from marts.{t}").fetchall()[0][0]
            for t in SEARCH_TABLES
        }
    finally:
        con.close()
    return {"tables": sizes, "latency": report}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--abns", type=int, default=20_000_000)
    parser.add_argument("--queries", type=int, default=40, help="queries per category")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--rebuild-models", action="store_true", help="re-run dbt on the cached replica"
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="DuckDB threads of the reading connection"
    )
    args = parser.parse_args()

    started = time.perf_counter()
    snapshot = build(args.abns, rebuild_models=args.rebuild_models)
    print(f"index ready in {time.perf_counter() - started:.1f}s: {snapshot}", flush=True)
    print((snapshot.parent / "build.json").read_text(), flush=True)
    print(f"snapshot file: {snapshot.stat().st_size / 2**30:.2f} GiB", flush=True)
    result = measure(snapshot, queries(snapshot, args.queries), args.repeat, args.threads)
    print(f"reading connection: threads={args.threads or 'default'}")
    print(json.dumps(result["tables"], indent=2))
    print(f"{'category':<14} {'n':>4} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7}  tiers / example")
    for category, row in result["latency"].items():
        print(
            f"{category:<14} {row['queries']:>4} {row['p50_ms']:>7} {row['p95_ms']:>7}"
            f" {row['p99_ms']:>7} {row['max_ms']:>7}  {row.get('top_result_tiers', '')}"
            f" {row.get('example', '')!r}"
            + (
                f" typo source found: {row['source_name_found']}"
                if "source_name_found" in row
                else ""
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
