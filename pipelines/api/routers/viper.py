"""``/viper`` and ``/activists``: activist short-seller patterns and their authors (SPEC 2.7)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Cursor
from pipelines.api.errors import documented
from pipelines.api.render import json_response
from pipelines.serving import notices
from pipelines.serving.market import activist
from pipelines.serving.market import viper as viper_result

router = APIRouter(tags=["viper"])
RESPONSES = documented(400, 401, 403, 404, 429, 503)


@router.get(
    "/viper/{ticker}",
    summary="Activist short-seller pattern for a ticker",
    description=notices.DECISION_SUPPORT,
    response_model=models.ViperResponse,
    responses=RESPONSES,
)
def viper_one(
    cur: Cursor, ticker: Annotated[str, Path(description="ASX ticker", examples=["DRO"])]
) -> Response:
    return json_response(viper_result(cur, ticker=ticker))


@router.get(
    "/viper",
    summary="Activist short-seller pattern by ticker, company name or ABN",
    description=notices.DECISION_SUPPORT,
    response_model=models.ViperResponse,
    responses=RESPONSES,
)
def viper_query(
    cur: Cursor,
    name: Annotated[str | None, Query(description="company name or part of it")] = None,
    abn: Annotated[str | None, Query(description="the target's ABN")] = None,
    ticker: Annotated[str | None, Query(description="ASX ticker")] = None,
) -> Response:
    return json_response(viper_result(cur, ticker=ticker, name=name, abn=abn))


@router.get(
    "/activists/{activist_id}",
    summary="An activist entity's profile: integrity index, campaigns, regulatory status",
    description=notices.DECISION_SUPPORT,
    response_model=models.ActivistResponse,
    responses=RESPONSES,
)
def activist_profile(
    cur: Cursor,
    activist_id: Annotated[
        str,
        Path(
            description="the activist's id, as in a viper answer's activist_id",
            examples=["viceroy-research"],
        ),
    ],
) -> Response:
    return json_response(activist(cur, activist_id))
