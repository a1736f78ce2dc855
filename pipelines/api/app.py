"""The read API (SPEC 4-8, CONTRACT "API"): GET-only JSON under ``/api/robot``.

Every robot request goes through ``Gatekeeper.admit`` first (a dependency, so it runs before
the query parameters are validated): the bearer key is checked (401), the plan must allow
the API (403), and the plan's minute, hour and day windows must have room (429); then the
request is counted. The X-RateLimit-* headers of the tightest window go on every response
to a request with a valid key, errors included (``RateLimitHeaders``). The answers come from
the serving snapshot in service (``SnapshotHolder``), built by ``pipelines.serving`` (the
same functions the ``bvs`` commands print). Errors are always ``{"message": ...}``.
"""

import datetime as dt
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any

import duckdb
import orjson
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipelines.api import models
from pipelines.api.snapshots import Served, SnapshotHolder
from pipelines.serving import notices
from pipelines.serving import search as search_limits
from pipelines.serving.ledgers import MAX_PAGE as MAX_LEDGER_PAGE
from pipelines.serving.ledgers import LedgerNotFound, ledger_changes, ledger_page, list_ledgers
from pipelines.serving.market import (
    MARKETS,
    MAX_LIMIT,
    TIERS,
    activist,
    squeeze_list,
    squeeze_ticker,
)
from pipelines.serving.market import viper as viper_result
from pipelines.serving.network import MAX_ABNS, network
from pipelines.serving.search import search
from pipelines.serving.verify import VerifyError, parse_abn, premium_checks_run, verify
from pipelines.settings import BRISBANE, Settings, get_settings
from pipelines.state.counters import Counters
from pipelines.state.db import create_state_engine, driver_reads, driver_transaction
from pipelines.state.keys import ApiKey, authenticate
from pipelines.state.limits import PREMIUM_CHECKS, Plan, consume, load_plans

log = logging.getLogger(__name__)

Clock = Callable[[], dt.datetime]
API_PREFIX = "/api/robot"
CACHE_WINDOW = dt.timedelta(hours=24)  # SPEC 8.4
MAX_ALERTS = 1000
STATE_KEY = "rate_limit_headers"
INTERNAL_ERROR = "internal error; it has been logged"


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _dumps(body: Any) -> bytes:
    """Compact JSON; orjson writes what ``json.dumps(body, default=str)`` would (dates as ISO
    text), ten times faster, which is a tenth of a verify request."""
    return orjson.dumps(body, default=str)


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        content=_dumps(body),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return _json({"message": message}, status, headers)


# ------------------------------------------------------------------------------ keys & limits


class Gatekeeper:
    """Bearer keys (the state database), plans and rate limits (the counters' store:
    ``pipelines.state.counters``)."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.engine = create_state_engine(settings)
        self.counters = Counters(settings, self.engine, clock)
        self.plans = load_plans(settings.plan_limits)
        self.clock = clock

    def admit(self, token: str | None) -> tuple[ApiKey, Plan, dict[str, str]]:
        """The key and plan of an admitted request and its rate-limit headers, or ApiError."""
        if not token:
            raise ApiError(401, "missing API key: send the header Authorization: Bearer <key>")
        now = self.clock()
        with driver_reads(self.engine) as reads:
            key = authenticate(reads, token)  # read on every request: a revocation is seen
        if key is None:
            raise ApiError(401, "invalid or revoked API key")
        plan = self.plans[key.plan]
        with driver_transaction(self.counters.engine) as conn:
            if not plan.api_access:
                quiet = consume(conn, key.key_id, plan.request_limits(), now, dry_run=True)
                raise ApiError(
                    403,
                    f"the API requires the Individual plan; this key is on the {plan.label} plan",
                    quiet.headers(),
                )
            decision = consume(conn, key.key_id, plan.request_limits(), now)
        headers = decision.headers()
        if not decision.allowed:
            exceeded = ", ".join(w.describe() for w in decision.exceeded)
            retry = decision.retry_after
            raise ApiError(
                429,
                f"rate limit exceeded: {exceeded} on the {plan.label} plan; retry in {retry} s",
                {**headers, "Retry-After": str(retry)},
            )
        return key, plan, headers

    def premium(self, key: ApiKey, plan: Plan, checks: Sequence[str]) -> dict[str, dt.datetime]:
        """Count premium checks against the plan's monthly quota; the ones used up (check ->
        when the quota resets) come back N/A and rate-limited (SPEC 2.2, 8.8)."""
        wanted = [c for c in PREMIUM_CHECKS if c in checks]
        if plan.premium_per_month is None or not wanted:
            return {}
        limited: dict[str, dt.datetime] = {}
        now = self.clock()
        with driver_transaction(self.counters.engine) as conn:
            for check in wanted:
                decision = consume(
                    conn, key.key_id, {f"month:{check}": plan.premium_per_month}, now
                )
                if not decision.allowed:
                    limited[check] = decision.windows[0].resets_at
        return limited


class RateLimitHeaders:
    """Adds the X-RateLimit-* headers the gatekeeper left on the request to its response,
    and answers an unexpected error with the logged 500 itself: Starlette's outermost
    handler re-raises after answering, and uvicorn then drops the keep-alive connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                extra = scope.get("state", {}).get(STATE_KEY)
                if extra:
                    present = {k.lower() for k, _ in message.get("headers", [])}
                    added = [
                        (k.lower().encode(), v.encode())
                        for k, v in extra.items()
                        if k.lower().encode() not in present
                    ]
                    message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            log.exception("unhandled error on %s", scope.get("path"))
            if started:
                raise  # half a response was sent: only closing the connection is left
            await _error(500, INTERNAL_ERROR)(scope, receive, send_with_headers)


# ------------------------------------------------------------------------------ the app


def create_app(settings: Settings | None = None, *, clock: Clock | None = None) -> FastAPI:
    settings = settings or get_settings()
    clock = clock or _utc_now
    holder = SnapshotHolder(settings)
    gate = Gatekeeper(settings, clock)
    bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer bvs_<id>_<secret>`")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        gate.counters.start()  # copies the day and month counters to their durable file
        try:
            yield
        finally:
            holder.stop()
            gate.counters.stop()

    app = FastAPI(
        lifespan=lifespan,
        title="BVS robot API",
        version="1.0.0",
        description=(
            "Business verification, Squeeze Scores and activist patterns for Australia, read"
            " from the published serving snapshot. Every `/api/robot` request needs"
            " `Authorization: Bearer <key>` (keys: `bvs keys create`). Rate-limit headers"
            " describe the window with the fewest requests left; `X-RateLimit-Reset` is a Unix"
            ' time in seconds. Errors are `{"message": ...}`.'
        ),
        responses={},
    )
    app.add_middleware(RateLimitHeaders)
    app.state.holder = holder
    app.state.gate = gate

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return _error(exc.status, exc.message, exc.headers or None)

    @app.exception_handler(VerifyError)
    async def _verify_error(request: Request, exc: VerifyError) -> Response:
        return _error(exc.status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())[1:]) or 'request'}: {e.get('msg')}"
            for e in exc.errors()
        )
        return _error(400, f"malformed request: {problems}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        message = {404: "no such endpoint", 405: "method not allowed: the API is GET only"}
        return _error(
            exc.status_code,
            message.get(exc.status_code, str(exc.detail)),
            dict(exc.headers) if exc.headers else None,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s", request.url.path)
        return _error(500, INTERNAL_ERROR)

    async def admitted(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> tuple[ApiKey, Plan]:
        token = credentials.credentials if credentials else None
        try:
            key, plan, headers = gate.admit(token)
        except ApiError as exc:
            if exc.headers:
                request.state.rate_limit_headers = exc.headers
            raise
        request.state.rate_limit_headers = headers
        return key, plan

    Admitted = Annotated[tuple[ApiKey, Plan], Depends(admitted)]

    def served() -> Served:
        current = holder.current()
        if current is None:
            raise ApiError(503, "no serving snapshot is published yet; try again later")
        return current

    def guarded(build: Callable[[], Any]) -> Response:
        """Run a serving function (a body, or a rendered Response); its errors become
        {"message"} responses and a snapshot that cannot be read a 503."""
        try:
            result = build()
            return result if isinstance(result, Response) else _json(result)
        except VerifyError as exc:
            return _error(exc.status, exc.message)
        except (ApiError, StarletteHTTPException):
            raise
        except duckdb.Error:
            log.exception("snapshot query failed")
            return _error(503, "the snapshot could not be read; try again shortly")

    errors: dict[int | str, dict[str, Any]] = {
        status: {"model": models.ErrorBody, "description": text}
        for status, text in {
            400: "malformed input (ABN, check id, parameter out of range)",
            401: "missing, invalid or revoked API key",
            403: "the plan does not include the API (Free)",
            429: "a rate limit was exceeded; see Retry-After",
            503: "no snapshot in service",
        }.items()
    }
    not_found: dict[int | str, dict[str, Any]] = {
        404: {"model": models.ErrorBody, "description": "not found"}
    }

    # ---------------------------------------------------------------- verify

    # (snapshot, ABN, checks) -> (rendered at, body, the premium checks that ran)
    verify_cache: OrderedDict[
        tuple[str, str, tuple[str, ...]], tuple[dt.datetime, bytes, list[str]]
    ] = OrderedDict()

    def do_verify(
        auth: tuple[ApiKey, Plan],
        snap: Served,
        cur: duckdb.DuckDBPyConnection | None,
        abn_text: str,
        checks: str | None,
        cache: bool,
    ) -> Response:
        key, plan = auth
        abn = parse_abn(abn_text)
        wanted = [c.strip() for c in checks.split(",") if c.strip()] if checks else None
        now = clock()
        use_cache = cache and settings.api_cache_entries > 0
        cache_key = (snap.info.snapshot_id, abn, tuple(wanted or ()))
        hit = verify_cache.get(cache_key) if use_cache else None
        if hit is not None and now - hit[0] < CACHE_WINDOW:
            limited = gate.premium(key, plan, hit[2])
            if not limited:
                return Response(content=hit[1], media_type="application/json")
        else:
            hit, limited = None, None

        def build(limits: dict[str, dt.datetime] | None) -> dict[str, Any]:
            return verify(
                cur, abn, checks=wanted, now=now, context=snap.context,
                lookup=snap.lookup, missing_ok=False, limited=limits,
            )  # fmt: skip

        response = build(limited)
        # a premium check uses up quota only when it actually ran (CONTRACT decision 18)
        ran = premium_checks_run(response["checks"])
        if limited is None:  # not counted yet: the ABN exists, count its premium tiles
            limited = gate.premium(key, plan, ran)
            if limited:
                response = build(limited)
        response["snapshot_id"] = snap.info.snapshot_id
        response["cached"] = False  # the last member: the cached copy differs only there
        body = _dumps(response)
        if use_cache and not limited:
            verify_cache[cache_key] = (now, body[: -len(b"false}")] + b"true}", ran)
            while len(verify_cache) > settings.api_cache_entries:
                verify_cache.popitem(last=False)
        return Response(content=body, media_type="application/json")

    async def verify_response(
        auth: tuple[ApiKey, Plan], abn: str, checks: str | None, cache: bool
    ) -> Response:
        """With the snapshot's verify lookup a response is a few SQLite page reads and
        about 0.1 ms of Python: rendered on the event loop, no thread hand-off and no
        DuckDB cursor. Without it (an older snapshot) DuckDB answers, in the thread pool."""
        snap = served()
        if snap.lookup is not None:
            return guarded(lambda: do_verify(auth, snap, None, abn, checks, cache))

        def from_duckdb() -> Response:
            with snap.cursor() as cur:
                return guarded(lambda: do_verify(auth, snap, cur, abn, checks, cache))

        return await run_in_threadpool(from_duckdb)

    abn_doc = "11-digit ABN; spaces are ignored; the check digits must be valid"
    checks_doc = "comma-separated check ids: only those tiles, and the score over them"
    cache_doc = (
        "true: a response this server rendered from the same snapshot in the last 24 hours may"
        " be returned (`cached: true`); false: always rendered from the snapshot now"
    )

    @app.get(
        f"{API_PREFIX}/verify/{{abn}}",
        tags=["verify"],
        summary="Verify a business by ABN",
        description=notices.DECISION_SUPPORT,
        responses={200: {"model": models.VerifyResponse}, **errors, **not_found},
    )
    async def verify_by_path(
        auth: Admitted,
        abn: Annotated[str, Path(description=abn_doc, examples=["53004085616"])],
        checks: Annotated[str | None, Query(description=checks_doc)] = None,
        cache: Annotated[bool, Query(description=cache_doc)] = True,
    ) -> Response:
        return await verify_response(auth, abn, checks, cache)

    @app.get(
        f"{API_PREFIX}/verify",
        tags=["verify"],
        summary="Verify a business by ABN (query form)",
        description=notices.DECISION_SUPPORT,
        responses={200: {"model": models.VerifyResponse}, **errors, **not_found},
    )
    async def verify_by_query(
        auth: Admitted,
        abn: Annotated[str, Query(description=abn_doc, examples=["53004085616"])],
        checks: Annotated[str | None, Query(description=checks_doc)] = None,
        cache: Annotated[bool, Query(description=cache_doc)] = True,
    ) -> Response:
        return await verify_response(auth, abn, checks, cache)

    # ---------------------------------------------------------------- squeeze and viper

    @app.get(
        f"{API_PREFIX}/squeeze/{{ticker}}",
        tags=["squeeze"],
        summary="One instrument's latest Squeeze Score",
        description=notices.SQUEEZE,
        responses={200: {"model": models.SqueezeTicker}, **errors, **not_found},
    )
    def squeeze_one(
        auth: Admitted,
        ticker: Annotated[
            str, Path(description="ASX ticker, crypto or forex symbol", examples=["BTC"])
        ],
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(lambda: squeeze_ticker(cur, ticker))

    @app.get(
        f"{API_PREFIX}/squeeze",
        tags=["squeeze"],
        summary="Latest Squeeze Scores, highest first",
        description=notices.SQUEEZE,
        responses={200: {"model": models.SqueezeList}, **errors},
    )
    def squeeze_many(
        auth: Admitted,
        market: Annotated[
            str | None, Query(description=f"one of {', '.join(MARKETS)} (any case)")
        ] = None,
        tier: Annotated[
            str | None,
            Query(description=f"one of {', '.join(TIERS)}: extreme is a score above 85"),
        ] = None,
        limit: Annotated[int | None, Query(description=f"1 to {MAX_LIMIT}; default 50")] = None,
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(lambda: squeeze_list(cur, market=market, tier=tier, limit=limit))

    @app.get(
        f"{API_PREFIX}/viper/{{ticker}}",
        tags=["viper"],
        summary="Activist short-seller pattern for a ticker",
        description=notices.DECISION_SUPPORT,
        responses={200: {"model": models.ViperResponse}, **errors, **not_found},
    )
    def viper_one(
        auth: Admitted,
        ticker: Annotated[str, Path(description="ASX ticker", examples=["DRO"])],
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(lambda: viper_result(cur, ticker=ticker))

    @app.get(
        f"{API_PREFIX}/viper",
        tags=["viper"],
        summary="Activist short-seller pattern by ticker, company name or ABN",
        description=notices.DECISION_SUPPORT,
        responses={200: {"model": models.ViperResponse}, **errors, **not_found},
    )
    def viper_query(
        auth: Admitted,
        name: Annotated[str | None, Query(description="company name or part of it")] = None,
        abn: Annotated[str | None, Query(description="the target's ABN")] = None,
        ticker: Annotated[str | None, Query(description="ASX ticker")] = None,
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(lambda: viper_result(cur, ticker=ticker, name=name, abn=abn))

    @app.get(
        f"{API_PREFIX}/activists/{{activist_id}}",
        tags=["viper"],
        summary="An activist entity's profile: integrity index, campaigns, regulatory status",
        description=notices.DECISION_SUPPORT,
        responses={200: {"model": models.ActivistResponse}, **errors, **not_found},
    )
    def activist_profile(
        auth: Admitted,
        activist_id: Annotated[
            str,
            Path(
                description="the activist's id, as in a viper answer's activist_id",
                examples=["viceroy-research"],
            ),
        ],
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(lambda: activist(cur, activist_id))

    # ---------------------------------------------------------------- search and network

    @app.get(
        f"{API_PREFIX}/search",
        tags=["search"],
        summary="Search legal, trading and business names (five tiers)",
        responses={200: {"model": models.SearchResponse}, **errors},
    )
    def search_names(
        auth: Admitted,
        q: Annotated[str, Query(description="name or words to look for", examples=["acme"])],
        limit: Annotated[
            int, Query(description=f"1 to {search_limits.MAX_LIMIT} results")
        ] = search_limits.DEFAULT_LIMIT,
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(
                lambda: {**search(cur, q, limit=limit), "snapshot_id": snap.info.snapshot_id}
            )

    @app.get(
        f"{API_PREFIX}/network",
        tags=["network"],
        summary="Shared directors, addresses and phoenix links among up to 20 ABNs",
        responses={200: {"model": models.NetworkResponse}, **errors, **not_found},
    )
    def network_of(
        auth: Admitted,
        abns: Annotated[
            str,
            Query(description=f"comma-separated ABNs, 1 to {MAX_ABNS}", examples=["53004085616"]),
        ],
    ) -> Response:
        snap = served()
        with snap.cursor() as cur:
            return guarded(lambda: {**network(cur, abns), "snapshot_id": snap.info.snapshot_id})

    # ---------------------------------------------------------------- alerts

    @app.get(
        f"{API_PREFIX}/alerts",
        tags=["alerts"],
        summary="The key owner's alerts after a cursor (poll with next_cursor)",
        responses={200: {"model": models.AlertsResponse}, **errors},
    )
    def alerts_since(
        auth: Admitted,
        since: Annotated[
            int, Query(ge=0, le=2**62, description="last alert id seen; 0 for all")
        ] = 0,
        ledger_since: Annotated[
            int, Query(ge=0, le=2**62, description="last ledger alert id seen; 0 for all")
        ] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_ALERTS, description="at most this many")] = 100,
    ) -> Response:
        from pipelines.state.ledgers import list_ledger_alerts
        from pipelines.state.watches import list_alerts

        key, _plan = auth
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
                    "created_at": _iso(a["created_at"]),
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
                    "created_at": _iso(a["created_at"]),
                }
                for a in ledger_found
            ],
            "next_ledger_cursor": ledger_found[-1]["alert_id"] if ledger_found else ledger_since,
        }
        return _json(body)

    # ---------------------------------------------------------------- ledgers

    def customer_of(auth: tuple[ApiKey, Plan]) -> str:
        """The customer whose ledgers this key reads: an Enterprise key bound to one."""
        key, plan = auth
        if key.plan != "enterprise":
            raise ApiError(
                403,
                f"supplier ledgers need an Enterprise key; this key is on the {plan.label} plan",
            )
        if not key.customer:
            raise ApiError(403, "this key is not bound to a customer (bvs keys create --customer)")
        return key.customer

    def ledger_answer(build: Callable[[], Any]) -> Response:
        try:
            return _json(build())
        except LedgerNotFound as exc:  # another customer's ledger looks the same
            raise ApiError(404, f"no ledger {exc.args[0]!r}") from exc

    ledger_name = Path(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$", description="the ledger's name"
    )

    @app.get(
        f"{API_PREFIX}/ledgers",
        tags=["ledgers"],
        summary="The key's customer's supplier ledgers and their latest runs (Enterprise)",
        description=notices.DECISION_SUPPORT,
        responses={200: {"model": models.LedgerList}, **errors},
    )
    def ledgers_of(auth: Admitted) -> Response:
        customer = customer_of(auth)
        return ledger_answer(lambda: list_ledgers(settings, customer))

    @app.get(
        f"{API_PREFIX}/ledgers/{{ledger}}",
        tags=["ledgers"],
        summary="A ledger's suppliers as its latest run verified them, filtered and paginated",
        responses={200: {"model": models.LedgerPage}, **errors, **not_found},
    )
    def ledger_suppliers(
        auth: Admitted,
        ledger: Annotated[str, ledger_name],
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
        limit: Annotated[
            int, Query(ge=1, le=MAX_LEDGER_PAGE, description="suppliers a page")
        ] = 100,
        offset: Annotated[int, Query(ge=0, le=10_000_000, description="suppliers to skip")] = 0,
    ) -> Response:
        customer = customer_of(auth)
        return ledger_answer(
            lambda: ledger_page(
                settings, customer, ledger, resolution=status, risk_level=risk_level,
                run_date=run, limit=limit, offset=offset,
            )
        )  # fmt: skip

    @app.get(
        f"{API_PREFIX}/ledgers/{{ledger}}/changes",
        tags=["ledgers"],
        summary="A ledger's changes between runs since a date (CONTRACT decision 16)",
        responses={200: {"model": models.LedgerChanges}, **errors, **not_found},
    )
    def ledger_changes_since(
        auth: Admitted,
        ledger: Annotated[str, ledger_name],
        since: Annotated[dt.date | None, Query(description="runs on or after this date")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LEDGER_PAGE, description="changes a page")] = 100,
        offset: Annotated[int, Query(ge=0, le=100_000_000, description="changes to skip")] = 0,
    ) -> Response:
        customer = customer_of(auth)
        return ledger_answer(
            lambda: ledger_changes(
                settings, customer, ledger, since=since, limit=limit, offset=offset
            )
        )

    # ---------------------------------------------------------------- health

    @app.get(
        "/health",
        tags=["health"],
        summary="The snapshot in service and its age (no key needed)",
        responses={200: {"model": models.Health}, 503: {"model": models.Health}},
    )
    def health() -> Response:
        snap = holder.current()
        if snap is None:
            return _json(
                {
                    "status": "unavailable",
                    "snapshot": None,
                    "stale_sources": [],
                    "failed_sources": [],
                },
                503,
            )
        now = clock()
        return _json(
            {
                "status": "ok",
                "snapshot": {
                    "snapshot_id": snap.info.snapshot_id,
                    "built_at": _iso(snap.info.built_at),
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

    return app


def _iso(value: dt.datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return aware.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _failed_sources(snap: Served) -> list[dict[str, Any]]:
    """Sources whose newest files failed to load: the snapshot serves their last good data."""
    if "failed" not in snap.cache:
        with snap.cursor() as cur:
            try:
                rows = cur.execute(
                    "select source, attempted_at, message from meta.source_failures order by 1"
                ).fetchall()
            except duckdb.CatalogException:  # a snapshot published before the table existed
                rows = []
        snap.cache["failed"] = [
            {"source": s, "attempted_at": _iso(at) if at else None, "message": m}
            for s, at, m in rows
        ]
    return list(snap.cache["failed"])


def _stale_sources(snap: Served, now: dt.datetime) -> list[str]:
    """Sources whose extract is older than their refresh cadence (CONTRACT decision 10)."""
    from pipelines.ingest.sources import SOURCES

    today = now.astimezone(BRISBANE).date()
    memo_key = ("stale", today)
    if memo_key not in snap.cache:
        with snap.cursor() as cur:
            rows = cur.execute(
                "select source, max(extract_date) from meta.sources group by source"
            ).fetchall()
        snap.cache[memo_key] = sorted(
            source
            for source, extract_date in rows
            if extract_date is not None
            and source in SOURCES
            and (today - extract_date).days > SOURCES[source].refresh_days
        )
    return list(snap.cache[memo_key])
