"""What routes depend on: the admitted key and its plan, the snapshot in service and a
cursor on it, the customer of an Enterprise key, the settings and the clock.

``admitted`` is every robot router's first dependency, so the key, the plan and the rate
limits are checked before the query parameters are validated and before the snapshot is
looked at: a request without a key is a 401 whatever else is wrong with it. FastAPI solves
a dependency once a request, so routes that declare ``Admitted`` get the same admission.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator, Callable
from typing import Annotated

import duckdb
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from pipelines.api.errors import SNAPSHOT_UNREADABLE, ApiError
from pipelines.api.gate import STATE_KEY, Admission, Gatekeeper
from pipelines.api.snapshots import Served, SnapshotHolder
from pipelines.settings import Settings
from pipelines.state.keys import ApiKey
from pipelines.state.limits import Plan

log = logging.getLogger(__name__)

bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer bvs_<id>_<secret>`")


async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _gate(request: Request) -> Gatekeeper:
    gate: Gatekeeper = request.app.state.gate
    return gate


async def _clock(request: Request) -> Callable[[], dt.datetime]:
    clock: Callable[[], dt.datetime] = request.app.state.clock
    return clock


async def _holder(request: Request) -> SnapshotHolder:
    holder: SnapshotHolder = request.app.state.holder
    return holder


AppSettings = Annotated[Settings, Depends(_settings)]
Gate = Annotated[Gatekeeper, Depends(_gate)]
Clock = Annotated[Callable[[], dt.datetime], Depends(_clock)]
Holder = Annotated[SnapshotHolder, Depends(_holder)]


async def admitted(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Admission:
    """The key (401), its plan (403) and the rate limits (429); the headers of the
    tightest window go on the response, an error's included. (On every request: it reads
    the app's state itself rather than through more dependencies.)"""
    token = credentials.credentials if credentials else None
    try:
        key, plan, headers = request.app.state.gate.admit(token)
    except ApiError as exc:
        if exc.headers:
            setattr(request.state, STATE_KEY, exc.headers)
        raise
    setattr(request.state, STATE_KEY, headers)
    return Admission(key, plan, headers)


Admitted = Annotated[Admission, Depends(admitted)]


async def _key(admission: Admitted) -> ApiKey:
    return admission.key


async def _plan(admission: Admitted) -> Plan:
    return admission.plan


Key = Annotated[ApiKey, Depends(_key)]
KeyPlan = Annotated[Plan, Depends(_plan)]


async def served(request: Request) -> Served:
    """The snapshot in service (503 before the first publish)."""
    current: Served | None = request.app.state.holder.current()
    if current is None:
        raise ApiError(503, "no serving snapshot is published yet; try again later")
    return current


Snapshot = Annotated[Served, Depends(served)]


async def snapshot_cursor(snapshot: Snapshot) -> AsyncIterator[duckdb.DuckDBPyConnection]:
    """A cursor of the request's own on the snapshot; a query the snapshot cannot answer
    (a damaged file, a disk fault) is a 503, logged."""
    with snapshot.cursor() as cur:
        try:
            yield cur
        except duckdb.Error as exc:
            log.exception("snapshot query failed")
            raise ApiError(503, SNAPSHOT_UNREADABLE) from exc


Cursor = Annotated[duckdb.DuckDBPyConnection, Depends(snapshot_cursor)]


async def _customer(key: Key, plan: KeyPlan) -> str:
    """The customer whose ledgers this key reads: an Enterprise key bound to one."""
    if key.plan != "enterprise":
        raise ApiError(
            403, f"supplier ledgers need an Enterprise key; this key is on the {plan.label} plan"
        )
    if not key.customer:
        raise ApiError(403, "this key is not bound to a customer (bvs keys create --customer)")
    return key.customer


Customer = Annotated[str, Depends(_customer)]
