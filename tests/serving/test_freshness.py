"""Stale data: one rule (docs/decisions/10-stale-data-is-reported.md), the cadence read from the snapshot."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest

from pipelines.serving.freshness import is_stale, published_cadences, stale_sources
from pipelines.settings import Settings, get_settings
from pipelines.warehouse.connection import connect
from pipelines.warehouse.snapshot import open_snapshot, publish_snapshot

TODAY = dt.date(2026, 11, 21)


@pytest.mark.parametrize(
    ("extract", "cadence", "expected"),
    [
        pytest.param(dt.date(2026, 11, 14), 7, False, id="exactly the cadence old => fresh"),
        pytest.param(dt.date(2026, 11, 13), 7, True, id="a day older than the cadence => stale"),
        pytest.param(dt.date(2026, 11, 21), 0, False, id="today's extract, daily => fresh"),
        pytest.param(None, 7, None, id="not loaded => not known"),
        pytest.param(dt.date(2026, 1, 1), None, None, id="no cadence recorded => not known"),
    ],
)
def test_stale_is_older_than_the_refresh_cadence(
    extract: dt.date | None, cadence: int | None, expected: bool | None
) -> None:
    assert is_stale(extract, cadence, TODAY) is expected


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return get_settings(data_dir=tmp_path / "data", warehouse_path=tmp_path / "wh.duckdb")


def _warehouse(settings: Settings) -> duckdb.DuckDBPyConnection:
    """A warehouse with one mart and the last loads of three sources."""
    from pipelines.warehouse.meta import ensure_meta

    con = connect(settings)
    con.execute("create schema marts")
    con.execute("create table marts.entities as select 1 as n")
    ensure_meta(con)
    finished = dt.datetime(2026, 11, 20, tzinfo=dt.UTC)
    for source, extract in (
        ("abr", dt.date(2026, 11, 10)),  # 11 days: stale at a 7-day cadence
        ("prices", dt.date(2026, 11, 20)),  # a day: fresh at 4
        ("gazette", dt.date(2026, 9, 1)),  # no cadence published for it
    ):
        con.execute(
            "insert into meta.loads (load_id, source, status, started_at, finished_at,"
            " extract_date) values (?, ?, 'loaded', ?, ?, ?)",
            [f"{source}-1", source, finished, finished, extract],
        )
    return con


def test_the_snapshot_carries_each_sources_cadence_and_readers_use_it(
    settings: Settings,
) -> None:
    con = _warehouse(settings)
    try:
        publish_snapshot(con, settings, as_of=TODAY, cadences={"abr": 7, "prices": 4, "asic": 7})
    finally:
        con.close()
    with open_snapshot(settings) as snap:
        assert published_cadences(snap) == {"abr": 7, "prices": 4}
        assert stale_sources(snap, TODAY) == ["abr"]
        assert stale_sources(snap, TODAY + dt.timedelta(days=30)) == ["abr", "prices"]


def test_a_snapshot_published_without_cadences_reports_nothing_stale(
    settings: Settings,
) -> None:
    con = _warehouse(settings)
    try:
        publish_snapshot(con, settings, as_of=TODAY)
    finally:
        con.close()
    with open_snapshot(settings) as snap:
        assert published_cadences(snap) == {}
        assert stale_sources(snap, TODAY + dt.timedelta(days=365)) == []


@pytest.mark.parametrize(
    ("source", "days"),
    [
        pytest.param("asic_financial_advisers", 7, id="financial advisers register: weekly"),
        pytest.param("asic_banned_persons", 7, id="banned and disqualified persons: weekly"),
        pytest.param("asic_banned_organisations", 7, id="banned and disqualified orgs: weekly"),
        pytest.param("abr", 7, id="business register: weekly"),
    ],
)
def test_the_spec_s_weekly_registers_are_stale_a_week_after_their_extract(
    source: str, days: int
) -> None:
    """docs/rules.md (financial advisers register, banned and disqualified: "weekly") and the data
    freshness table: a week-old extract is fresh, eight days old is stale, not a month."""
    from pipelines.ingest.sources import SOURCES

    cadence = SOURCES[source].refresh_days
    assert cadence == days
    assert is_stale(TODAY - dt.timedelta(days=7), cadence, TODAY) is False
    assert is_stale(TODAY - dt.timedelta(days=8), cadence, TODAY) is True
