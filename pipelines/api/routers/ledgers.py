"""``/ledgers``: an Enterprise customer's supplier ledgers, as their runs verified them."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import AppSettings, Customer
from pipelines.api.errors import documented
from pipelines.api.render import json_response
from pipelines.serving import notices
from pipelines.serving.ledgers import MAX_PAGE, ledger_changes, ledger_page, list_ledgers

router = APIRouter(tags=["ledgers"])

LedgerName = Annotated[
    str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$", description="the ledger's name")
]


@router.get(
    "/ledgers",
    summary="The key's customer's supplier ledgers and their latest runs (Enterprise)",
    description=notices.DECISION_SUPPORT,
    response_model=models.LedgerList,
    responses=documented(400, 401, 403, 429, 503),
)
def ledgers_of(settings: AppSettings, customer: Customer) -> Response:
    return json_response(list_ledgers(settings, customer))


@router.get(
    "/ledgers/{ledger}",
    summary="A ledger's suppliers as its latest run verified them, filtered and paginated",
    response_model=models.LedgerPage,
    responses=documented(400, 401, 403, 404, 429, 503),
)
def ledger_suppliers(
    settings: AppSettings,
    customer: Customer,
    ledger: LedgerName,
    status: Annotated[
        str | None,
        Query(pattern="^(verified|resolved_by_name|needs_review)$", description="resolution"),
    ] = None,
    risk_level: Annotated[
        str | None, Query(pattern="^(low|medium|high|critical)$", description="risk level")
    ] = None,
    run: Annotated[
        dt.date | None, Query(description="the run of this date (default: latest)")
    ] = None,
    order: Annotated[
        str,
        Query(
            pattern="^(risk|line)$",
            description="risk: the highest risk first, as the report's act-first list"
            " (a decisive identity failure is at least high); line: the ledger's order",
        ),
    ] = "risk",
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="suppliers a page")] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000, description="suppliers to skip")] = 0,
) -> Response:
    return json_response(
        ledger_page(
            settings, customer, ledger, resolution=status, risk_level=risk_level,
            run_date=run, order=order, limit=limit, offset=offset,
        )
    )  # fmt: skip


@router.get(
    "/ledgers/{ledger}/changes",
    summary="A ledger's changes between runs since a date (docs/decisions/16-changes-between-runs.md)",
    response_model=models.LedgerChanges,
    responses=documented(400, 401, 403, 404, 429, 503),
)
def ledger_changes_since(
    settings: AppSettings,
    customer: Customer,
    ledger: LedgerName,
    since: Annotated[dt.date | None, Query(description="runs on or after this date")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="changes a page")] = 100,
    offset: Annotated[int, Query(ge=0, le=100_000_000, description="changes to skip")] = 0,
) -> Response:
    return json_response(
        ledger_changes(settings, customer, ledger, since=since, limit=limit, offset=offset)
    )
