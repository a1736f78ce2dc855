"""JSON bodies as the API sends them."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import Response


def dumps(body: Any) -> bytes:
    """Compact JSON; orjson writes what ``json.dumps(body, default=str)`` would (dates as ISO
    text), ten times faster, which is a tenth of a verify request."""
    return orjson.dumps(body, default=str)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A rendered body. Routes return these rather than letting FastAPI validate the dict
    against the route's ``response_model`` a second time: the models describe exactly these
    bodies, and tests/e2e/test_api_conformance.py holds every route to its model."""
    return Response(
        content=dumps(body), status_code=status, media_type="application/json", headers=headers
    )
