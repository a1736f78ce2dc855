"""The read API (docs/api.md, CONTRACT "API"): GET-only JSON under ``/api/robot``.

``create_app`` wires the parts; each resource has its router in ``pipelines.api.routers``.
Every robot router's first dependency is ``deps.admitted`` (the key 401, the plan 403, the
rate limits 429, before the query parameters are validated); the X-RateLimit-* headers of
the tightest window go on every response to a request with a valid key, errors included
(``gate.RateLimitHeaders``). The answers come from the serving snapshot in service
(``snapshots.SnapshotHolder``), built by ``pipelines.serving`` (the same functions the
``bvs`` commands print), and each route declares its body as a ``response_model``.
Errors are always ``{"message": ...}`` (``errors``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import APIRouter, Depends, FastAPI

from pipelines.api.deps import admitted
from pipelines.api.docs import add_offline_docs
from pipelines.api.errors import install_error_handlers
from pipelines.api.gate import Gatekeeper, RateLimitHeaders
from pipelines.api.routers import alerts, health, ledgers, network, search, squeeze, verify, viper
from pipelines.api.routers.verify import VerifyCache
from pipelines.api.snapshots import SnapshotHolder
from pipelines.permissions import owner_only
from pipelines.settings import Settings, get_settings

__all__ = ["API_PREFIX", "Gatekeeper", "create_app"]

Clock = Callable[[], dt.datetime]
API_PREFIX = "/api/robot"
ROBOT_ROUTERS = (verify, squeeze, viper, search, network, alerts, ledgers)

DESCRIPTION = (
    "Business verification, Squeeze Scores and activist patterns for Australia, read"
    " from the published serving snapshot. Every `/api/robot` request needs"
    " `Authorization: Bearer <key>` (keys: `bvs keys create`). Rate-limit headers"
    " describe the window with the fewest requests left; `X-RateLimit-Reset` is a Unix"
    ' time in seconds. Errors are `{"message": ...}`.'
)


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def create_app(settings: Settings | None = None, *, clock: Clock | None = None) -> FastAPI:
    owner_only()  # also when uvicorn starts the app itself (pipelines/permissions.py)
    settings = settings or get_settings()
    clock = clock or _utc_now
    holder = SnapshotHolder(settings)
    gate = Gatekeeper(settings, clock)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        gate.counters.start()  # copies the day and month counters to their durable file
        holder.start()  # switches to a new snapshot between requests too
        try:
            yield
        finally:
            holder.stop()
            gate.counters.stop()

    app = FastAPI(
        lifespan=lifespan,
        title="BVS robot API",
        version="1.0.0",
        description=DESCRIPTION,
        docs_url=None,  # /docs and /redoc from the package's files, not a CDN (api/docs.py)
        redoc_url=None,
    )
    add_offline_docs(app)
    app.state.settings = settings
    app.state.clock = clock
    app.state.holder = holder
    app.state.gate = gate
    app.state.verify_cache = VerifyCache(settings.api_cache_entries)
    app.add_middleware(RateLimitHeaders)
    install_error_handlers(app)

    robot = APIRouter(prefix=API_PREFIX, dependencies=[Depends(admitted)])
    for module in ROBOT_ROUTERS:
        robot.include_router(module.router)
    app.include_router(robot)
    app.include_router(health.router)
    return app
