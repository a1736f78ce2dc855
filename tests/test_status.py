"""`bvs status` and the summary after `bvs run`: what they count (pipelines/status.py)."""

import datetime as dt
import json

import duckdb

from pipelines.settings import Settings
from pipelines.status import _mart_counts, collect_status, mart_rows, render_status
from pipelines.warehouse.meta import ensure_meta
from pipelines.warehouse.quality import CheckOutcome, record_outcomes


def test_mart_tables_are_counted_and_views_are_not_run() -> None:
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute("create table marts.verifications as select range as abn from range(3)")
    # a view is its query: counting marts.tiles ran the long form of every verification
    # (72 million rows at 2 million ABNs); this one fails if it is ever run
    con.execute("create view marts.tiles as select error('a view was counted') as abn")

    counts = _mart_counts(con)

    assert counts == {"marts.tiles": None, "marts.verifications": 3}
    assert [mart_rows(n) for n in counts.values()] == ["view", "3 rows"]


def test_a_failure_cleared_by_the_last_good_files_shows_loaded_with_their_checks(
    settings: Settings,
) -> None:
    """Issue 34: a failed attempt, then an "unchanged" one (the refused files are gone): the
    source is loaded again, with the checks of the load whose files are back."""
    at = dt.datetime(2026, 11, 18, 1, 0, tzinfo=dt.UTC)
    loads = [
        ("ppsr-1", "loaded", at, "8 rows from 1 files"),
        ("ppsr-2", "failed", at + dt.timedelta(hours=1), "ppsr: registrations_2.csv: ..."),
        ("ppsr-3", "unchanged", at + dt.timedelta(hours=2), "the landed files are again ..."),
    ]
    with duckdb.connect(str(settings.warehouse)) as con:
        ensure_meta(con)
        for load_id, status, started, message in loads:
            con.execute(
                "insert into meta.loads values (?, 'ppsr', ?, ?, ?, null, null, ?, 0, ?)",
                [load_id, status, started, started, '{"ppsr__registrations": 8}', message],
            )
        outcome = CheckOutcome("not_empty", True, True, "8 rows", "at least 1 row", "{}", "sql")
        for load_id in ("ppsr-1", "ppsr-2"):
            record_outcomes(
                con,
                load_id=load_id,
                source="ppsr",
                table="raw.ppsr__registrations",
                outcomes=[outcome],
            )

    status = collect_status(settings, today=dt.date(2026, 11, 20))

    (ppsr,) = [s for s in status["sources"] if s["source"] == "ppsr"]
    assert (ppsr["status"], ppsr["last_attempt"]) == ("loaded", "unchanged")
    assert ppsr["last_load_id"] == "ppsr-1"
    assert [c["check_name"] for c in ppsr["checks"]] == ["not_empty"]
    assert "last attempt failed" not in render_status(status)


def test_status_during_a_run_shows_the_last_published_state(settings: Settings) -> None:
    """Issue 36, item 3: while a run holds the warehouse, `bvs status` said every source was
    "never loaded". It shows what the run last published, and the run beside it."""
    from tests.published import a_run_holding_the_warehouse, bvs, publish

    info = publish(settings)
    with a_run_holding_the_warehouse(settings):
        shown = bvs(settings, "status", "--as-of", "2026-11-20")
        as_json = bvs(settings, "status", "--json", "--as-of", "2026-11-20")
    assert shown.returncode == 0 and as_json.returncode == 0, shown.stderr + as_json.stderr

    status = json.loads(as_json.stdout)
    by_source = {s["source"]: s for s in status["sources"]}
    assert by_source["asic_companies"]["status"] == "loaded"
    assert by_source["asic_companies"]["extract_date"] == "2026-11-18"
    assert by_source["abr"]["status"] == "failed (previous data kept)"
    assert by_source["abr"]["last_message"] == "abr: public_split_1.zip: not a zip file"
    assert status["state_from"] == f"snapshot {info.snapshot_id}"
    assert status["run_in_progress"]["command"] == "bvs run --as-of 2026-11-20"
    assert status["marts"] == {"marts.companies": 3, "marts.first_company": None}
    assert (
        "abr: never loaded" not in status["stale"]
        and "asic_companies: never loaded" not in status["stale"]
    )

    text = shown.stdout
    assert "run in progress since " in text and "bvs run --as-of 2026-11-20 (PID " in text
    assert f"showing the last published state (snapshot {info.snapshot_id})" in text
    assert "asic_companies         loaded" in text
    assert "last attempt failed: abr: public_split_1.zip: not a zip file" in text
