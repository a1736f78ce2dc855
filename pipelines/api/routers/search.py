"""``/search``: legal, trading and business names in five tiers (docs/search.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Cursor, Snapshot
from pipelines.api.errors import documented
from pipelines.api.params import SEARCH_PATTERN
from pipelines.api.render import json_response
from pipelines.serving import search as search_limits
from pipelines.serving.search import search

router = APIRouter(tags=["search"])


@router.get(
    "/search",
    summary="Search legal, trading and business names (five tiers)",
    response_model=models.SearchResponse,
    responses=documented(400, 401, 403, 429, 503),
)
def search_names(
    snap: Snapshot,
    cur: Cursor,
    q: Annotated[
        str,
        Query(
            description=f"name or words to look for: 1 to {search_limits.MAX_QUERY_LENGTH}"
            " characters, at least one an ASCII letter or digit",
            examples=["acme"],
            min_length=1,
            max_length=search_limits.MAX_QUERY_LENGTH,
            pattern=SEARCH_PATTERN,
        ),
    ],
    limit: Annotated[
        int,
        Query(
            ge=1,
            le=search_limits.MAX_LIMIT,
            description=f"1 to {search_limits.MAX_LIMIT} results",
        ),
    ] = search_limits.DEFAULT_LIMIT,
) -> Response:
    return json_response({**search(cur, q, limit=limit), "snapshot_id": snap.info.snapshot_id})
