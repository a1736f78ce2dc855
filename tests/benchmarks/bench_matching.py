"""Name matching at scale: register names against entity names by pg_trgm similarity.

    python tests/benchmarks/bench_matching.py [--names 2000000] [--register-names 100000]
                                              [--repeat 3] [--recall-sample 40]

Entity names are drawn with the sample generator's own name functions (legal names of
every entity type in the ABR's proportions, trading names for 40 % of organisations,
individuals as `GIVEN SURNAME`) and normalised with `normalise_name`; they are cached as
Parquet under .bench/matching-names/ in parts of 2.5 million, so the first N are the same
whatever N. Register names are a reservoir sample of them, half altered the way registers
misspell names (a letter dropped, a word dropped), each given a threshold in the spec's mix
(0.55 for adverse records, 0.65, 0.72 gazette, 0.75 insolvency, 0.8).

Each run builds, in a fresh warehouse holding `marts.entity_names` and the register names,
the matching models with the real `dbt run --select` and times them:
`int_matching__entity_names_keyed` (every distinct entity name once, with an id) and
`int_matching__name_similarities` (the similarity join, a Python model; its time includes
reading the names out of DuckDB and writing the pairs back).

`--recall-sample K` compares, for K register names, the pairs found with a brute-force
Python comparison against every distinct entity name (pipelines.matching.trigrams), streamed
through two processes.
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
from bisect import bisect
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dbt_runner import model_seconds, run_dbt  # noqa: E402  (this folder)

CACHE = ROOT / ".bench" / "matching-names"
PART = 2_500_000
SEED = 7
MODELS = "int_matching__entity_names_keyed int_matching__name_similarities"
THRESHOLDS = ((0.55, 0.35), (0.65, 0.10), (0.72, 0.15), (0.75, 0.30), (0.8, 0.10))


def _part(index: int) -> str:
    """Write part `index` of the name cache (PART names); the path."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bvs_sample import words as W
    from bvs_sample.draws import cumulative
    from bvs_sample.entity_types import ENTITY_TYPES
    from bvs_sample.generate import ChunkGenerator
    from bvs_sample.tasks import ChunkTask
    from pipelines.matching import normalise_name

    path = CACHE / f"part-{index:02d}.parquet"
    if path.exists():
        return str(path)
    task = ChunkTask(
        index=index, start=0, count=PART, seed=SEED, scale=PART,
        extract_date=dt.date(2026, 11, 18), abr_path=Path(os.devnull), compress=False,
        company_part=Path(os.devnull), business_name_part=Path(os.devnull),
    )  # fmt: skip
    gen = ChunkGenerator(task)
    cum = cumulative([t.weight for t in ENTITY_TYPES])
    names: list[str] = []
    i = 0
    while len(names) < PART:
        entity_type = ENTITY_TYPES[bisect(cum, gen.rnd())]
        if entity_type.style == "individual":
            given = gen.pick(W.MALE_GIVEN if gen.rnd() < 0.5 else W.FEMALE_GIVEN)
            names.append(f"{given} {gen.surname()}")
        else:
            names.append(gen.main_name(entity_type.style, entity_type.code, f"{i:09d}"))
            if gen.rnd() < 0.4:
                names.append(gen.trading_name())
        i += 1
    names = names[:PART]
    table = pa.table({"name": names, "name_normalised": [normalise_name(n) for n in names]})
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp)
    tmp.rename(path)
    return str(path)


def generate(names: int) -> list[str]:
    CACHE.mkdir(parents=True, exist_ok=True)
    parts = range((names + PART - 1) // PART)
    with ProcessPoolExecutor(2) as pool:
        return list(pool.map(_part, parts))


def prepare(
    parts: list[str], names: int, register_names: int, work: Path, *, distinct: bool = False
) -> Path:
    """A fresh warehouse with `marts.entity_names` and the register names.

    `distinct`: the entity names are `names` distinct normalised names (generated names
    repeat: 20 million of them hold about 9.1 million distinct ones)."""
    import duckdb

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    warehouse = work / "warehouse.duckdb"
    con = duckdb.connect(str(warehouse))
    try:
        con.execute("create schema marts")
        con.execute("create schema intermediate")
        source = (
            "(select any_value(name) as name, name_normalised from read_parquet(?)"
            " where name_normalised is not null group by name_normalised)"
            if distinct
            else "read_parquet(?)"
        )
        con.execute(
            "create table marts.entity_names as select lpad(cast(row_number() over () as varchar),"
            f" 11, '0') as abn, name, name_normalised from {source} limit ?",
            [parts, names],
        )
        cases = " ".join(
            f"when u < {sum(s for _, s in THRESHOLDS[: i + 1]):.2f} then {t}"
            for i, (t, _) in enumerate(THRESHOLDS)
        )
        # Half the sampled names altered: a letter dropped from the middle, or the last word
        # dropped (names of one word keep it).
        con.execute(
            f"""
            create table intermediate.int_matching__register_names as
            with sampled as (
                select name_normalised, hash(name_normalised) % 1000 / 1000.0 as u,
                    hash(name_normalised || '#') % 3 as alteration
                from (
                    select distinct name_normalised
                    from marts.entity_names where name_normalised is not null
                ) using sample reservoir({register_names} rows) repeatable (42)
            ),
            altered as (
                select
                    case alteration
                        when 0 then name_normalised
                        when 1 then left(name_normalised, length(name_normalised) // 2)
                            || substr(name_normalised, length(name_normalised) // 2 + 2)
                        else coalesce(nullif(regexp_replace(name_normalised, ' [^ ]+$', ''), ''),
                            name_normalised)
                    end as name_normalised,
                    case {cases} else 0.8 end as name_threshold
                from sampled
            )
            select trim(name_normalised) as name_normalised, min(name_threshold) as name_threshold
            from altered where trim(name_normalised) <> '' group by 1
            """
        )
        con.execute("checkpoint")
    finally:
        con.close()
    return warehouse


def measure_once(work: Path) -> dict:
    import duckdb

    warehouse = work / "warehouse.duckdb"
    # --full-refresh: the whole join each time (a run on the same names matches nothing,
    # pipelines/matching/similarity_week.py)
    seconds = run_dbt(warehouse, work, "run", "--full-refresh", "--select", MODELS)
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        counts = dict(
            con.execute(
                "select 'entity_names', count(*) from marts.entity_names union all"
                " select 'distinct_names', count(*) from intermediate.int_matching__entity_names_keyed"
                " union all select 'register_names', count(*)"
                " from intermediate.int_matching__register_names"
                " union all select 'pairs', count(*) from intermediate.int_matching__name_similarities"
            ).fetchall()
        )
    finally:
        con.close()
    return {
        "seconds": round(seconds, 1),
        **model_seconds(work),
        **counts,
        "peak_rss_mb_dbt": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
    }


_REGISTERS: list[tuple[str, float, frozenset[str]]] = []


def _recall_init(registers: list[tuple[str, float]]) -> None:
    from pipelines.matching.trigram import trigrams

    _REGISTERS[:] = [(n, float(t), trigrams.__wrapped__(n)) for n, t in registers]


def _recall_batch(names: list[str]) -> set[tuple[str, str]]:
    """Every (register name, entity name) pair of the batch at or above the threshold."""
    from pipelines.matching.trigram import trigrams

    out = set()
    for e in names:
        b = trigrams.__wrapped__(e)
        nb = len(b)
        for name, threshold, a in _REGISTERS:
            na = len(a)
            if nb < threshold * na - 1e-9 or nb * threshold > na + 1e-9:
                continue
            common = len(a & b)
            if round(common / (na + nb - common), 6) >= threshold:
                out.add((name, e))
    return out


def recall(warehouse: Path, sample: int) -> dict:
    """Pairs found against a brute-force comparison, for `sample` register names."""
    import duckdb

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        registers = con.execute(
            "select name_normalised, name_threshold from intermediate.int_matching__register_names"
            f" using sample reservoir({int(sample)} rows) repeatable (7)"
        ).fetchall()
        found = set(
            con.execute(
                "select register_name, entity_name from intermediate.int_matching__name_similarities"
                " where register_name in (select unnest(?))",
                [[r for r, _ in registers]],
            ).fetchall()
        )
        reader = con.sql(
            "select name_normalised from intermediate.int_matching__entity_names_keyed"
        ).to_arrow_reader(500_000)
        expected: set[tuple[str, str]] = set()
        with ProcessPoolExecutor(2, initializer=_recall_init, initargs=(registers,)) as pool:
            batches = (b.column(0).to_pylist() for b in reader)
            for pairs in pool.map(_recall_batch, batches):
                expected |= pairs
    finally:
        con.close()
    hit = len(expected & found)
    return {
        "recall_sample_register_names": len(registers),
        "recall_pairs_expected": len(expected),
        "recall_pairs_found": hit,
        "recall": round(hit / len(expected), 6) if expected else 1.0,
        "extra_pairs": len(found - expected),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--names", type=int, default=2_000_000)
    parser.add_argument("--register-names", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--recall-sample", type=int, default=0)
    parser.add_argument(
        "--distinct", action="store_true", help="NAMES distinct names (more generated first)"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_once(Path(args.one).resolve())))
        return 0

    # generated names repeat: distinct ones need about 2.5 times as many (measured at 20M)
    parts = generate(args.names * 5 // 2 if args.distinct else args.names)
    work = ROOT / ".bench" / "matching-run"
    runs = []
    for _ in range(args.repeat):
        prepare(parts, args.names, args.register_names, work, distinct=args.distinct)
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(work)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]), flush=True)
    summary = {
        "names": args.names,
        "distinct": args.distinct,
        "register_names": args.register_names,
        "runs": len(runs),
        "median_seconds": statistics.median(r["seconds"] for r in runs),
        "median_similarities_seconds": statistics.median(
            r["int_matching__name_similarities"] for r in runs
        ),
        "median_distinct_names_seconds": statistics.median(
            r["int_matching__entity_names_keyed"] for r in runs
        ),
        "max_peak_rss_mb_dbt": max(r["peak_rss_mb_dbt"] for r in runs),
    }
    if args.recall_sample:
        summary |= recall(work / "warehouse.duckdb", args.recall_sample)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
