"""Is a source's data stale? One rule (docs/decisions/10-stale-data-is-reported.md): its extract is older than the
source's refresh cadence.

The cadence is declared with each source (``pipelines.ingest.sources``) and published in
the snapshot's metadata (``meta.sources.refresh_days``), so the snapshot's readers (the
API's health and verify tiles) learn it there, without the parsers; ``bvs status`` applies
the same rule to the warehouse's loads.
"""

from __future__ import annotations

import datetime as dt

import duckdb


def is_stale(extract_date: dt.date | None, refresh_days: int | None, today: dt.date) -> bool | None:
    """Older than its cadence on ``today``; None when either is not known."""
    if extract_date is None or refresh_days is None:
        return None
    return (today - extract_date).days > refresh_days


def published_cadences(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Each source's refresh cadence in days as the snapshot records it (none for a snapshot
    published before the cadences were)."""
    row = con.execute(
        "select count(*) from information_schema.columns where table_catalog ="
        " current_database() and table_schema = 'meta' and table_name = 'sources'"
        " and column_name = 'refresh_days'"
    ).fetchone()
    if not row or not row[0]:
        return {}
    rows = con.execute(
        "select source, max(refresh_days) from meta.sources"
        " where refresh_days is not null group by source"
    ).fetchall()
    return {str(source): int(days) for source, days in rows}


def stale_sources(con: duckdb.DuckDBPyConnection, today: dt.date) -> list[str]:
    """The snapshot's sources whose extract is older than their cadence on ``today``."""
    cadences = published_cadences(con)
    rows = con.execute("select source, max(extract_date) from meta.sources group by source")
    return sorted(
        str(source)
        for source, extract_date in rows.fetchall()
        if is_stale(extract_date, cadences.get(str(source)), today)
    )
