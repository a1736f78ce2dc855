"""Keys, plans and rate limits: who may ask, and how often (docs/api.md, CONTRACT "API").

``Gatekeeper.admit`` checks the bearer key (401), that the plan allows the API (403) and
that the plan's minute, hour and day windows have room (429), then counts the request.
``RateLimitHeaders`` puts the X-RateLimit-* headers of the tightest window on every
response to a request with a valid key, errors included.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipelines.api.errors import INTERNAL_ERROR, ApiError, error_response
from pipelines.settings import Settings
from pipelines.state.counters import Counters
from pipelines.state.db import (
    DriverSession,
    create_state_engine,
    driver_reads,
    driver_transaction,
)
from pipelines.state.keys import ApiKey, authenticate
from pipelines.state.limits import PREMIUM_CHECKS, Decision, Plan, consume, load_plans

log = logging.getLogger(__name__)

Clock = Callable[[], dt.datetime]
STATE_KEY = "rate_limit_headers"  # the request-state member RateLimitHeaders reads


@dataclass(frozen=True)
class Admission:
    """An admitted request: its key, the key's plan and its rate-limit headers."""

    key: ApiKey
    plan: Plan
    headers: dict[str, str]


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
        if self.counters.separate:
            with driver_reads(self.engine) as reads:
                key = authenticate(reads, token)  # read on every request: a revocation is seen
            if key is None:
                raise ApiError(401, "invalid or revoked API key")
            plan = self.plans[key.plan]
            with driver_transaction(self.counters.engine) as conn:
                decision = self._count(conn, key, plan, now)
        else:
            # a state server: the key read and the count in one transaction on one
            # connection (one round trip fewer, one commit fewer); a refused key writes nothing
            with driver_transaction(self.counters.engine) as conn:
                key = authenticate(conn, token)
                if key is None:
                    raise ApiError(401, "invalid or revoked API key")
                plan = self.plans[key.plan]
                decision = self._count(conn, key, plan, now)
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

    @staticmethod
    def _count(conn: DriverSession, key: ApiKey, plan: Plan, now: dt.datetime) -> Decision:
        """Count the request against the plan's windows (403, counting nothing, for a plan
        without API access)."""
        if not plan.api_access:
            quiet = consume(conn, key.key_id, plan.request_limits(), now, dry_run=True)
            raise ApiError(
                403,
                f"the API requires the Individual plan; this key is on the {plan.label} plan",
                quiet.headers(),
            )
        return consume(conn, key.key_id, plan.request_limits(), now)

    def premium(self, key: ApiKey, plan: Plan, checks: Sequence[str]) -> dict[str, dt.datetime]:
        """Count premium checks against the plan's monthly quota; the ones used up (check ->
        when the quota resets) come back N/A and rate-limited (docs/ledgers.md, docs/api.md)."""
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
            await error_response(500, INTERNAL_ERROR)(scope, receive, send_with_headers)
