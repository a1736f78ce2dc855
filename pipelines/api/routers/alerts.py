"""``/alerts``: the key owner's watch alerts and, for Enterprise, its ledger alerts."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Gate, Key
from pipelines.api.errors import documented
from pipelines.api.render import json_response
from pipelines.state.ledgers import list_ledger_alerts
from pipelines.state.watches import list_alerts

router = APIRouter(tags=["alerts"])

MAX_ALERTS = 1000


def iso_utc(value: dt.datetime) -> str:
    """A timestamp as ISO 8601 in UTC with a ``Z`` (a naive one is taken to be UTC)."""
    aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return aware.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


@router.get(
    "/alerts",
    summary="The key owner's alerts after a cursor (poll with next_cursor)",
    response_model=models.AlertsResponse,
    responses=documented(400, 401, 403, 429, 503),
)
def alerts_since(
    gate: Gate,
    key: Key,
    since: Annotated[int, Query(ge=0, le=2**62, description="last alert id seen; 0 for all")] = 0,
    ledger_since: Annotated[
        int, Query(ge=0, le=2**62, description="last ledger alert id seen; 0 for all")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_ALERTS, description="at most this many")] = 100,
) -> Response:
    found = list_alerts(gate.engine, key.owner, since, limit)
    ledger_found = (
        list_ledger_alerts(gate.engine, key.customer, since_id=ledger_since, limit=limit)
        if key.plan == "enterprise" and key.customer
        else []
    )
    body = {
        "alerts": [
            {
                "alert_id": a["alert_id"],
                "watch_id": a["watch_id"],
                "kind": a["kind"],
                "ticker": a["ticker"],
                "triggered_on": a["triggered_on"].isoformat(),
                "detail": a["detail"],
                "created_at": iso_utc(a["created_at"]),
            }
            for a in found
        ],
        "next_cursor": found[-1]["alert_id"] if found else since,
        "ledger_alerts": [
            {
                "alert_id": a["alert_id"],
                "ledger": a["ledger"],
                "run_id": a["run_id"],
                "run_date": a["run_date"].isoformat(),
                "supplier_ref": a["supplier_ref"],
                "abn": a["abn"],
                "kind": a["kind"],
                "subject": a["subject"],
                "before": a["before_value"],
                "after": a["after_value"],
                "created_at": iso_utc(a["created_at"]),
            }
            for a in ledger_found
        ],
        "next_ledger_cursor": ledger_found[-1]["alert_id"] if ledger_found else ledger_since,
    }
    return json_response(body)
