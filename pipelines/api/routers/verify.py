"""``/verify``: a business's tiles, assurance score and risk by ABN (docs/api.md)."""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from collections.abc import Callable
from typing import Annotated, Any

import duckdb
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from pipelines.api import models
from pipelines.api.deps import Admitted, Snapshot
from pipelines.api.errors import SNAPSHOT_UNREADABLE, ApiError, documented
from pipelines.api.params import (
    ABN_FORMAT,
    ABN_PATTERN,
    check_ids,
    check_list_pattern,
)
from pipelines.api.render import dumps
from pipelines.api.snapshots import Served
from pipelines.serving import notices
from pipelines.serving.verify import parse_abn, premium_checks_run, verify

router = APIRouter(tags=["verify"])

CACHE_WINDOW = dt.timedelta(hours=24)  # docs/api.md


class VerifyCache:
    """Rendered verify bodies of this worker: (snapshot, ABN, checks) -> (rendered at, body,
    the premium checks that ran), the oldest dropped past ``entries``."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._bodies: OrderedDict[
            tuple[str, str, tuple[str, ...]], tuple[dt.datetime, bytes, list[str]]
        ] = OrderedDict()

    def get(
        self, key: tuple[str, str, tuple[str, ...]], now: dt.datetime
    ) -> tuple[dt.datetime, bytes, list[str]] | None:
        hit = self._bodies.get(key)
        return hit if hit is not None and now - hit[0] < CACHE_WINDOW else None

    def put(
        self, key: tuple[str, str, tuple[str, ...]], value: tuple[dt.datetime, bytes, list[str]]
    ) -> None:
        self._bodies[key] = value
        while len(self._bodies) > self.entries:
            self._bodies.popitem(last=False)


def _render(
    request: Request,
    admission: Admitted,
    snap: Served,
    cur: duckdb.DuckDBPyConnection | None,
    abn_text: str,
    checks: str | None,
    cache: bool,
) -> Response:
    state = request.app.state
    gate, clock, verify_cache = state.gate, state.clock, state.verify_cache
    key, plan = admission.key, admission.plan
    abn = parse_abn(abn_text)
    wanted = [c.strip() for c in checks.split(",") if c.strip()] if checks else None
    now = clock()
    use_cache = cache and verify_cache.entries > 0
    cache_key = (snap.info.snapshot_id, abn, tuple(wanted or ()))
    hit = verify_cache.get(cache_key, now) if use_cache else None
    limited: dict[str, dt.datetime] | None = None  # None: premium checks not counted yet
    if hit is not None:
        limited = gate.premium(key, plan, hit[2])
        if not limited:
            return Response(content=hit[1], media_type="application/json")

    def build(limits: dict[str, dt.datetime] | None) -> dict[str, Any]:
        return verify(
            cur, abn, checks=wanted, now=now, context=snap.context,
            lookup=snap.lookup, missing_ok=False, limited=limits,
        )  # fmt: skip

    response = build(limited)
    # a premium check uses up quota only when it actually ran (docs/decisions/18-a-check-that-did-not-run-is-unknown.md)
    ran = premium_checks_run(response["checks"])
    if limited is None:  # not counted yet: the ABN exists, count its premium tiles
        limited = gate.premium(key, plan, ran)
        if limited:
            response = build(limited)
    response["snapshot_id"] = snap.info.snapshot_id
    response["cached"] = False  # the last member: the cached copy differs only there
    body = dumps(response)
    if use_cache and not limited:
        verify_cache.put(cache_key, (now, body[: -len(b"false}")] + b"true}", ran))
    return Response(content=body, media_type="application/json")


def _render_live(
    request: Request,
    admission: Admitted,
    snap: Served,
    cur: duckdb.DuckDBPyConnection,
    abn_text: str,
    checks: str | None,
) -> Response:
    """``cache=false`` with the live checks on: the snapshot's response with its live tiles
    checked now (docs/api.md, 2 to 15 seconds; pipelines/serving/live.py). Premium checks that
    ran count against the plan's quota; over it, their tiles are N/A with the countdown."""
    from pipelines.live.checker import LiveChecker
    from pipelines.live.config import from_settings
    from pipelines.serving.live import refresh

    state = request.app.state
    if getattr(state, "live_checker", None) is None:  # made on first use
        state.live_checker = LiveChecker(from_settings(state.settings))
    abn = parse_abn(abn_text)
    wanted = [c.strip() for c in checks.split(",") if c.strip()] if checks else None
    now = state.clock()
    response = verify(
        cur, abn, checks=wanted, now=now, context=snap.context,
        lookup=snap.lookup, missing_ok=False,
    )  # fmt: skip
    response = refresh(cur, response, state.live_checker)
    limited = state.gate.premium(
        admission.key, admission.plan, premium_checks_run(response["checks"])
    )
    for check_id, resets in (limited or {}).items():
        tile = response["checks"].get(check_id)
        if tile is not None:
            retry_at = resets.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
            tile.update(
                status="N/A",
                reason="premium check quota used up this month => N/A (rate limited)",
                rate_limited={"retry_at": retry_at},
            )
    response["snapshot_id"] = snap.info.snapshot_id
    response["cached"] = False
    return Response(content=dumps(response), media_type="application/json")


async def _verify(
    request: Request, admission: Admitted, snap: Served, abn: str, checks: str | None, cache: bool
) -> Response:
    """With the snapshot's verify lookup a response is a few SQLite page reads and about
    0.1 ms of Python: rendered on the event loop, no thread hand-off and no DuckDB cursor.
    Without it (an older snapshot) DuckDB answers, in the thread pool. ``cache=false`` with
    the live checks on refreshes the live tiles, in the thread pool."""
    if not cache and request.app.state.settings.live_checks:

        def with_live_checks() -> Response:
            with snap.cursor() as cur:
                try:
                    return _render_live(request, admission, snap, cur, abn, checks)
                except duckdb.Error as exc:
                    raise ApiError(503, SNAPSHOT_UNREADABLE) from exc

        return await run_in_threadpool(with_live_checks)
    if snap.lookup is not None:
        return _render(request, admission, snap, None, abn, checks, cache)

    def from_duckdb() -> Response:
        with snap.cursor() as cur:
            try:
                return _render(request, admission, snap, cur, abn, checks, cache)
            except duckdb.Error as exc:
                raise ApiError(503, SNAPSHOT_UNREADABLE) from exc

    return await run_in_threadpool(from_duckdb)


ABN_DOC = "11-digit ABN; spaces are ignored; the check digits must be valid"
CHECKS_DOC = "comma-separated check ids: only those tiles, and the score over them"
CACHE_DOC = (
    "true: a response this server rendered from the same snapshot in the last 24 hours may"
    " be returned (`cached: true`); false: always rendered from the snapshot now, and with"
    " the live checks on, its live tiles (domain, e-mail, web, trust, reviews) checked now"
)
ChecksParam = Annotated[
    str | None, Query(description=CHECKS_DOC, pattern=check_list_pattern(check_ids()))
]
CacheParam = Annotated[bool, Query(description=CACHE_DOC)]
RESPONSES = documented(400, 401, 403, 404, 429, 503)


def _abn_param(where: Callable[..., Any]) -> Any:
    """The ABN parameter, in the path or the query: one declaration for both routes."""
    return where(
        description=ABN_DOC,
        examples=["53004085616"],
        pattern=ABN_PATTERN,
        json_schema_extra={"format": ABN_FORMAT},
    )


@router.get(
    "/verify/{abn}",
    summary="Verify a business by ABN",
    description=notices.DECISION_SUPPORT,
    response_model=models.VerifyResponse,
    responses=RESPONSES,
)
async def verify_by_path(
    request: Request,
    admission: Admitted,
    snap: Snapshot,
    abn: Annotated[str, _abn_param(Path)],
    checks: ChecksParam = None,
    cache: CacheParam = True,
) -> Response:
    return await _verify(request, admission, snap, abn, checks, cache)


@router.get(
    "/verify",
    summary="Verify a business by ABN (query form)",
    description=notices.DECISION_SUPPORT,
    response_model=models.VerifyResponse,
    responses=RESPONSES,
)
async def verify_by_query(
    request: Request,
    admission: Admitted,
    snap: Snapshot,
    abn: Annotated[str, _abn_param(Query)],
    checks: ChecksParam = None,
    cache: CacheParam = True,
) -> Response:
    return await _verify(request, admission, snap, abn, checks, cache)
