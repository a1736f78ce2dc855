"""Per-provider concurrency, request rate, retries with back-off, and rate-limit answers.

Every call to a provider goes through its ``Provider``: at most ``concurrency`` at once,
at most ``per_second`` started per second (a token bucket), and a ``Transient`` failure
(a timeout, a refused connection, a 5xx answer) retried ``retries`` times with exponential
back-off and jitter. A provider's rate-limit answer (HTTP 429, a DNSBL's 127.255.255.x)
raises ``RateLimited`` with the time it may be asked again, and until then every call to
that provider is answered ``RateLimited`` at once (SPEC 2.2, the tile's countdown).
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


class RateLimited(Exception):
    def __init__(self, provider: str, retry_at: dt.datetime) -> None:
        super().__init__(f"{provider} rate limited until {retry_at.isoformat()}")
        self.provider = provider
        self.retry_at = retry_at


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
        self._blocked_until: dt.datetime | None = None

    def _wait_turn(self) -> None:
        interval = 1.0 / self.limits.per_second
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + interval
        if start > now:
            time.sleep(start - now)

    def blocked_until(self) -> dt.datetime | None:
        with self._lock:
            if self._blocked_until and self._blocked_until <= dt.datetime.now(dt.UTC):
                self._blocked_until = None
            return self._blocked_until

    def block(self, retry_at: dt.datetime) -> None:
        with self._lock:
            if self._blocked_until is None or retry_at > self._blocked_until:
                self._blocked_until = retry_at

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` within the limits; Transient failures retried, then Unavailable."""
        attempt = 0
        while True:
            blocked = self.blocked_until()
            if blocked is not None:
                raise RateLimited(self.name, blocked)
            self._wait_turn()
            try:
                with self._slots:
                    return fn()
            except RateLimited as limited:
                self.block(limited.retry_at)
                raise
            except Transient as failure:
                if attempt >= self.limits.retries:
                    raise Unavailable(
                        self.name, str(failure) or type(failure).__name__
                    ) from failure
                time.sleep(self.limits.backoff * (2**attempt) * (0.5 + random.random()))
                attempt += 1
