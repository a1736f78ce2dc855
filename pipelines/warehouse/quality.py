"""Blocking data-quality checks on a raw table before it is swapped in, and their record.

The loader writes a source into a staging table (``raw.abr__abns__loading``), calls
:func:`run_checks` on it, stores the outcomes with :func:`record_outcomes` and swaps the
staging table in only when every blocking check passed. The checks, one row per rule:

==================  ==========================================================================
check               passes when
==================  ==========================================================================
not_empty           the table has at least one row
key_unique          no two rows share the declared key (rows outside ``key_filter`` ignored)
abn_check_digits    every non-null value of each declared ABN column has valid check digits
acn_check_digits    every non-null value of each declared ACN column has a valid check digit
row_count_drift     no previous load, or ``|rows - previous| / previous <= max_drift``
==================  ==========================================================================

The checks run as SQL inside DuckDB (engine ``sql``): Great Expectations 1.24, measured on
the same DuckDB data, needed workarounds to run there at all and cost 2.3 to 3.6 times as
much; ``docs/data-quality.md`` has the figures and ``tests/benchmarks/bench_quality.py``
reproduces them.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

import duckdb

from pipelines.identifiers import abn_valid_sql, acn_valid_sql

ENGINE = "sql"

# The stable check names, in report order.
NOT_EMPTY = "not_empty"
KEY_UNIQUE = "key_unique"
ABN_CHECK_DIGITS = "abn_check_digits"
ACN_CHECK_DIGITS = "acn_check_digits"
ROW_COUNT_DRIFT = "row_count_drift"
CHECK_ORDER = (NOT_EMPTY, KEY_UNIQUE, ABN_CHECK_DIGITS, ACN_CHECK_DIGITS, ROW_COUNT_DRIFT)

SAMPLE_SIZE = 5  # failing values quoted in a check's detail

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class TableChecks:
    """The checks a raw table declares (fixed strings in the source declarations)."""

    table: str  # logical name, e.g. "raw.abr__abns"
    key: tuple[str, ...]  # unique key columns; () for no key check
    abn_columns: tuple[str, ...] = ()  # non-null values must pass the ABN check digits
    acn_columns: tuple[str, ...] = ()  # non-null values must pass the ACN check digit
    # SQL predicate restricting the key check, e.g. "current_name_indicator = 'Y'".
    # Formatted into SQL as written: declarations only, never user input.
    key_filter: str | None = None
    # Daily sources add rows with every load: growth is expected, only a shrink counts as
    # drift (a load must not lose history).
    accumulates: bool = False


@dataclass(frozen=True)
class CheckOutcome:
    name: str  # one of CHECK_ORDER
    passed: bool
    blocking: bool
    observed: str
    expected: str
    detail: str  # JSON object: counts, failing samples, timing
    engine: str


def quote_identifier(name: str) -> str:
    """``"name"`` for a plain identifier; anything else is refused (names from declarations)."""
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return f'"{name}"'


def quote_table(name: str) -> str:
    """``"schema"."table"`` (or ``"table"``) for a dotted table name from the declarations."""
    return ".".join(quote_identifier(part) for part in name.split("."))


def check_names(checks: TableChecks) -> list[str]:
    """The names :func:`run_checks` reports for ``checks``, in order (for declaring them up front,
    e.g. as Dagster asset checks)."""
    wanted = {
        NOT_EMPTY: True,
        KEY_UNIQUE: bool(checks.key),
        ABN_CHECK_DIGITS: bool(checks.abn_columns),
        ACN_CHECK_DIGITS: bool(checks.acn_columns),
        ROW_COUNT_DRIFT: True,
    }
    return [name for name in CHECK_ORDER if wanted[name]]


def run_checks(
    con: duckdb.DuckDBPyConnection,
    physical_table: str,
    checks: TableChecks,
    *,
    previous_rows: int | None,
    max_drift: float,
) -> list[CheckOutcome]:
    """Evaluate every blocking check of ``checks`` on ``physical_table``.

    ``physical_table`` is the table actually read (the staging table); ``previous_rows`` is
    the row count of the previous successful load of the same table (None for the first).
    Runs on ``con`` itself (every result fetched at once), so it sees a staging table the
    caller has not committed yet; it only reads.
    """
    if max_drift < 0:
        raise ValueError(f"max_drift must be >= 0, got {max_drift}")
    table = quote_table(physical_table)
    rows, count_ms, digit_outcomes = _count_rows_and_check_digits(con, table, checks)
    outcomes = [_not_empty(rows, count_ms)]
    if checks.key:
        outcomes.append(_key_unique(con, table, checks))
    outcomes.extend(digit_outcomes)
    outcomes.append(_row_count_drift(rows, previous_rows, max_drift, checks.accumulates))
    return outcomes


def all_passed(outcomes: list[CheckOutcome]) -> bool:
    """True when no blocking check failed (the loader swaps the table in)."""
    return all(o.passed for o in outcomes if o.blocking)


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _detail(**values: Any) -> str:
    return json.dumps(values, sort_keys=True, default=str)


def _count_rows_and_check_digits(
    con: duckdb.DuckDBPyConnection, table: str, checks: TableChecks
) -> tuple[int, float, list[CheckOutcome]]:
    """The row count and non-null counts (one cheap query), then one query per ABN/ACN column
    counting invalid values: a ``where`` skips the nulls before the check-digit arithmetic,
    which measured about 15 % cheaper than one scan of ``filter`` aggregates."""
    rules = [(ABN_CHECK_DIGITS, c, abn_valid_sql) for c in checks.abn_columns] + [
        (ACN_CHECK_DIGITS, c, acn_valid_sql) for c in checks.acn_columns
    ]
    counts = ["count(*)", *(f"count({quote_identifier(column)})" for _, column, _ in rules)]
    started = time.perf_counter()
    row = con.execute(f"select {', '.join(counts)} from {table}").fetchone()
    assert row is not None
    count_ms = _ms_since(started)
    rows = int(row[0])

    per_column: dict[str, list[dict[str, Any]]] = {ABN_CHECK_DIGITS: [], ACN_CHECK_DIGITS: []}
    for i, (name, column, valid_sql) in enumerate(rules):
        col = quote_identifier(column)
        invalid_where = f"where {col} is not null and not {valid_sql(col)}"
        started = time.perf_counter()
        # min(x, n): the n smallest values, in bounded memory, however many are invalid
        invalid_row = con.execute(
            f"select count(*), min({col}, ?) from {table} {invalid_where}", [SAMPLE_SIZE]
        ).fetchone()
        assert invalid_row is not None
        invalid = int(invalid_row[0])
        entry: dict[str, Any] = {
            "column": column,
            "non_null": int(row[1 + i]),
            "invalid": invalid,
            "query_ms": _ms_since(started),
        }
        if invalid:
            entry["sample"] = sorted(set(invalid_row[1]))
        per_column[name].append(entry)

    outcomes = []
    for name, label in ((ABN_CHECK_DIGITS, "ABN"), (ACN_CHECK_DIGITS, "ACN")):
        columns = per_column[name]
        if not columns:
            continue
        invalid = sum(c["invalid"] for c in columns)
        non_null = sum(c["non_null"] for c in columns)
        outcomes.append(
            CheckOutcome(
                name=name,
                passed=invalid == 0,
                blocking=True,
                observed=f"{invalid} invalid of {non_null} non-null {label}s",
                expected=f"0 invalid {label}s (nulls allowed)",
                detail=_detail(columns=columns),
                engine=ENGINE,
            )
        )
    return rows, count_ms, outcomes


def _not_empty(rows: int, query_ms: float) -> CheckOutcome:
    return CheckOutcome(
        name=NOT_EMPTY,
        passed=rows > 0,
        blocking=True,
        observed=f"{rows} rows",
        expected="at least 1 row",
        detail=_detail(rows=rows, query_ms=query_ms),
        engine=ENGINE,
    )


def _key_unique(con: duckdb.DuckDBPyConnection, table: str, checks: TableChecks) -> CheckOutcome:
    """Key values held by more than one row. NULLs compare equal here, as in ``group by``."""
    key = ", ".join(quote_identifier(c) for c in checks.key)
    where = f"where ({checks.key_filter})" if checks.key_filter else ""
    duplicates = (
        f"select {key}, count(*) as dup_rows__ from {table} {where} "
        f"group by {key} having count(*) > 1"
    )
    started = time.perf_counter()
    # arg_max(x, by, n): the n most duplicated keys, in bounded memory
    row = con.execute(
        f"select count(*), coalesce(sum(dup_rows__), 0), arg_max(row({key}, dup_rows__), "
        f"dup_rows__, ?) from ({duplicates})",
        [SAMPLE_SIZE],
    ).fetchone()
    assert row is not None
    duplicate_keys, duplicate_rows = int(row[0]), int(row[1])
    detail: dict[str, Any] = {
        "key": list(checks.key),
        "key_filter": checks.key_filter,
        "duplicate_keys": duplicate_keys,
        "duplicate_rows": duplicate_rows,
        "query_ms": _ms_since(started),
    }
    observed = f"{duplicate_keys} duplicated keys over {duplicate_rows} rows"
    if duplicate_keys:
        sample = sorted(row[2], key=lambda r: (-r[-1], [str(v) for v in r[:-1]]))
        detail["sample"] = [{"key": list(r[:-1]), "rows": int(r[-1])} for r in sample]
        files = _files_of_duplicates(con, table, key, where)
        if files:
            detail["files"] = files
            observed += " in " + ", ".join(f"{name} ({rows:,})" for name, rows in files)
    scope = f" where {checks.key_filter}" if checks.key_filter else ""
    return CheckOutcome(
        name=KEY_UNIQUE,
        passed=duplicate_keys == 0,
        blocking=True,
        observed=observed,
        expected=f"({', '.join(checks.key)}) unique{scope}",
        detail=_detail(**detail),
        engine=ENGINE,
    )


def _files_of_duplicates(
    con: duckdb.DuckDBPyConnection, table: str, key: str, where: str
) -> list[tuple[str, int]]:
    """The landing files holding the duplicated rows (raw rows carry ``source_file``), most
    first, at most five: a failure names the file, not only the table."""
    columns = {r[0] for r in con.execute(f"describe {table}").fetchall()}
    if "source_file" not in columns:
        return []
    rows = con.execute(
        f"""
        select source_file, count(*) from (
            select source_file, count(*) over (partition by {key}) as copies__
            from {table} {where}
        )
        where copies__ > 1 group by source_file order by 2 desc, 1 limit 5
        """
    ).fetchall()
    return [(str(name), int(n)) for name, n in rows]


def _row_count_drift(
    rows: int, previous_rows: int | None, max_drift: float, accumulates: bool = False
) -> CheckOutcome:
    """Passes without a usable baseline: no previous load, or a previous count of 0 (an empty
    load never succeeds, and a failing check against 0 would refuse every load after it).
    For an accumulating table only a shrink counts."""
    expected = (
        f"(previous - rows) / previous <= {max_drift:.2%} (grows with every load)"
        if accumulates
        else f"|rows - previous| / previous <= {max_drift:.2%}"
    )
    if previous_rows is None or previous_rows <= 0:
        return CheckOutcome(
            name=ROW_COUNT_DRIFT,
            passed=True,
            blocking=True,
            observed=f"{rows} rows, no previous load to compare",
            expected=expected,
            detail=_detail(rows=rows, previous_rows=previous_rows, max_drift=max_drift),
            engine=ENGINE,
        )
    # Float division rounds correctly: a change of exactly the bound (1100 vs 1000 with
    # 0.1, 4 vs 3 with 1/3) gives the bound's own float and passes.
    change = (rows - previous_rows) / previous_rows
    drift = max(0.0, -change) if accumulates else abs(rows - previous_rows) / previous_rows
    return CheckOutcome(
        name=ROW_COUNT_DRIFT,
        passed=drift <= max_drift,
        blocking=True,
        observed=f"{rows} rows vs {previous_rows} previous ({change:+.2%})",
        expected=expected,
        detail=_detail(rows=rows, previous_rows=previous_rows, drift=drift, max_drift=max_drift),
        engine=ENGINE,
    )


def record_outcomes(
    con: duckdb.DuckDBPyConnection,
    *,
    load_id: str,
    source: str,
    table: str,
    outcomes: list[CheckOutcome],
) -> None:
    """Append one row per outcome to ``meta.dq_results`` (pass or fail), in one statement:
    the warehouse's connections checkpoint at every commit, and ``executemany`` would commit
    each row."""
    if not outcomes:
        return
    row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())"
    con.execute(
        f"""
        insert into meta.dq_results (load_id, source, table_name, check_name, engine,
            blocking, passed, observed, expected, detail, checked_at)
        values {", ".join(row for _ in outcomes)}
        """,
        [
            value
            for o in outcomes
            for value in (
                load_id,
                source,
                table,
                o.name,
                o.engine,
                o.blocking,
                o.passed,
                o.observed,
                o.expected,
                o.detail,
            )
        ],
    )


_REPORT_COLUMNS = (
    "load_id",
    "source",
    "table_name",
    "check_name",
    "engine",
    "blocking",
    "passed",
    "observed",
    "expected",
    "detail",
    "checked_at",
)


def dq_report(con: duckdb.DuckDBPyConnection, load_id: str) -> list[dict[str, Any]]:
    """The data-quality report of one load: every check of every table, failures first
    within a table, then in :data:`CHECK_ORDER`. ``detail`` is parsed from its JSON."""
    rows = con.execute(
        f"""
        select {", ".join(_REPORT_COLUMNS)}
        from meta.dq_results
        where load_id = ?
        order by table_name, passed, list_position(?, check_name) nulls last, check_name,
            checked_at
        """,
        [load_id, list(CHECK_ORDER)],
    ).fetchall()
    report = []
    for row in rows:
        entry = dict(zip(_REPORT_COLUMNS, row, strict=True))
        entry["detail"] = json.loads(entry["detail"]) if entry["detail"] else None
        report.append(entry)
    return report
