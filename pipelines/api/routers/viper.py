"""``/viper`` and ``/activists``: activist short-seller patterns and their authors (docs/market.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Cursor
from pipelines.api.errors import documented
from pipelines.api.params import (
    ABN_FORMAT,
    ABN_PATTERN,
    TICKER_MAX_LENGTH,
    TICKER_PATTERN,
)
from pipelines.api.render import json_response
from pipelines.serving import notices
from pipelines.serving.market import activist
from pipelines.serving.market import viper as viper_result

router = APIRouter(tags=["viper"])
RESPONSES = documented(400, 401, 403, 404, 429, 503)
TICKER_DOC = "ASX ticker"
NAME_DOC = "company name or part of it"
ABN_DOC = "the target's ABN (11 digits, spaces ignored, valid check digits)"

# The query form takes exactly one of ticker, name and abn: parameters cannot say that, so
# the document declares the query as one object (form style, exploded: ?ticker=DRO) whose
# members are those three, exactly one of them present.
TARGET_BY = {
    "ticker": {"type": "string", "pattern": TICKER_PATTERN, "maxLength": TICKER_MAX_LENGTH,
               "description": TICKER_DOC},
    "name": {"type": "string", "minLength": 1, "description": NAME_DOC},
    "abn": {"type": "string", "pattern": ABN_PATTERN, "format": ABN_FORMAT,
            "description": ABN_DOC},
}  # fmt: skip
TARGET_QUERY = {
    "name": "target",
    "in": "query",
    "required": True,
    "style": "form",
    "explode": True,
    "description": "exactly one of ticker, name or abn",
    "schema": {
        "type": "object",
        "properties": TARGET_BY,
        "additionalProperties": False,
        "oneOf": [{"required": [member]} for member in TARGET_BY],
    },
}


@router.get(
    "/viper/{ticker}",
    summary="Activist short-seller pattern for a ticker",
    description=notices.DECISION_SUPPORT,
    response_model=models.ViperResponse,
    responses=RESPONSES,
)
def viper_one(
    cur: Cursor,
    ticker: Annotated[
        str,
        Path(
            description=TICKER_DOC,
            examples=["DRO"],
            pattern=TICKER_PATTERN,
            max_length=TICKER_MAX_LENGTH,
        ),
    ],
) -> Response:
    return json_response(viper_result(cur, ticker=ticker))


@router.get(
    "/viper",
    summary="Activist short-seller pattern by ticker, company name or ABN",
    description=notices.DECISION_SUPPORT,
    response_model=models.ViperResponse,
    responses=RESPONSES,
    openapi_extra={"parameters": [TARGET_QUERY]},
)
def viper_query(
    cur: Cursor,
    name: Annotated[str | None, Query(min_length=1, include_in_schema=False)] = None,
    abn: Annotated[str | None, Query(pattern=ABN_PATTERN, include_in_schema=False)] = None,
    ticker: Annotated[
        str | None,
        Query(pattern=TICKER_PATTERN, max_length=TICKER_MAX_LENGTH, include_in_schema=False),
    ] = None,
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
