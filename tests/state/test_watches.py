"""Watches and alerts (docs/market.md, docs/decisions/16-changes-between-runs.md): a crossing from below alerts once, staying above does not."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import duckdb
import pytest

from pipelines.settings import Settings
from pipelines.state.watches import (
    WatchError,
    add_watch,
    evaluate,
    list_alerts,
    list_watches,
    remove_watch,
    store,
)

CREATED = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def _snapshot(scores: list[float], campaigns: list[tuple] = ()) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.squeeze_scores (ticker varchar, market varchar, score_date date,"
        " score double, signal_tier varchar)"
    )
    for i, score in enumerate(scores):
        con.execute(
            "insert into marts.squeeze_scores values ('PLS', 'asx', ?, ?, 'high')",
            [dt.date(2026, 11, 2) + dt.timedelta(days=i), score],
        )
    con.execute(
        "create table marts.activist_campaigns (campaign_id varchar, activist varchar,"
        " target_ticker varchar, target_name varchar, report_date date, allegation_type varchar,"
        " pattern_match_score integer, pattern_evidence varchar, is_live boolean)"
    )
    for row in campaigns:
        con.execute("insert into marts.activist_campaigns values (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
    return con


@pytest.fixture
def engine(settings: Settings) -> Iterator:
    with store(settings) as engine:
        yield engine


def test_a_score_crossing_the_threshold_alerts_once_and_again_after_falling_back(engine) -> None:
    add_watch(engine, "alice", "squeeze", ticker="pls", threshold=70, now=CREATED)
    # 60 -> 70 crosses (at the threshold counts), 80 stays above, 65 falls, 72 crosses again
    snapshot = _snapshot([60, 70, 80, 65, 72])
    raised = evaluate(engine, snapshot)
    assert [
        (a["triggered_on"], a["detail"]["score"], a["detail"]["previous_score"]) for a in raised
    ] == [
        (dt.date(2026, 11, 3), 70, 60),
        (dt.date(2026, 11, 6), 72, 65),
    ]
    assert evaluate(engine, snapshot) == []  # the same days again: nothing new
    snapshot.execute(
        "insert into marts.squeeze_scores values ('PLS', 'asx', '2026-11-07', 90, 'extreme')"
    )
    assert evaluate(engine, snapshot) == []  # still above: no second alert
    assert [a["alert_id"] for a in list_alerts(engine, "alice")] == [1, 2]
    assert list_alerts(engine, "alice", since_id=1)[0]["detail"]["score"] == 72


def test_a_score_already_above_when_the_watch_is_made_has_not_crossed(engine) -> None:
    made = dt.datetime(2026, 11, 4, tzinfo=dt.UTC)  # scores: 85 on 2 Nov, 90, 88 on 4 Nov
    add_watch(engine, "alice", "squeeze", ticker="PLS", threshold=70, now=made)
    assert evaluate(engine, _snapshot([85, 90, 88])) == []
    assert list_alerts(engine) == []


def test_a_first_scored_day_above_the_threshold_is_a_crossing(engine) -> None:
    add_watch(engine, "bob", "squeeze", ticker="PLS", threshold=70, now=CREATED)
    snapshot = _snapshot([])
    snapshot.execute(
        "insert into marts.squeeze_scores values ('PLS', 'asx', '2026-11-02', 75, 'high')"
    )
    assert [a["triggered_on"] for a in evaluate(engine, snapshot)] == [dt.date(2026, 11, 2)]


def test_a_live_campaign_on_a_watched_ticker_or_name_alerts_once(engine) -> None:
    """A company name is matched, not searched (docs/decisions/20-names-given-are-matched.md): "and" for "&" and
    "Limited" for "Ltd" are the same name; a part of the name is not a match."""
    add_watch(engine, "alice", "activist", ticker="UAS", now=CREATED)
    add_watch(engine, "bob", "activist", company_name="Infinity Nova Oil and Gas", now=CREATED)
    add_watch(
        engine, "dave", "activist", company_name="Infinity Nova Oil & Gas Limited", now=CREATED
    )
    add_watch(engine, "carol", "activist", company_name="infinity nova", now=CREATED)
    add_watch(engine, "erin", "activist", company_name="Nova Gas", now=CREATED)
    live = (
        "C-1",
        "Longreach",
        "UAS",
        "INFINITY NOVA OIL & GAS LTD",
        dt.date(2026, 11, 11),
        "fraud",
        100,
        "{}",
        True,
    )
    old = (
        "C-0",
        "Longreach",
        "UAS",
        "INFINITY NOVA OIL & GAS LTD",
        dt.date(2019, 1, 1),
        "fraud",
        None,
        None,
        False,
    )
    snapshot = _snapshot([], [live, old])
    raised = evaluate(engine, snapshot)
    assert sorted((a["owner"], a["trigger_key"]) for a in raised) == [
        ("alice", "activist:C-1"),
        ("bob", "activist:C-1"),
        ("dave", "activist:C-1"),
    ]
    assert evaluate(engine, snapshot) == []


def test_removed_watches_raise_nothing_and_bad_watches_are_refused(engine) -> None:
    watch = add_watch(engine, "alice", "squeeze", ticker="PLS", threshold=70, now=CREATED)
    remove_watch(engine, watch["watch_id"], "alice")
    assert list_watches(engine) == []
    assert evaluate(engine, _snapshot([60, 80])) == []
    with pytest.raises(WatchError, match="no active watch"):
        remove_watch(engine, watch["watch_id"])
    with pytest.raises(WatchError, match="threshold"):
        add_watch(engine, "alice", "squeeze", ticker="PLS")
    with pytest.raises(WatchError, match="one of them"):
        add_watch(engine, "alice", "activist", ticker="PLS", company_name="Pilbara")
