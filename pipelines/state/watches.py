"""Watches and the alerts they raise (docs/market.md, docs/decisions/16-changes-between-runs.md).

A watch belongs to an owner (the API key's owner) and is either

* ``squeeze``: an instrument and a Squeeze Score threshold. It alerts on a day the score
  crosses the threshold from below (the day before it was under, or there was no day
  before): not again while it stays above, and again after it has fallen under and crossed
  once more; or
* ``activist``: a ticker or a company name. It alerts once per campaign when a live
  activist campaign (a report in the last 30 days with no outcome yet) targets it.

Alerts keep what triggered them (the scores, the campaign and its pattern evidence) and are
unique per watch and trigger, so evaluating the same day twice raises nothing new. The store
is SQLAlchemy Core on ``settings.state_database_url`` (SQLite by default).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import sqlalchemy as sa

from pipelines.matching import ACTIVIST_NAME_THRESHOLD, match_names
from pipelines.settings import Settings
from pipelines.state.db import state_store
from pipelines.state.tables import alerts, watches

KINDS = ("squeeze", "activist")


class WatchError(ValueError):
    """A watch that cannot be added or removed as asked."""


@contextmanager
def store(settings: Settings) -> Iterator[sa.Engine]:
    """The state database, its tables created if missing."""
    with state_store(settings) as engine:
        yield engine


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def add_watch(
    engine: sa.Engine,
    owner: str,
    kind: str,
    *,
    ticker: str | None = None,
    company_name: str | None = None,
    threshold: float | None = None,
    now: dt.datetime | None = None,
) -> dict[str, Any]:
    """Add a watch; it acts on score days and reports from its creation date on."""
    if kind not in KINDS:
        raise WatchError(f"unknown watch kind {kind!r}; one of {', '.join(KINDS)}")
    symbol = ticker.strip().upper().replace("/", "") if ticker else None
    if kind == "squeeze":
        if not symbol:
            raise WatchError("a squeeze watch needs an instrument (ticker)")
        if threshold is None or not 0 <= threshold <= 100:
            raise WatchError("a squeeze watch needs a threshold between 0 and 100")
        if company_name:
            raise WatchError("a squeeze watch is on an instrument, not a company name")
    elif bool(symbol) == bool(company_name):
        raise WatchError("an activist watch is on a ticker or a company name (one of them)")
    row = {
        "owner": owner,
        "kind": kind,
        "ticker": symbol,
        "company_name": company_name.strip() if company_name else None,
        "threshold": threshold if kind == "squeeze" else None,
        "created_at": now or _now(),
    }
    with engine.begin() as conn:
        key = conn.execute(sa.insert(watches).values(**row)).inserted_primary_key
        assert key is not None
        watch_id = int(key[0])
    return {"watch_id": watch_id, **row}


def list_watches(engine: sa.Engine, owner: str | None = None) -> list[dict[str, Any]]:
    query = sa.select(watches).where(watches.c.removed_at.is_(None)).order_by(watches.c.watch_id)
    if owner is not None:
        query = query.where(watches.c.owner == owner)
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(query)]


def remove_watch(engine: sa.Engine, watch_id: int, owner: str | None = None) -> None:
    condition = (watches.c.watch_id == watch_id) & watches.c.removed_at.is_(None)
    if owner is not None:
        condition &= watches.c.owner == owner
    with engine.begin() as conn:
        done = conn.execute(sa.update(watches).where(condition).values(removed_at=_now()))
        if done.rowcount == 0:
            raise WatchError(f"no active watch {watch_id}")


def list_alerts(
    engine: sa.Engine, owner: str | None = None, since_id: int = 0, limit: int | None = None
) -> list[dict[str, Any]]:
    """Alerts after ``since_id``, oldest first (a client polls with the last id it saw)."""
    query = sa.select(alerts).where(alerts.c.alert_id > since_id).order_by(alerts.c.alert_id)
    if limit is not None:
        query = query.limit(limit)
    if owner is not None:
        query = query.where(alerts.c.owner == owner)
    with engine.connect() as conn:
        return [{**dict(r._mapping), "detail": json.loads(r.detail)} for r in conn.execute(query)]


def evaluate(engine: sa.Engine, snapshot: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Raise the alerts the current snapshot warrants; returns the new ones.

    Squeeze: every score day from the watch's creation date on whose score crossed the
    threshold from below (so a run that missed days catches up, and a re-run adds nothing);
    a score already above the threshold when the watch is made has not crossed it. Activist: each
    live campaign on the watched ticker or name, once.
    """
    raised: list[dict[str, Any]] = []
    for watch in list_watches(engine):
        if watch["kind"] == "squeeze":
            candidates = _squeeze_crossings(snapshot, watch)
        else:
            candidates = _live_campaigns(snapshot, watch)
        for trigger_key, triggered_on, ticker, detail in candidates:
            row = {
                "watch_id": watch["watch_id"],
                "owner": watch["owner"],
                "kind": watch["kind"],
                "trigger_key": trigger_key,
                "ticker": ticker,
                "triggered_on": triggered_on,
                "detail": json.dumps(detail, default=str, sort_keys=True),
                "created_at": _now(),
            }
            with engine.begin() as conn:
                exists = conn.execute(
                    sa.select(alerts.c.alert_id).where(
                        (alerts.c.watch_id == watch["watch_id"])
                        & (alerts.c.trigger_key == trigger_key)
                    )
                ).first()
                if exists:
                    continue
                key = conn.execute(sa.insert(alerts).values(**row)).inserted_primary_key
                assert key is not None
                alert_id = int(key[0])
            raised.append({"alert_id": alert_id, **row, "detail": detail})
    return raised


def _squeeze_crossings(
    snapshot: duckdb.DuckDBPyConnection, watch: dict[str, Any]
) -> list[tuple[str, dt.date, str, dict[str, Any]]]:
    created = watch["created_at"]
    created_day = (
        created if isinstance(created, dt.datetime) else dt.datetime.fromisoformat(str(created))
    ).date()
    rows = snapshot.execute(
        """
        select ticker, market, score_date, score, previous_score, signal_tier from (
            select
                ticker, market, score_date, score, signal_tier,
                lag(score) over (partition by market, ticker order by score_date) as previous_score
            from marts.squeeze_scores
            where ticker = ?
        )
        where score >= ? and (previous_score is null or previous_score < ?)
            and score_date >= ?
        order by score_date
        """,
        [
            watch["ticker"],
            watch["threshold"],
            watch["threshold"],
            created_day,
        ],
    ).fetchall()
    return [
        (
            f"squeeze:{market}:{day.isoformat()}",
            day,
            ticker,
            {
                "threshold": watch["threshold"],
                "score": score,
                "previous_score": previous,
                "signal_tier": tier,
                "market": market,
                "score_date": day.isoformat(),
            },
        )
        for ticker, market, day, score, previous, tier in rows
    ]


def _live_campaigns(
    snapshot: duckdb.DuckDBPyConnection, watch: dict[str, Any]
) -> list[tuple[str, dt.date, str, dict[str, Any]]]:
    columns = (
        "select campaign_id, activist, target_ticker, target_name, report_date, allegation_type,"
        " pattern_match_score, pattern_evidence from marts.activist_campaigns where is_live"
    )
    if watch["ticker"]:
        rows = snapshot.execute(
            f"{columns} and target_ticker = ? order by report_date", [watch["ticker"]]
        ).fetchall()
    else:
        # a company name is matched, not searched (docs/decisions/20-names-given-are-matched.md): the live campaigns
        # whose target's name is at least 0.65 similar after normalisation, best first
        live = snapshot.execute(f"{columns} order by report_date, campaign_id").fetchall()
        found = match_names(
            watch["company_name"],
            ((campaign_id, target_name) for campaign_id, _, _, target_name, *_ in live),
            ACTIVIST_NAME_THRESHOLD,
        )
        rank = {m.key: i for i, m in enumerate(found)}
        rows = sorted((r for r in live if r[0] in rank), key=lambda r: rank[r[0]])
    return [
        (
            f"activist:{campaign_id}",
            report_date,
            ticker,
            {
                "campaign_id": campaign_id,
                "activist": activist,
                "target_name": target_name,
                "report_date": report_date.isoformat() if report_date else None,
                "allegation_type": allegation_type,
                "pattern_match_score": score,
                "pattern_evidence": json.loads(evidence) if evidence else None,
            },
        )
        for campaign_id, activist, ticker, target_name, report_date, allegation_type, score, evidence in rows
    ]
