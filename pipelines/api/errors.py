"""The API's one error type and the one place errors become HTTP answers.

Every error is ``{"message": ...}`` with the status CONTRACT "API" names (docs/api.md): a route or
dependency raises ``ApiError``; the serving layer's domain errors (``VerifyError``,
``LedgerNotFound``) and FastAPI's own (validation, unknown path, wrong method) are mapped
here, and anything else is a logged 500 that says nothing of the internals.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from pipelines.api.models import ErrorBody
from pipelines.api.params import explain
from pipelines.api.render import json_response
from pipelines.serving.ledgers import LedgerNotFound
from pipelines.serving.verify import VerifyError

log = logging.getLogger(__name__)

INTERNAL_ERROR = "internal error; it has been logged"
SNAPSHOT_UNREADABLE = "the snapshot could not be read; try again shortly"

# The statuses of CONTRACT "API" and what each means, for the OpenAPI document.
STATUS_MEANINGS = {
    400: "malformed input (ABN, check id, parameter out of range)",
    401: "missing, invalid or revoked API key",
    403: "the plan does not include the API (Free), or the endpoint needs another plan",
    404: "not found",
    429: "a rate limit was exceeded; see Retry-After",
    503: "no snapshot in service, or it could not be read",
}
# Every /api/robot route can answer these (the key, the plan, the limits, the snapshot).
ROBOT_STATUSES = (400, 401, 403, 429, 503)


class ApiError(Exception):
    """An answer other than 200: its status, the message, and headers to send with it."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return json_response({"message": message}, status, headers)


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route: these error statuses with the error body."""
    return {
        status: {"model": ErrorBody, "description": STATUS_MEANINGS[status]} for status in statuses
    }


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.headers or None)


async def _verify_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, VerifyError)
    return error_response(exc.status, exc.message)


async def _ledger_not_found(request: Request, exc: Exception) -> Response:
    # another customer's ledger looks the same as one that does not exist; a ledger of the
    # key's customer without the run asked for says so, and which runs it has
    assert isinstance(exc, LedgerNotFound)
    return error_response(404, exc.message)


async def _invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    reasons, problems = [], []
    for e in exc.errors():
        reason = None
        if e.get("type") == "string_pattern_mismatch":
            reason = explain(str(e.get("ctx", {}).get("pattern")), e.get("input"))
        if reason is not None:
            reasons.append(reason)
        else:
            where = ".".join(str(p) for p in e.get("loc", ())[1:]) or "request"
            problems.append(f"{where}: {e.get('msg')}")
    if problems:
        reasons.append(f"malformed request: {'; '.join(problems)}")
    return error_response(400, "; ".join(reasons))


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    message = {404: "no such endpoint", 405: "method not allowed: the API is GET only"}
    return error_response(
        exc.status_code,
        message.get(exc.status_code, str(exc.detail)),
        dict(exc.headers) if exc.headers else None,
    )


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s", request.url.path)
    return error_response(500, INTERNAL_ERROR)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(VerifyError, _verify_error)
    app.add_exception_handler(LedgerNotFound, _ledger_not_found)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _unexpected)
