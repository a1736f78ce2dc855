"""Keyed providers behind one small interface: a scam rating, review platforms, phone and
street view (premium).

Each is an HTTPS endpoint answering JSON to ``GET <url>?<query>`` with the key as a bearer
token (never logged: config.Secret). Not configured, the tile is N/A "provider not
configured" and no quota is used (docs/decisions/18-a-check-that-did-not-run-is-unknown.md). The answers read:

* scam rating   ``{"score": 1-100, "flags": [...]}`` (higher is safer)
* reviews       ``{"found": bool, "rating": 0-5, "count": n}`` per platform
* phone         ``{"connected": bool, "business_confirmed": bool}``
* street view   ``{"found": bool, "commercial": bool}``

Each answer's shape is checked before a field is read (shape.py): anything else is a
ValueError with the reason, the tile's N/A. Review platforms are asked in parallel with a
6-second timeout each (docs/rules.md, docs/live-checks.md): a platform that has not answered by then counts as
not answering.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.live import shape
from pipelines.live.config import Endpoint
from pipelines.live.guard import Guard
from pipelines.live.http import get_json, origin
from pipelines.live.throttle import Provider, RateLimited, Transient, Unavailable


def ask(
    endpoint: Endpoint,
    query: dict[str, str],
    *,
    timeout: float,
    deadline: float | None = None,
    guard: Guard | None = None,
    ca_bundle: Path | None = None,
) -> Any:
    headers = {"Accept": "application/json"}
    if endpoint.key is not None:
        headers["Authorization"] = f"Bearer {endpoint.key.reveal()}"
    return get_json(endpoint.name, endpoint.url, timeout=timeout, deadline=deadline, guard=guard,
                    ca_bundle=ca_bundle, headers=headers, params=query)  # fmt: skip


def scam_rating(answer: Any) -> dict[str, Any]:
    """``{"score": 1-100 or null, "flags": [...]}``; a 404 (None) is no rating and no flag."""
    if answer is None:
        return {"score": None, "flags": []}
    found = shape.obj(answer, "the scam rating")
    flags = found.get("flags")
    return {
        "score": shape.number(found.get("score"), "the scam rating's 'score'", low=0, high=100),
        "flags": [] if flags is None else shape.array(flags, "the scam rating's 'flags'"),
    }


def phone(answer: Any) -> dict[str, Any]:
    found = shape.obj({} if answer is None else answer, "the phone check")
    return {k: shape.flag(found.get(k), f"the phone check's {k!r}")
            for k in ("connected", "business_confirmed")}  # fmt: skip


def street_view(answer: Any) -> dict[str, Any]:
    found = shape.obj({} if answer is None else answer, "the street view")
    return {k: shape.flag(found.get(k), f"the street view's {k!r}")
            for k in ("found", "commercial")}  # fmt: skip


PARSERS = {"scam_rating": scam_rating, "phone": phone, "street_view": street_view}


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


def review(platform: str, answer: Any) -> ReviewAnswer:
    """A platform's ``{"found", "rating": 0-5, "count"}``; a 404 (None) is not found."""
    found = shape.obj({} if answer is None else answer, f"{platform}'s answer")
    if not shape.flag(found.get("found"), f"{platform}'s 'found'"):
        return ReviewAnswer(platform)
    rating = shape.number(found.get("rating"), f"{platform}'s 'rating'", low=0, high=5)
    count = shape.number(found.get("count"), f"{platform}'s 'count'", low=0)
    return ReviewAnswer(platform, True, rating or 0.0, int(count or 0))


def reviews(
    platforms: tuple[Endpoint, ...],
    query: dict[str, str],
    provider: Provider,
    *,
    timeout: float,
    deadline: float | None = None,
    guard: Guard | None = None,
    ca_bundle: Path | None = None,
) -> list[ReviewAnswer]:
    """Every platform at once; each has ``timeout`` seconds (docs/live-checks.md), all of them end by
    ``deadline`` (``time.monotonic``)."""
    until = time.monotonic() + timeout
    if deadline is not None:
        until = min(until, deadline)

    def one(endpoint: Endpoint) -> ReviewAnswer:
        try:
            return review(endpoint.name, provider.call(
                lambda: ask(endpoint, query, timeout=timeout, deadline=deadline, guard=guard,
                            ca_bundle=ca_bundle),
                endpoint=origin(endpoint.url), deadline=until,
            ))  # fmt: skip
        except RateLimited as limited:
            return ReviewAnswer(endpoint.name, error="rate limited",
                                retry_at=limited.retry_at.isoformat())  # fmt: skip
        except Unavailable as error:
            return ReviewAnswer(endpoint.name, error=error.reason)
        except (Transient, ValueError) as error:
            return ReviewAnswer(endpoint.name, error=str(error))

    futures = {_review_pool.submit(one, p): p for p in platforms}
    out = []
    for future, endpoint in futures.items():
        try:
            out.append(future.result(timeout=max(0.0, until + 0.5 - time.monotonic())))
        except cf.TimeoutError:
            out.append(ReviewAnswer(endpoint.name, error=f"no answer within {timeout:g} s"))
    return out
