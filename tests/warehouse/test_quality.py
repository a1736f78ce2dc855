"""The blocking load checks, one rule at a time, on small tables in a temporary warehouse."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.identifiers import abn_from_acn, abn_is_valid, acn_check_digit, acn_is_valid
from pipelines.warehouse.meta import ensure_meta
from pipelines.warehouse.quality import (
    CHECK_ORDER,
    CheckOutcome,
    TableChecks,
    all_passed,
    check_names,
    dq_report,
    quote_table,
    record_outcomes,
    run_checks,
)

STAGING = "raw.companies__loading"
CHECKS = TableChecks(
    table="raw.companies",
    key=("acn", "current_name_indicator"),
    abn_columns=("abn",),
    acn_columns=("acn",),
)


def _acn(first_eight: str) -> str:
    return first_eight + str(acn_check_digit(first_eight))


GOOD_ACNS = [_acn(f"{n:08d}") for n in (10000001, 12345678, 87654321, 50000005)]


def _bad_check_digit(identifier: str) -> str:
    return identifier[:-1] + str((int(identifier[-1]) + 1) % 10)


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    ensure_meta(connection)
    yield connection
    connection.close()


def load(con: duckdb.DuckDBPyConnection, rows: list[tuple[str | None, ...]]) -> None:
    """(acn, current_name_indicator, abn) rows into the staging table."""
    con.execute(
        f"create or replace table {STAGING} "
        "(acn varchar, current_name_indicator varchar, abn varchar, name varchar)"
    )
    if rows:
        con.executemany(f"insert into {STAGING} values (?, ?, ?, 'ACME PTY LTD')", rows)


def good_rows() -> list[tuple[str | None, ...]]:
    return [(acn, "Y", abn_from_acn(acn)) for acn in GOOD_ACNS]


def check(
    con: duckdb.DuckDBPyConnection,
    name: str,
    checks: TableChecks = CHECKS,
    *,
    previous_rows: int | None = None,
    max_drift: float = 0.25,
) -> CheckOutcome:
    outcomes = run_checks(con, STAGING, checks, previous_rows=previous_rows, max_drift=max_drift)
    (outcome,) = [o for o in outcomes if o.name == name]
    return outcome


def test_the_fixture_data_is_what_the_tests_say() -> None:
    assert all(acn_is_valid(a) and abn_is_valid(abn_from_acn(a)) for a in GOOD_ACNS)
    assert not acn_is_valid(_bad_check_digit(GOOD_ACNS[0]))
    assert not abn_is_valid(_bad_check_digit(abn_from_acn(GOOD_ACNS[0])))


def test_good_data_passes_every_check_and_every_check_is_blocking(
    con: duckdb.DuckDBPyConnection,
) -> None:
    load(con, good_rows())
    outcomes = run_checks(con, STAGING, CHECKS, previous_rows=4, max_drift=0.25)
    assert [o.name for o in outcomes] == list(CHECK_ORDER)
    assert all(o.passed and o.blocking and o.engine == "sql" for o in outcomes)
    assert all_passed(outcomes)
    assert all(isinstance(json.loads(o.detail), dict) for o in outcomes)


def test_checks_without_key_or_identifier_columns_are_not_run(
    con: duckdb.DuckDBPyConnection,
) -> None:
    load(con, good_rows())
    outcomes = run_checks(
        con, STAGING, TableChecks(table="raw.companies", key=()), previous_rows=None, max_drift=0
    )
    assert [o.name for o in outcomes] == ["not_empty", "row_count_drift"]


@pytest.mark.parametrize(
    "checks",
    [
        CHECKS,
        TableChecks(table="raw.abr__abns", key=("abn",), abn_columns=("abn",)),
        TableChecks(table="raw.asic__business_names", key=(), abn_columns=("abn",)),
        TableChecks(table="raw.x", key=(), acn_columns=("acn",)),
        TableChecks(table="raw.x", key=()),
    ],
)
def test_check_names_declares_exactly_the_checks_run_checks_reports(
    con: duckdb.DuckDBPyConnection, checks: TableChecks
) -> None:
    load(con, good_rows())
    outcomes = run_checks(con, STAGING, checks, previous_rows=4, max_drift=0.25)
    assert check_names(checks) == [o.name for o in outcomes]


# --- not_empty -------------------------------------------------------------------------------


def test_not_empty_fails_on_an_empty_table(con: duckdb.DuckDBPyConnection) -> None:
    load(con, [])
    outcome = check(con, "not_empty")
    assert not outcome.passed
    assert outcome.observed == "0 rows"
    assert not all_passed(run_checks(con, STAGING, CHECKS, previous_rows=None, max_drift=0.25))


def test_not_empty_passes_with_one_row(con: duckdb.DuckDBPyConnection) -> None:
    load(con, good_rows()[:1])
    assert check(con, "not_empty").passed


# --- key_unique ------------------------------------------------------------------------------


def test_key_unique_fails_on_a_duplicate_key(con: duckdb.DuckDBPyConnection) -> None:
    rows = good_rows()
    load(con, [*rows, rows[1]])
    outcome = check(con, "key_unique")
    assert not outcome.passed
    detail = json.loads(outcome.detail)
    assert (detail["duplicate_keys"], detail["duplicate_rows"]) == (1, 2)
    assert detail["sample"] == [{"key": [GOOD_ACNS[1], "Y"], "rows": 2}]


def test_key_unique_detail_lists_the_most_duplicated_keys_first(
    con: duckdb.DuckDBPyConnection,
) -> None:
    rows = good_rows()
    load(con, [*rows, rows[0], rows[3], rows[3]])
    detail = json.loads(check(con, "key_unique").detail)
    assert (detail["duplicate_keys"], detail["duplicate_rows"]) == (2, 5)
    assert detail["sample"] == [
        {"key": [GOOD_ACNS[3], "Y"], "rows": 3},
        {"key": [GOOD_ACNS[0], "Y"], "rows": 2},
    ]


def test_key_unique_uses_every_key_column(con: duckdb.DuckDBPyConnection) -> None:
    # same ACN under two indicators: distinct compound keys
    acn = GOOD_ACNS[0]
    load(con, [(acn, "Y", abn_from_acn(acn)), (acn, "N", abn_from_acn(acn))])
    assert check(con, "key_unique").passed
    single = TableChecks(table="raw.companies", key=("acn",))
    assert not check(con, "key_unique", single).passed


def test_key_unique_ignores_duplicates_outside_the_key_filter(
    con: duckdb.DuckDBPyConnection,
) -> None:
    acn = GOOD_ACNS[0]
    former_names = [(acn, "N", abn_from_acn(acn))] * 3  # one company, three former names
    load(con, [*good_rows(), *former_names])
    current_only = TableChecks(
        table="raw.companies", key=("acn",), key_filter="current_name_indicator = 'Y'"
    )
    assert check(con, "key_unique", current_only).passed
    everything = TableChecks(table="raw.companies", key=("acn",))
    assert not check(con, "key_unique", everything).passed


def test_key_unique_still_fails_on_a_duplicate_inside_the_key_filter(
    con: duckdb.DuckDBPyConnection,
) -> None:
    acn = GOOD_ACNS[0]
    load(con, [*good_rows(), (acn, "Y", abn_from_acn(acn))])
    current_only = TableChecks(
        table="raw.companies", key=("acn",), key_filter="current_name_indicator = 'Y'"
    )
    assert not check(con, "key_unique", current_only).passed


# --- check digits ----------------------------------------------------------------------------


def test_abn_check_digits_fail_on_one_bad_abn(con: duckdb.DuckDBPyConnection) -> None:
    rows = good_rows()
    bad_abn = _bad_check_digit(rows[2][2] or "")
    rows[2] = (rows[2][0], "Y", bad_abn)
    load(con, rows)
    outcome = check(con, "abn_check_digits")
    assert not outcome.passed
    assert outcome.observed == "1 invalid of 4 non-null ABNs"
    assert json.loads(outcome.detail)["columns"][0]["sample"] == [bad_abn]
    assert check(con, "acn_check_digits").passed


def test_acn_check_digit_fails_on_one_bad_acn(con: duckdb.DuckDBPyConnection) -> None:
    rows = good_rows()
    bad_acn = _bad_check_digit(GOOD_ACNS[3])
    rows[3] = (bad_acn, "Y", None)
    load(con, rows)
    outcome = check(con, "acn_check_digits")
    assert not outcome.passed
    assert json.loads(outcome.detail)["columns"][0]["sample"] == [bad_acn]
    assert check(con, "abn_check_digits").passed


@pytest.mark.parametrize("malformed", ["", "1234567890", "5300426255A", "53 004 262 551"])
def test_abn_check_digits_fail_on_malformed_values(
    con: duckdb.DuckDBPyConnection, malformed: str
) -> None:
    load(con, [*good_rows(), (GOOD_ACNS[0], "N", malformed)])
    assert not check(con, "abn_check_digits").passed


def test_null_identifiers_are_allowed(con: duckdb.DuckDBPyConnection) -> None:
    rows = good_rows()
    rows[0] = (rows[0][0], "Y", None)  # a company without an ABN
    rows.append((None, "Y", None))  # a row without an ACN either
    load(con, rows)
    abn = check(con, "abn_check_digits")
    assert abn.passed
    assert abn.observed == "0 invalid of 3 non-null ABNs"
    assert check(con, "acn_check_digits").passed


def test_every_declared_identifier_column_is_checked(con: duckdb.DuckDBPyConnection) -> None:
    load(con, good_rows())
    con.execute(f"alter table {STAGING} add column other_abn varchar default '12345678901'")
    two = TableChecks(table="raw.companies", key=(), abn_columns=("abn", "other_abn"))
    outcome = check(con, "abn_check_digits", two)
    assert not outcome.passed
    columns = json.loads(outcome.detail)["columns"]
    assert [(c["column"], c["invalid"]) for c in columns] == [("abn", 0), ("other_abn", 4)]


# --- row_count_drift -------------------------------------------------------------------------


def load_n_rows(con: duckdb.DuckDBPyConnection, n: int) -> None:
    con.execute(
        f"create or replace table {STAGING} as select null::varchar as acn, "
        "'Y' as current_name_indicator, null::varchar as abn from range(?)",
        [n],
    )


@pytest.mark.parametrize(
    ("rows", "previous_rows", "max_drift", "passes"),
    [
        pytest.param(4, None, 0.0, True, id="no previous load: passes"),
        pytest.param(1100, 1000, 0.1, True, id="up 10% with a 10% bound: just inside"),
        pytest.param(1101, 1000, 0.1, False, id="up 10.1% with a 10% bound: just outside"),
        pytest.param(750, 1000, 0.25, True, id="down 25% with a 25% bound: just inside"),
        pytest.param(749, 1000, 0.25, False, id="down 25.1% with a 25% bound: just outside"),
        pytest.param(4, 3, 1 / 3, True, id="up a third with a one-third bound: just inside"),
        pytest.param(4, 3, 0.33, False, id="up 33.3% with a 33% bound: just outside"),
        pytest.param(4, 4, 0.0, True, id="unchanged with a zero bound"),
        pytest.param(5, 4, 0.0, False, id="one row more with a zero bound"),
        pytest.param(4, 400, 0.25, False, id="a hundredth of the previous load"),
        pytest.param(4, 0, 0.25, True, id="previous count 0 is no baseline"),
    ],
)
def test_row_count_drift(
    con: duckdb.DuckDBPyConnection,
    rows: int,
    previous_rows: int | None,
    max_drift: float,
    passes: bool,
) -> None:
    load_n_rows(con, rows)
    checks = TableChecks(table="raw.companies", key=())
    outcome = check(
        con, "row_count_drift", checks, previous_rows=previous_rows, max_drift=max_drift
    )
    assert outcome.passed is passes
    assert outcome.blocking
    assert json.loads(outcome.detail)["rows"] == rows


def test_row_count_drift_refuses_a_negative_bound(con: duckdb.DuckDBPyConnection) -> None:
    load(con, good_rows())
    with pytest.raises(ValueError, match="max_drift"):
        run_checks(con, STAGING, CHECKS, previous_rows=4, max_drift=-0.1)


# --- identifiers and the staging table -------------------------------------------------------


@pytest.mark.parametrize("name", ["raw.x; drop table meta.loads", 'raw."x"', "raw.x y"])
def test_table_names_that_are_not_plain_identifiers_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="identifier"):
        quote_table(name)


def test_a_column_name_that_is_not_an_identifier_is_refused(
    con: duckdb.DuckDBPyConnection,
) -> None:
    load(con, good_rows())
    bad = TableChecks(table="raw.companies", key=("acn) or (1=1",))
    with pytest.raises(ValueError, match="identifier"):
        run_checks(con, STAGING, bad, previous_rows=None, max_drift=0.25)


def test_checks_see_an_uncommitted_staging_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("begin")
    load(con, good_rows())
    assert check(con, "not_empty").passed
    con.execute("rollback")


# --- record_outcomes / dq_report -------------------------------------------------------------


def test_outcomes_round_trip_through_meta_dq_results(con: duckdb.DuckDBPyConnection) -> None:
    rows = good_rows()
    load(con, [*rows, rows[0]])  # one duplicate key
    outcomes = run_checks(con, STAGING, CHECKS, previous_rows=5, max_drift=0.25)
    record_outcomes(con, load_id="load-2", source="asic", table="raw.companies", outcomes=outcomes)
    load(con, rows)
    other = run_checks(con, STAGING, CHECKS, previous_rows=None, max_drift=0.25)
    record_outcomes(con, load_id="load-3", source="asic", table="raw.companies", outcomes=other)

    report = dq_report(con, "load-2")
    assert len(report) == len(outcomes)
    assert {r["load_id"] for r in report} == {"load-2"}
    # failures first, then the stable check order
    assert [(r["check_name"], r["passed"]) for r in report] == [
        ("key_unique", False),
        ("not_empty", True),
        ("abn_check_digits", True),
        ("acn_check_digits", True),
        ("row_count_drift", True),
    ]
    by_name = {o.name: o for o in outcomes}
    for row in report:
        outcome = by_name[row["check_name"]]
        assert (row["source"], row["table_name"], row["engine"]) == ("asic", "raw.companies", "sql")
        assert (row["passed"], row["blocking"]) == (outcome.passed, outcome.blocking)
        assert (row["observed"], row["expected"]) == (outcome.observed, outcome.expected)
        assert row["detail"] == json.loads(outcome.detail)
        assert row["checked_at"] is not None
    assert dq_report(con, "no-such-load") == []
