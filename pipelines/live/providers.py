"""Keyed providers behind one small interface: a scam rating, review platforms, phone and
street view (premium).

Each is an HTTPS endpoint answering JSON to ``GET <url>?<query>`` with the key as a bearer
token (never logged: config.Secret). Not configured, the tile is N/A "provider not
configured" and no quota is used (CONTRACT decision 18). The answers read:

* scam rating   ``{"score": 1-100, "flags": [...]}`` (higher is safer)
* reviews       ``{"found": bool, "rating": 0-5, "count": n}`` per platform
* phone         ``{"connected": bool, "business_confirmed": bool}``
* street view   ``{"found": bool, "commercial": bool}``

Review platforms are asked in parallel with a 6-second timeout each (SPEC 3.3, 8.7): a
platform that has not answered by then counts as not answering.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.live.config import Endpoint
from pipelines.live.http import get_json
from pipelines.live.throttle import Provider, RateLimited, Transient, Unavailable


def ask(
    endpoint: Endpoint, query: dict[str, str], *, timeout: float, ca_bundle: Path | None
) -> Any:
    headers = {"Accept": "application/json"}
    if endpoint.key is not None:
        headers["Authorization"] = f"Bearer {endpoint.key.reveal()}"
    return get_json(endpoint.name, endpoint.url, timeout=timeout, ca_bundle=ca_bundle,
                    headers=headers, params=query)  # fmt: skip


@dataclass
class ReviewAnswer:
    platform: str
    found: bool = False
    rating: float | None = None
    count: int = 0
    error: str | None = None
    retry_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


_review_pool = cf.ThreadPoolExecutor(max_workers=32, thread_name_prefix="bvs-reviews")


def reviews(
    platforms: tuple[Endpoint, ...],
    query: dict[str, str],
    provider: Provider,
    *,
    timeout: float,
    ca_bundle: Path | None,
) -> list[ReviewAnswer]:
    """Every platform at once; each has ``timeout`` seconds (SPEC 8.7)."""

    def one(endpoint: Endpoint) -> ReviewAnswer:
        try:
            answer = provider.call(
                lambda: ask(endpoint, query, timeout=timeout, ca_bundle=ca_bundle)
            )
        except RateLimited as limited:
            return ReviewAnswer(endpoint.name, error="rate limited",
                                retry_at=limited.retry_at.isoformat())  # fmt: skip
        except (Unavailable, Transient, ValueError) as error:
            return ReviewAnswer(endpoint.name, error=str(error))
        if not answer or not answer.get("found"):
            return ReviewAnswer(endpoint.name)
        return ReviewAnswer(endpoint.name, True, float(answer.get("rating") or 0.0),
                            int(answer.get("count") or 0))  # fmt: skip

    futures = {_review_pool.submit(one, p): p for p in platforms}
    deadline = time.monotonic() + timeout + 0.5
    out = []
    for future, endpoint in futures.items():
        try:
            out.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
        except cf.TimeoutError:
            out.append(ReviewAnswer(endpoint.name, error=f"no answer within {timeout:g} s"))
    return out
