"""``/network``: shared directors, addresses and phoenix links among ABNs (docs/rules.md#conduct)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from pipelines.api import models
from pipelines.api.deps import Cursor, Snapshot
from pipelines.api.errors import documented
from pipelines.api.params import ABN_LIST_FORMAT, abn_list_pattern
from pipelines.api.render import json_response
from pipelines.serving.network import MAX_ABNS, network

router = APIRouter(tags=["network"])


@router.get(
    "/network",
    summary="Shared directors, addresses and phoenix links among up to 20 ABNs",
    response_model=models.NetworkResponse,
    responses=documented(400, 401, 403, 404, 429, 503),
)
def network_of(
    snap: Snapshot,
    cur: Cursor,
    abns: Annotated[
        str,
        Query(
            description=f"comma-separated ABNs, 1 to {MAX_ABNS} (spaces ignored; each ABN's"
            " check digits must be valid)",
            examples=["53004085616"],
            pattern=abn_list_pattern(MAX_ABNS),
            json_schema_extra={"format": ABN_LIST_FORMAT},
        ),
    ],
) -> Response:
    return json_response({**network(cur, abns), "snapshot_id": snap.info.snapshot_id})
