"""``/squeeze``: Squeeze Scores of ASX, crypto and forex instruments (docs/market.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Cursor
from pipelines.api.errors import documented
from pipelines.api.params import TICKER_MAX_LENGTH, TICKER_PATTERN, any_case
from pipelines.api.render import json_response
from pipelines.serving import notices
from pipelines.serving.market import MARKETS, MAX_LIMIT, TIERS, squeeze_list, squeeze_ticker

router = APIRouter(tags=["squeeze"])


@router.get(
    "/squeeze/{ticker}",
    summary="One instrument's latest Squeeze Score",
    description=notices.SQUEEZE,
    response_model=models.SqueezeTicker,
    responses=documented(400, 401, 403, 404, 429, 503),
)
def squeeze_one(
    cur: Cursor,
    ticker: Annotated[
        str,
        Path(
            description="ASX ticker, crypto or forex symbol (AUD/USD or AUDUSD)",
            examples=["BTC"],
            pattern=TICKER_PATTERN,
            max_length=TICKER_MAX_LENGTH,
        ),
    ],
) -> Response:
    return json_response(squeeze_ticker(cur, ticker))


@router.get(
    "/squeeze",
    summary="Latest Squeeze Scores, highest first",
    description=notices.SQUEEZE,
    response_model=models.SqueezeList,
    responses=documented(400, 401, 403, 429, 503),
)
def squeeze_many(
    cur: Cursor,
    market: Annotated[
        str | None,
        Query(description=f"one of {', '.join(MARKETS)} (any case)", pattern=any_case(MARKETS)),
    ] = None,
    tier: Annotated[
        str | None,
        Query(
            description=f"one of {', '.join(TIERS)} (any case): extreme is a score above 85",
            pattern=any_case(TIERS),
        ),
    ] = None,
    limit: Annotated[
        int | None, Query(ge=1, le=MAX_LIMIT, description=f"1 to {MAX_LIMIT}; default 50")
    ] = None,
) -> Response:
    return json_response(squeeze_list(cur, market=market, tier=tier, limit=limit))
