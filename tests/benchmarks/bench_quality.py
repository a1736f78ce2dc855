"""Measure the blocking load checks: plain SQL in DuckDB against Great Expectations in DuckDB.

Not a pytest module (no ``test_`` prefix). Run it from the repository root:

    .venv/bin/python tests/benchmarks/bench_quality.py --rows 2000000
    # with the Great Expectations side (needs the SQLAlchemy driver, not a project dependency):
    uv run --no-sync --with duckdb-engine==0.17.0 python tests/benchmarks/bench_quality.py \
        --rows 2000000

It builds a table shaped like ``raw.abr__abns`` (valid ABNs, an ACN on 45 % of rows) in a
temporary DuckDB file, then times

* ``pipelines.warehouse.quality.run_checks`` (the SQL the loader runs), and
* the same five checks as Great Expectations 1.x expectations run by GX's SQL execution
  engine against the same DuckDB database, through SQLAlchemy + duckdb-engine, sharing the
  benchmark's own connection (``creator=`` hands GX cursors of it, as the loader would).

``--bad`` plants duplicate keys and bad check digits so both sides also time a failing load.
Figures go to stdout as a Markdown table; nothing is written outside the temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pipelines.identifiers import abn_valid_sql, acn_valid_sql  # noqa: E402
from pipelines.warehouse.quality import TableChecks, run_checks  # noqa: E402

TABLE = "raw.abr__abns__loading"
CHECKS = TableChecks(
    table="raw.abr__abns", key=("abn",), abn_columns=("abn",), acn_columns=("asic_number",)
)
MAX_DRIFT = 0.25

# digits of the first eight ACN positions, weights 8..1 -> check digit (pipelines.identifiers)
_ACN_SUM = " + ".join(f"cast(substr(first8, {i + 1}, 1) as integer) * {8 - i}" for i in range(8))
_ABN_BODY_SUM = " + ".join(
    f"cast(substr(body, {i + 1}, 1) as integer) * {w}"
    for i, w in enumerate((3, 5, 7, 9, 11, 13, 15, 17, 19))
)


def build_table(con: duckdb.DuckDBPyConnection, rows: int, *, bad: bool) -> None:
    """``rows`` unique valid ABNs; every ABN body is a valid ACN, listed for 45 % of rows."""
    con.execute("create schema if not exists raw")
    con.execute(
        f"""
        create or replace table {TABLE} as
        with firsts as (
            select i, lpad(cast((i * 7919 + 12345) % 100000000 as varchar), 8, '0') as first8
            from range(?) r(i)
        ),
        bodies as (
            select i, first8 || cast((10 - ({_ACN_SUM}) % 10) % 10 as varchar) as body
            from firsts
        ),
        sums as (select i, body, ({_ABN_BODY_SUM}) as body_sum from bodies),
        final as (
            select
                cast((89 - body_sum % 89) % 89 // 10 + 1 as varchar)
                    || cast((89 - body_sum % 89) % 89 % 10 as varchar) || body as abn,
                'ACT' as abn_status,
                date '2000-01-01' + cast(i % 9000 as integer) as abn_status_from_date,
                case when i % 20 < 9 then 'PRV' else 'IND' end as entity_type_code,
                'ENTITY ' || cast(i as varchar) as entity_name,
                (['NSW', 'VIC', 'QLD', 'WA', 'SA', 'TAS', 'ACT', 'NT'])[i % 8 + 1] as state,
                lpad(cast(800 + i % 7000 as varchar), 4, '0') as postcode,
                case when i % 20 < 9 then body end as asic_number,
                'abn_bulk_extract.zip!part1.xml' as source_file,
                i + 1 as source_line
            from sums
        )
        select * from final
        """,
        [rows],
    )
    if bad:  # 10 duplicate keys, 10 bad ABNs, 10 bad ACNs, spread through the table
        step = max(rows // 10, 1)
        con.execute(
            f"insert into {TABLE} select * from {TABLE} where source_line % ? = 1 limit 10",
            [step],
        )
        con.execute(
            f"update {TABLE} set abn = substr(abn, 1, 10) || cast((cast(substr(abn, 11, 1)"
            " as integer) + 1) % 10 as varchar) where source_line % ? = 2",
            [step],
        )
        con.execute(
            f"update {TABLE} set asic_number = substr(asic_number, 1, 8) || cast((cast("
            "substr(asic_number, 9, 1) as integer) + 1) % 10 as varchar)"
            " where asic_number is not null and source_line % ? = 3",
            [step],
        )


class Timer:
    """Wall and CPU seconds (CPU: all threads of this process, DuckDB's included) of each
    named step, over repeated runs. CPU time is the steadier figure on a shared machine."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        self.wall.setdefault(name, []).append(time.perf_counter() - wall)
        self.cpu.setdefault(name, []).append(time.process_time() - cpu)
        return result

    def cell(self, name: str) -> str:
        if name not in self.wall:
            return "-"
        wall, cpu = statistics.median(self.wall[name]), statistics.median(self.cpu[name])
        return f"{wall:.2f} / {cpu:.2f}"

    def ratio(self, name: str, baseline: str) -> str:
        wall = statistics.median(self.wall[name]) / statistics.median(self.wall[baseline])
        cpu = statistics.median(self.cpu[name]) / statistics.median(self.cpu[baseline])
        return f"{wall:.1f}x wall, {cpu:.1f}x CPU"


def gx_import_seconds() -> float:
    """Import time of great_expectations in a fresh interpreter (what a first load pays)."""
    code = (
        "import time; t = time.perf_counter(); import great_expectations, "
        "great_expectations.expectations; print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _cursor_per_statement(con: duckdb.DuckDBPyConnection) -> Any:
    """A duckdb-engine connection over a cursor of ``con`` whose every DB-API cursor is a
    fresh DuckDB cursor (``creator=`` for SQLAlchemy: GX shares the benchmark's database).

    Why: GX returns query results after it has handed its SQLAlchemy connection back to the
    pool. With stock duckdb-engine every DB-API cursor runs on the connection itself, so the
    rollback that comes with returning it discards DuckDB's pending result and GX reads no
    rows (every metric fails with ``list index out of range``). A cursor of its own keeps the
    result until GX has read it, and unread results (GX's column probe, a full
    ``select *``) are never turned into Python rows.
    """
    from duckdb_engine import ConnectionWrapper, CursorWrapper

    class CursorPerStatement(ConnectionWrapper):
        def cursor(self) -> CursorWrapper:
            return CursorWrapper(connection.cursor(), self)

    connection = con.cursor()
    return CursorPerStatement(connection)


def gx_stock_driver_works(tmp: Path) -> str:
    """Run one expectation through GX with stock duckdb-engine (own engine, own file)."""
    import great_expectations as gx
    import great_expectations.expectations as gxe

    path = tmp / "stock.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("create table t as select range as i from range(10)")
    context = gx.get_context(mode="ephemeral")
    _quiet(context)
    source = context.data_sources.add_sql(name="stock", connection_string=f"duckdb:///{path}")
    batch = (
        source.add_table_asset(name="t", table_name="t")
        .add_batch_definition_whole_table("all")
        .get_batch()
    )
    result = batch.validate(gxe.ExpectTableRowCountToBeBetween(min_value=1))
    if result.success:
        return "ok"
    info = result.exception_info or {}
    messages = {v.get("exception_message") for v in info.values() if isinstance(v, dict)}
    return "fails: " + "; ".join(sorted(m for m in messages if m)) if messages else "fails"


def _quiet(context: Any) -> None:
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context.variables.progress_bars = ProgressBarsConfig(globally=False)


def gx_expectations(previous_rows: int) -> dict[str, Any]:
    import great_expectations.expectations as gxe

    def unexpected(sql: str) -> Any:  # GX formats the query with str.format: double braces
        escaped = sql.replace("{", "{{").replace("}", "}}")
        return gxe.UnexpectedRowsExpectation(
            unexpected_rows_query=f"select * from {{batch}} where {escaped}"
        )

    return {
        "not_empty": gxe.ExpectTableRowCountToBeBetween(min_value=1),
        "key_unique": gxe.ExpectColumnValuesToBeUnique(column="abn"),
        "abn_check_digits": unexpected(f"abn is not null and not {abn_valid_sql('abn')}"),
        "acn_check_digits": unexpected(
            f"asic_number is not null and not {acn_valid_sql('asic_number')}"
        ),
        "row_count_drift": gxe.ExpectTableRowCountToBeBetween(
            min_value=int(previous_rows * (1 - MAX_DRIFT)),
            max_value=int(previous_rows * (1 + MAX_DRIFT)),
        ),
    }


def gx_validation(con: duckdb.DuckDBPyConnection, previous_rows: int) -> tuple[Any, Any, dict]:
    """An ephemeral GX context over ``con``: (validation definition, batch, expectations)."""
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")  # in memory: writes nothing to the repository
    _quiet(context)
    source = context.data_sources.add_sql(
        name="warehouse",
        connection_string="duckdb:///:memory:",  # dialect only: connections come from creator
        kwargs={"creator": lambda: _cursor_per_statement(con)},  # type: ignore[call-arg]
    )
    # A query asset: with a table asset in schema "raw", GX's column reflection falls back to
    # "select * from <table>" without the schema and column expectations fail.
    asset = source.add_query_asset(name="abns", query=f"select * from {TABLE}")
    definition = asset.add_batch_definition_whole_table("all")
    expectations = gx_expectations(previous_rows)
    suite = context.suites.add(gx.ExpectationSuite(name="raw_abr__abns"))
    for expectation in expectations.values():
        suite.add_expectation(expectation)
    validation = context.validation_definitions.add(
        gx.ValidationDefinition(name="raw_abr__abns", data=definition, suite=suite)
    )
    return validation, definition.get_batch(), expectations


def _observed(result: Any) -> str:
    r = result.result or {}
    if "unexpected_count" in r:
        return f"{r['unexpected_count']} unexpected"
    if "observed_value" in r:
        return str(r["observed_value"])
    return "error" if result.exception_info else ""


# One SQL query per check, for the per-check comparison (run_checks itself folds the row
# count and both check-digit counts into one scan).
SQL_PER_CHECK = {
    "not_empty": f"select count(*) from {TABLE}",
    "key_unique": f"select count(*) from (select abn from {TABLE} group by abn "
    "having count(*) > 1)",
    "abn_check_digits": f"select count(*) from {TABLE} where abn is not null "
    f"and not {abn_valid_sql('abn')}",
    "acn_check_digits": f"select count(*) from {TABLE} where asic_number is not null "
    f"and not {acn_valid_sql('asic_number')}",
}


def _fetch(con: duckdb.DuckDBPyConnection, query: str) -> list[Any]:
    return con.execute(query).fetchall()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--bad", action="store_true", help="plant failing rows")
    parser.add_argument("--no-gx", action="store_true", help="time the SQL checks only")
    args = parser.parse_args(argv)

    try:
        import duckdb_engine  # noqa: F401
    except ImportError:
        have_driver = False
    else:
        have_driver = True
    run_gx = not args.no_gx and have_driver

    timer = Timer()
    sql_outcomes: dict[str, str] = {}
    gx_outcomes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="bench_quality_") as tmp:
        con = duckdb.connect(str(Path(tmp) / "warehouse.duckdb"))
        started = time.perf_counter()
        build_table(con, args.rows, bad=args.bad)
        build = time.perf_counter() - started
        rows = con.execute(f"select count(*) from {TABLE}").fetchone()[0]  # type: ignore[index]
        threads = con.execute("select current_setting('threads')").fetchone()[0]  # type: ignore[index]
        previous_rows = rows  # a steady load: the drift check passes
        planted = " (with planted failures)" if args.bad else ""
        print(
            f"# {rows:,} rows{planted}; built in {build:.1f} s; "
            f"DuckDB {duckdb.__version__}, {threads} threads"
        )

        validation = batch = expectations = None
        if run_gx:
            import great_expectations as gx

            print(
                f"# Great Expectations {gx.__version__}: import {gx_import_seconds():.1f} s "
                "in a fresh interpreter"
            )
            print(f"# GX with the stock duckdb-engine driver: {gx_stock_driver_works(Path(tmp))}")
            started = time.perf_counter()
            validation, batch, expectations = gx_validation(con, previous_rows)
            print(f"# GX context, datasource and suite: {time.perf_counter() - started:.2f} s")
        elif not args.no_gx:
            print(
                "# Great Expectations skipped: duckdb-engine is not installed "
                "(uv run --with duckdb-engine==0.17.0 ...)"
            )

        for _ in range(args.repeat):  # interleaved, so load from elsewhere hits both sides
            outcomes = timer.run(
                "sql:suite",
                lambda: run_checks(
                    con, TABLE, CHECKS, previous_rows=previous_rows, max_drift=MAX_DRIFT
                ),
            )
            sql_outcomes = {
                o.name: f"{'pass' if o.passed else 'FAIL'}: {o.observed}" for o in outcomes
            }
            if validation is not None:
                timer.run("gx:suite", lambda: validation.run(result_format="SUMMARY"))
            for name, query in SQL_PER_CHECK.items():
                timer.run(f"sql:{name}", partial(_fetch, con, query))
            if batch is not None and expectations is not None:
                for name, expectation in expectations.items():
                    result = timer.run(f"gx:{name}", partial(batch.validate, expectation))
                    gx_outcomes[name] = f"{'pass' if result.success else 'FAIL'}: " + _observed(
                        result
                    )
        con.close()

    print()
    print(f"Seconds, wall / CPU, median of {args.repeat}:")
    print()
    print("| check | SQL query | run_checks outcome | GX expectation | GX outcome |")
    print("|---|---|---|---|---|")
    for name, outcome in sql_outcomes.items():
        print(
            f"| {name} | {timer.cell(f'sql:{name}')} | {outcome} "
            f"| {timer.cell(f'gx:{name}')} | {gx_outcomes.get(name, '-')} |"
        )
    print(
        f"| **all five** | {timer.cell('sql:suite')} (run_checks) | | "
        f"{timer.cell('gx:suite')} (one validation run) | |"
    )
    if "gx:suite" in timer.wall:
        print()
        print(f"GX / SQL, all five checks: {timer.ratio('gx:suite', 'sql:suite')}")


if __name__ == "__main__":
    main()
