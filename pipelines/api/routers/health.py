"""``/health``: the snapshot in service, its age, its stale sources and the sources whose
newest files failed to load (no key needed)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import duckdb
from fastapi import APIRouter
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Clock, Holder
from pipelines.api.render import json_response
from pipelines.api.routers.alerts import iso_utc
from pipelines.api.snapshots import Served
from pipelines.serving.freshness import stale_sources
from pipelines.settings import BRISBANE

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    summary="The snapshot in service and its age (no key needed)",
    response_model=models.Health,
    responses={503: {"model": models.Health, "description": "no snapshot in service"}},
)
def health(holder: Holder, clock: Clock) -> Response:
    snap = holder.current()
    if snap is None:
        return json_response(
            {"status": "unavailable", "snapshot": None, "stale_sources": [], "failed_sources": []},
            503,
        )
    now = clock()
    return json_response(
        {
            "status": "ok",
            "snapshot": {
                "snapshot_id": snap.info.snapshot_id,
                "built_at": iso_utc(snap.info.built_at),
                "as_of": snap.info.as_of.isoformat(),
                "age_seconds": round((now - snap.info.built_at).total_seconds(), 1),
                "preload": None
                if snap.preloaded is None
                else {
                    "bytes": snap.preloaded.bytes,
                    "of_bytes": snap.preloaded.wanted,
                    "seconds": snap.preloaded.seconds,
                    "locked_bytes": 0 if snap.pinned is None else snap.pinned.bytes,
                },
            },
            "stale_sources": _stale_sources(snap, now),
            "failed_sources": _failed_sources(snap),
        }
    )


def _stale_sources(snap: Served, now: dt.datetime) -> list[str]:
    """Sources whose extract is older than their refresh cadence today (docs/decisions/10-stale-data-is-reported.md), computed once a day per snapshot."""
    today = now.astimezone(BRISBANE).date()
    memo_key = ("stale", today)
    if memo_key not in snap.cache:
        with snap.cursor() as cur:
            snap.cache[memo_key] = stale_sources(cur, today)
    return list(snap.cache[memo_key])


def _failed_sources(snap: Served) -> list[dict[str, Any]]:
    """Sources whose newest files failed to load: the snapshot serves their last good data
    (meta.source_failures), read once per snapshot."""
    if "failed" not in snap.cache:
        with snap.cursor() as cur:
            try:
                rows = cur.execute(
                    "select source, attempted_at, message from meta.source_failures order by 1"
                ).fetchall()
            except duckdb.CatalogException:  # a snapshot published before the table existed
                rows = []
        snap.cache["failed"] = [
            {"source": s, "attempted_at": iso_utc(at) if at else None, "message": m}
            for s, at, m in rows
        ]
    return list(snap.cache["failed"])
