"""Phoenix links at the real sizes: wall time and peak memory of the dbt models that find them.

    python tests/benchmarks/bench_phoenix.py [--companies 3500000] [--officeholders 5000000]
                                             [--repeat 3]

Generates synthetic registers once (cached as Parquet under .bench/): ``--companies`` ASIC
companies, 12 % of them deregistered over the last four years (about what ASIC deregisters,
3 % a year), each with an ABN in the ABR extract; ``--officeholders`` officeholder rows
(every company has at least one, directors and secretaries, some ceased) held by a pool of
people whose names collide as real ones do: a head of common surnames (SMITH 1 %, NGUYEN,
JONES, ...) and a Zipf tail, first names just as skewed, 0-2 middle names, some rows written
with initials, birth dates on 98 % of rows (ASIC records them), and serial directors who hold many offices.

Each run, in a fresh warehouse: the raw tables are filled and `entities` built (not timed),
then the phoenix models are built with the real `dbt build --select` (timed twice):

* ``first``  - the history snapshots are empty: every deregistration and officeholder row is
  inserted, then the keyed officeholders, the links and the assessments are built and tested;
* ``again``  - the weekly case: the same extract again (the snapshots compare and change
  nothing), the models rebuilt.

Prints every run and the medians; peak RSS is the largest resident set of a dbt process.
Run two sizes of each input to see how the cost grows.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dbt_runner import AS_OF, run_dbt  # noqa: E402  (this folder)

PHOENIX_MODELS = (
    "asic__deregistered_companies directors__officeholders int_companies_deregistered "
    "int_officeholders_keyed phoenix_links phoenix_assessments"
)
DEREGISTERED_SHARE = 0.12  # over the last 48 months
BIRTH_DATE_SHARE = 0.98
INITIALS_SHARE = 0.03

# Common Australian surnames with rough shares (percent); the rest is a Zipf tail.
SURNAME_HEAD = {
    "SMITH": 1.0, "JONES": 0.6, "WILLIAMS": 0.55, "BROWN": 0.55, "WILSON": 0.5,
    "TAYLOR": 0.45, "NGUYEN": 0.45, "JOHNSON": 0.3, "WHITE": 0.3, "MARTIN": 0.3,
    "ANDERSON": 0.3, "THOMPSON": 0.3, "LEE": 0.3, "SINGH": 0.3, "WALKER": 0.25, "TRAN": 0.25,
    "HARRIS": 0.22, "RYAN": 0.22, "ROBINSON": 0.2, "KELLY": 0.2, "KING": 0.2, "DAVIS": 0.2,
    "WRIGHT": 0.2, "EVANS": 0.2, "ROBERTS": 0.2, "GREEN": 0.2, "CHEN": 0.2, "WANG": 0.2,
    "LI": 0.2, "HALL": 0.18, "WOOD": 0.18, "JACKSON": 0.18, "CLARKE": 0.18, "PATEL": 0.17,
    "MITCHELL": 0.17, "YOUNG": 0.16, "CAMPBELL": 0.16, "ZHANG": 0.15, "LE": 0.15, "KHAN": 0.1,
}  # fmt: skip
GIVEN_HEAD = {
    "JOHN": 3.0, "DAVID": 3.0, "MICHAEL": 2.8, "PETER": 2.5, "PAUL": 2.0, "ANDREW": 2.0,
    "MARK": 1.8, "ROBERT": 1.6, "JAMES": 1.6, "STEPHEN": 1.4, "CHRISTOPHER": 1.2, "SARAH": 1.1,
    "MATTHEW": 1.1, "JASON": 1.0, "ANTHONY": 1.0, "RICHARD": 1.0, "DANIEL": 1.0, "MARY": 0.9,
    "GREGORY": 0.9, "SCOTT": 0.9, "KAREN": 0.8, "JENNIFER": 0.8, "MICHELLE": 0.8, "SUSAN": 0.8,
    "WILLIAM": 0.8, "BRETT": 0.7, "GEOFFREY": 0.7, "IAN": 0.7, "LISA": 0.7, "THOMAS": 0.7,
    "ELIZABETH": 0.7, "JULIE": 0.6, "NICOLE": 0.6, "ANNE": 0.6, "GRAHAM": 0.6, "WEI": 0.5,
    "MOHAMMED": 0.5, "THI": 0.5, "VAN": 0.4, "RAJ": 0.3,
}  # fmt: skip
SYLLABLES = [
    "BAR", "KEN", "DOR", "MIL", "TON", "RAS", "VEL", "QUI", "SAN", "LOW", "FER", "GAN", "HOL",
    "BRI", "CAS", "DEN", "ELL", "MOR", "NAT", "PER", "RID", "STO", "WEL", "YAR", "ZEN", "OAK",
]  # fmt: skip


def _names(head: dict[str, float], tail: int, rng) -> tuple[list[str], object]:  # noqa: ANN001
    """Name list and sampling probabilities: the head at its shares, a Zipf tail for the rest."""
    import numpy as np

    tail_names = []
    seen = set(head)
    i = 0
    while len(tail_names) < tail:
        a, b, c = i % 26, (i // 26) % 26, (i // 676) % 26
        name = SYLLABLES[a] + SYLLABLES[b] + (SYLLABLES[c] if i >= 676 else "")
        name += "" if i < 17576 else str(i // 17576)
        i += 1
        if name not in seen:
            seen.add(name)
            tail_names.append(name)
    head_p = np.array(list(head.values())) / 100
    tail_w = 1 / (np.arange(tail) + 30.0)
    tail_p = tail_w / tail_w.sum() * (1 - head_p.sum())
    return [*head, *tail_names], np.concatenate([head_p, tail_p])


def generate(companies: int, officeholders: int) -> Path:
    folder = ROOT / ".bench" / f"phoenix-{companies}-{officeholders}"
    marker = folder / ".complete"
    if marker.exists():
        return folder
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    rng = np.random.default_rng(7)
    as_of = np.datetime64(AS_OF)

    # companies: ACN = 9-digit number; 12 % deregistered within the last 48 months
    acns = np.char.zfill(np.arange(1, companies + 1).astype(str), 9)
    deregistered = rng.random(companies) < DEREGISTERED_SHARE
    dereg_days = rng.integers(0, 48 * 30, companies)
    dereg_date = np.where(deregistered, as_of - dereg_days, np.datetime64("NaT"))
    pq.write_table(
        pa.table(
            {
                "company_name": pa.array(np.char.add("COMPANY ", acns)),
                "acn": pa.array(acns),
                "type": pa.array(np.full(companies, "APTY")),
                "status": pa.array(np.where(deregistered, "DRGD", "REGD")),
                "date_of_registration": pa.array(np.full(companies, np.datetime64("2000-01-01"))),
                "date_of_deregistration": pa.array(dereg_date.astype("datetime64[D]")),
                "current_name_indicator": pa.array(np.full(companies, "Y")),
                "abn": pa.array(np.char.add("51", acns)),
            }
        ),
        folder / "companies.parquet",
    )

    # people: a pool of about 0.6 persons per office; 15 % of offices go to the 10 %
    # who are serial directors
    people = max(int(officeholders * 0.6), 1)
    surnames, surname_p = _names(SURNAME_HEAD, 200_000, rng)
    givens, given_p = _names(GIVEN_HEAD, 5_000, rng)
    surname_of = rng.choice(len(surnames), people, p=surname_p)
    given_idx = rng.choice(len(givens), (people, 3), p=given_p)
    middles = rng.choice(3, people, p=[0.35, 0.55, 0.10])
    births = np.datetime64("1940-01-01") + rng.integers(0, 60 * 365, people)
    surnames_arr = np.array(surnames, dtype=object)
    givens_arr = np.array(givens, dtype=object)

    # offices: every company has one, the rest fall on random companies
    company_of = np.concatenate(
        [np.arange(companies), rng.integers(0, companies, max(officeholders - companies, 0))]
    )[:officeholders]
    serial = rng.random(officeholders) < 0.15
    person_of = np.where(
        serial,
        rng.integers(0, max(people // 10, 1), officeholders),
        rng.integers(0, people, officeholders),
    )
    first_office = np.zeros(officeholders, dtype=bool)
    first_office[: min(companies, officeholders)] = True
    role = np.where(first_office | (rng.random(officeholders) < 0.75), "DIRECTOR", "SECRETARY")
    appointed = np.datetime64("2000-01-01") + rng.integers(0, 24 * 365, officeholders)
    company_dereg = dereg_date[company_of].astype("datetime64[D]")
    other_ceased = np.where(
        rng.random(officeholders) < 0.10,
        appointed + rng.integers(30, 2000, officeholders),
        np.datetime64("NaT"),
    ).astype("datetime64[D]")
    ceased = np.where(deregistered[company_of], company_dereg, other_ceased)

    # names as listed: SURNAME, GIVEN MIDDLE..., some with initials only
    p_given = given_idx[person_of]
    p_middles = middles[person_of]
    initials = rng.random(officeholders) < INITIALS_SHARE
    first = givens_arr[p_given[:, 0]]
    m1 = givens_arr[p_given[:, 1]]
    m2 = givens_arr[p_given[:, 2]]
    first_s = np.where(initials, np.array([s[0] for s in first], dtype=object), first)
    m1_s = np.where(initials, np.array([s[0] for s in m1], dtype=object), m1)
    m2_s = np.where(initials, np.array([s[0] for s in m2], dtype=object), m2)
    given = np.where(
        p_middles == 0,
        first_s,
        np.where(p_middles == 1, first_s + " " + m1_s, first_s + " " + m1_s + " " + m2_s),
    )
    names = surnames_arr[surname_of[person_of]] + ", " + given
    birth = np.where(
        rng.random(officeholders) < BIRTH_DATE_SHARE, births[person_of], np.datetime64("NaT")
    )
    pq.write_table(
        pa.table(
            {
                "acn": pa.array(acns[company_of]),
                "person_name": pa.array(names.astype(str)),
                "role": pa.array(role),
                "appointed_date": pa.array(appointed.astype("datetime64[D]")),
                "ceased_date": pa.array(ceased.astype("datetime64[D]")),
                "birth_date": pa.array(birth.astype("datetime64[D]")),
                "extracted_date": pa.array(np.full(officeholders, as_of)),
            }
        ),
        folder / "officeholders.parquet",
    )
    marker.touch()
    print(
        f"generated {companies:,} companies and {officeholders:,} officeholder rows"
        f" in {time.perf_counter() - started:.1f}s"
    )
    return folder


def prepare(folder: Path) -> Path:
    """A fresh warehouse: every raw table (empty unless generated) and `entities` built."""
    import duckdb

    from pipelines.ingest.sources import SOURCES
    from pipelines.warehouse.connection import create_table_sql

    work = folder / "run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    warehouse = work / "warehouse.duckdb"
    con = duckdb.connect(str(warehouse))
    try:
        con.execute("create schema raw")
        for source in SOURCES.values():
            for table in source.tables.values():
                con.execute(create_table_sql(f"raw.{table.name}", table.schema))
        companies = str(folder / "companies.parquet")
        officeholders = str(folder / "officeholders.parquet")
        con.execute(
            "insert into raw.asic__companies by name select *, 'bench' as source_file,"
            " 1 as source_line from read_parquet(?)",
            [companies],
        )
        con.execute(
            "insert into raw.directors__officeholders by name select *, 'bench' as source_file,"
            " 1 as source_line from read_parquet(?)",
            [officeholders],
        )
        con.execute(
            "insert into raw.abr__abns by name select abn, 'PRV' as entity_type_code,"
            " false as is_individual, company_name as entity_name, 'ACT' as abn_status,"
            " acn as asic_number, 'N' as replaced, 'bench' as source_file, 1 as source_line"
            " from read_parquet(?)",
            [companies],
        )
        con.execute("checkpoint")
    finally:
        con.close()
    run_dbt(warehouse, work, "run", "--select", "+entities +stg_directors__officeholders")
    return work


def measure_once(work: Path) -> dict:
    """Build the phoenix models twice in the prepared warehouse; what it took."""
    import duckdb

    warehouse = work / "warehouse.duckdb"
    first = run_dbt(warehouse, work, "build", "--select", PHOENIX_MODELS)
    steps = _node_seconds(work)
    again = run_dbt(warehouse, work, "build", "--select", PHOENIX_MODELS)
    steps_again = _node_seconds(work)
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        counts = dict(
            con.execute(
                "select 'links', count(*) from marts.phoenix_links union all"
                " select 'linked_abns', count(*) from marts.phoenix_assessments"
                " where phoenix_status = 'linked' union all"
                " select 'deregistered_in_window', count(*) from intermediate.int_companies_deregistered"
                f" where deregistration_date >= date '{AS_OF}' - interval 36 month union all"
                " select 'officeholders', count(*) from intermediate.int_officeholders_keyed union all"
                " select 'entities', count(*) from marts.entities"
            ).fetchall()
        )
    finally:
        con.close()
    return {
        "first_seconds": round(first, 1),
        "again_seconds": round(again, 1),
        **counts,
        "peak_rss_mb_dbt": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
        "first_steps": steps,
        "again_steps": steps_again,
    }


def _node_seconds(work: Path) -> dict[str, float]:
    """Seconds per snapshot and model of the last dbt build (tests summed as `tests`)."""
    results = json.loads((work / "target" / "run_results.json").read_text())["results"]
    steps: dict[str, float] = {}
    for result in results:
        kind, _, name = result["unique_id"].split(".", 2)
        key = name.split(".")[-1] if kind in {"model", "snapshot"} else "tests"
        steps[key] = round(steps.get(key, 0) + result["execution_time"], 1)
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--companies", type=int, default=3_500_000)
    parser.add_argument("--officeholders", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one measured run
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_once(Path(args.one).resolve())))
        return 0

    folder = generate(args.companies, args.officeholders)
    runs = []
    for _ in range(args.repeat):
        work = prepare(folder)
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(work)],
            check=True,
            capture_output=True,
            text=True,
        )
        run = json.loads(out.stdout.strip().splitlines()[-1])
        runs.append(run)
        print(json.dumps(run), flush=True)
    shutil.rmtree(folder / "run", ignore_errors=True)
    median = {
        k: statistics.median(r[k] for r in runs)
        for k in ("first_seconds", "again_seconds", "peak_rss_mb_dbt")
    }
    print(
        f"phoenix models, {args.companies:,} companies, {args.officeholders:,} officeholder rows,"
        f" median of {len(runs)}: first build {median['first_seconds']:.1f} s,"
        f" rebuild {median['again_seconds']:.1f} s wall, peak RSS dbt {median['peak_rss_mb_dbt']:.0f} MB;"
        f" {runs[0]['links']:,} links, {runs[0]['linked_abns']:,} linked ABNs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
