"""Per-provider concurrency, request rate, retries with back-off, and rate-limit answers.

Every call to a provider goes through its ``Provider``: at most ``concurrency`` at once,
at most ``per_second`` started per second (a token bucket), and a ``Transient`` failure
(a timeout, a refused connection, a 5xx answer) retried ``retries`` times with exponential
back-off and jitter, all within the caller's deadline: waiting for a turn or a free slot,
the attempts and the pauses between them end when it passes.

A rate-limit answer (HTTP 429, or 503 with Retry-After) raises ``RateLimited`` with the time
it may be asked again and the endpoint that answered (one RDAP server, not all of RDAP):
until then every call to that endpoint is answered ``RateLimited`` at once (docs/ledgers.md, the
tile's countdown), while the provider's other endpoints are asked as usual. No answer is
believed for more than ``MAX_RATE_LIMIT`` (decided): a Retry-After of days or years stops
that endpoint for an hour, then it is asked again.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class Transient(Exception):
    """A failure worth retrying."""


class Unavailable(Exception):
    """A provider that could not answer (after retries): the check did not run."""

    def __init__(self, provider: str, reason: str) -> None:
        super().__init__(f"{provider}: {reason}")
        self.provider = provider
        self.reason = reason


# The longest a rate-limit answer is believed (decided, docs/live-checks.md).
MAX_RATE_LIMIT = dt.timedelta(hours=1)


class RateLimited(Exception):
    def __init__(self, provider: str, retry_at: dt.datetime, endpoint: str | None = None) -> None:
        super().__init__(f"{provider} rate limited until {retry_at.isoformat()}")
        self.provider = provider
        self.retry_at = retry_at
        self.endpoint = endpoint  # scheme://host:port of the server that answered


@dataclass(frozen=True)
class Limits:
    concurrency: int = 16
    per_second: float = 50.0
    retries: int = 2
    backoff: float = 0.2


DEFAULT_LIMITS = {
    "dns": Limits(concurrency=128, per_second=2000.0),
    "blocklist": Limits(concurrency=64, per_second=500.0),
    "rdap": Limits(concurrency=16, per_second=20.0),
    "ct": Limits(concurrency=8, per_second=5.0),
    "web": Limits(concurrency=64, per_second=500.0),
    "scam_rating": Limits(concurrency=8, per_second=10.0),
    "reviews": Limits(concurrency=16, per_second=20.0, retries=0),
    "phone": Limits(concurrency=2, per_second=1.0, retries=0),
    "street_view": Limits(concurrency=4, per_second=5.0, retries=0),
}


class Provider:
    def __init__(self, name: str, limits: Limits) -> None:
        self.name = name
        self.limits = limits
        self._slots = threading.BoundedSemaphore(limits.concurrency)
        self._lock = threading.Lock()
        self._next_start = 0.0
        self._blocked: dict[str | None, dt.datetime] = {}  # endpoint (None: all) -> until

    def _wait_turn(self, deadline: float | None) -> None:
        interval = 1.0 / self.limits.per_second
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_start)
            if deadline is not None and start >= deadline:
                raise Unavailable(self.name, "not asked: the time for live checks ran out")
            self._next_start = start + interval
        if start > now:
            time.sleep(start - now)

    def blocked_until(self, endpoint: str | None = None) -> dt.datetime | None:
        """Until when ``endpoint`` (or the whole provider) is rate limited, else None."""
        now = dt.datetime.now(dt.UTC)
        with self._lock:
            for key in {None, endpoint}:
                until = self._blocked.get(key)
                if until is not None and until <= now:
                    del self._blocked[key]
            found = [self._blocked[k] for k in {None, endpoint} if k in self._blocked]
            return max(found) if found else None

    def block(self, endpoint: str | None, retry_at: dt.datetime) -> dt.datetime:
        """Hold ``endpoint`` until ``retry_at`` (at most MAX_RATE_LIMIT from now); the time
        it is held until."""
        retry_at = min(retry_at, dt.datetime.now(dt.UTC) + MAX_RATE_LIMIT)
        with self._lock:
            held = self._blocked.get(endpoint)
            if held is None or retry_at > held:
                self._blocked[endpoint] = retry_at
            return self._blocked[endpoint]

    def call(
        self, fn: Callable[[], T], *, endpoint: str | None = None, deadline: float | None = None
    ) -> T:
        """``fn()`` within the limits and before ``deadline`` (``time.monotonic``): Transient
        failures retried while there is time, then Unavailable; a RateLimited answer holds
        its endpoint."""
        attempt = 0
        while True:
            blocked = self.blocked_until(endpoint)
            if blocked is not None:
                raise RateLimited(self.name, blocked, endpoint)
            self._wait_turn(deadline)
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not self._slots.acquire(timeout=wait):
                raise Unavailable(self.name, "not asked: every connection was busy until the time for live checks ran out")  # fmt: skip
            try:
                return fn()
            except RateLimited as limited:
                limited.endpoint = limited.endpoint or endpoint
                limited.retry_at = self.block(limited.endpoint, limited.retry_at)
                raise
            except Transient as failure:
                reason = str(failure) or type(failure).__name__
                pause = self.limits.backoff * (2**attempt) * (0.5 + random.random())
                if attempt >= self.limits.retries:
                    raise Unavailable(self.name, reason) from failure
                if deadline is not None and time.monotonic() + pause >= deadline:
                    raise Unavailable(
                        self.name, f"{reason} (no time left to ask again)"
                    ) from failure
            finally:
                self._slots.release()
            time.sleep(pause)
            attempt += 1
