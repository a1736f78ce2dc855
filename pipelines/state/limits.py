"""Plans, rate limits and premium-check quotas (docs/api.md), counted in the state database.

Windows are aligned to the clock in Australia/Brisbane (AEST, UTC+10, no daylight saving):
a minute window is one calendar minute, an hour one clock hour, a day runs from midnight to
midnight in Brisbane, a month is the calendar month in Brisbane. Each (key, counter, window)
is one row of ``rate_counters``; a request is admitted only if every window of its plan has
room, and then every window is incremented, in one transaction that holds the write lock
(``BEGIN IMMEDIATE`` on SQLite, the upsert's row locks on PostgreSQL). Counting is therefore exact across
threads and worker processes. Refused requests change nothing (docs/decisions/11-rate-limit-headers.md).

The day rows are kept: they are the per-key, per-day usage ``bvs keys list`` shows. Minute
and hour rows of past windows are deleted when the key opens a new window.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa

from pipelines.settings import BRISBANE
from pipelines.state.db import DriverSession, run
from pipelines.state.tables import rate_counters

PERIODS = ("minute", "hour", "day", "month")
PREMIUM_CHECKS = ("phone", "street_view")


@dataclass(frozen=True)
class Plan:
    """A plan's request limits (None: no limit in that window) and monthly premium quota."""

    name: str
    label: str
    api_access: bool
    per_minute: int | None
    per_hour: int | None
    per_day: int | None
    premium_per_month: int | None  # for each of phone and street view; None = unlimited

    def request_limits(self) -> dict[str, int | None]:
        """Counter -> limit for every request. The day is always counted (it is the usage)."""
        limits: dict[str, int | None] = {"day": self.per_day}
        if self.per_minute is not None:
            limits["minute"] = self.per_minute
        if self.per_hour is not None:
            limits["hour"] = self.per_hour
        return limits


# docs/api.md's plan table. Free: 10 per hour is listed, but "no access" on the robot API (403).
DEFAULT_PLANS: dict[str, Plan] = {
    "free": Plan("free", "Free", False, None, 10, None, 0),
    "individual": Plan("individual", "Individual", True, 10, 100, 100, 30),
    "enterprise": Plan("enterprise", "Enterprise", True, 100, 1000, 1000, None),
}


def load_plans(overrides: str | None = None) -> dict[str, Plan]:
    """The plan table, with a deployment's overrides (``BVS_PLAN_LIMITS``, JSON such as
    ``{"enterprise": {"per_minute": 6000}}``) applied: negotiated limits, load tests."""
    plans = dict(DEFAULT_PLANS)
    if not overrides:
        return plans
    try:
        changes = json.loads(overrides)
        for name, values in changes.items():
            plans[name] = replace(plans[name], **values)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"BVS_PLAN_LIMITS is not a valid plan override: {exc}") from exc
    return plans


def window_bounds(period: str, now: dt.datetime) -> tuple[str, dt.datetime]:
    """(label, end) of the window of ``period`` that holds ``now``; end is when it resets."""
    # every window starts on a minute: the bounds are those of the minute (asked per request)
    return _minute_window_bounds(period, math.floor(now.timestamp() / 60))


@functools.lru_cache(maxsize=64)
def _minute_window_bounds(period: str, minute: int) -> tuple[str, dt.datetime]:
    local = dt.datetime.fromtimestamp(minute * 60, BRISBANE)
    if period == "minute":
        start = local.replace(second=0, microsecond=0)
        return start.strftime("%Y-%m-%dT%H:%M"), start + dt.timedelta(minutes=1)
    if period == "hour":
        start = local.replace(minute=0, second=0, microsecond=0)
        return start.strftime("%Y-%m-%dT%H"), start + dt.timedelta(hours=1)
    if period == "day":
        day = local.date()
        end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), BRISBANE)
        return day.isoformat(), end
    if period == "month":
        first = local.date().replace(day=1)
        following = (first + dt.timedelta(days=32)).replace(day=1)
        return first.strftime("%Y-%m"), dt.datetime.combine(following, dt.time(), BRISBANE)
    raise ValueError(f"unknown period {period!r}")


@dataclass(frozen=True)
class Window:
    counter: str
    limit: int | None
    used: int
    resets_at: dt.datetime

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(0, self.limit - self.used)

    @property
    def period(self) -> str:
        return self.counter.split(":", 1)[0]

    def describe(self) -> str:
        what = "requests" if ":" not in self.counter else f"{self.counter.split(':', 1)[1]} checks"
        return f"{self.limit} {what} per {self.period}"


@dataclass(frozen=True)
class Decision:
    allowed: bool
    now: dt.datetime
    windows: tuple[Window, ...] = field(default_factory=tuple)

    @property
    def exceeded(self) -> list[Window]:
        return (
            [w for w in self.windows if w.limit is not None and w.used >= w.limit]
            if (not self.allowed)
            else []
        )

    @property
    def tightest(self) -> Window | None:
        """The limited window with the fewest requests left (ties: the one resetting last)."""
        limited = [w for w in self.windows if w.limit is not None]
        if not limited:
            return None
        return min(limited, key=lambda w: (w.remaining, -w.resets_at.timestamp()))

    @property
    def retry_after(self) -> int:
        """Seconds until every exceeded window has reset (at least 1)."""
        ends = [w.resets_at for w in self.exceeded]
        if not ends:
            return 0
        return max(1, math.ceil((max(ends) - self.now).total_seconds()))

    def headers(self) -> dict[str, str]:
        """X-RateLimit-* of the tightest window (docs/decisions/11-rate-limit-headers.md)."""
        window = self.tightest
        if window is None:
            return {}
        return {
            "X-RateLimit-Limit": str(window.limit),
            "X-RateLimit-Remaining": str(window.remaining),
            "X-RateLimit-Reset": str(math.ceil(window.resets_at.timestamp())),
        }


def _upsert(rows: int) -> sa.TextClause:
    """Add ``:cost`` to ``rows`` counters of one key, creating the missing ones, and return
    their new counts: one statement, the same SQL on SQLite (3.35+) and PostgreSQL."""
    values = ", ".join(f"(:key_id, :counter{i}, :window{i}, :cost)" for i in range(rows))
    return sa.text(
        "insert into rate_counters (key_id, counter, window_start, count)"
        f" values {values}"
        " on conflict (key_id, counter, window_start)"
        " do update set count = rate_counters.count + excluded.count"
        " returning counter, count"
    )


def _adjust(rows: int) -> sa.TextClause:
    """Take ``:cost`` back from ``rows`` counters (a refused request changes nothing)."""
    windows = " or ".join(
        f"(counter = :counter{i} and window_start = :window{i})" for i in range(rows)
    )
    return sa.text(
        f"update rate_counters set count = count - :cost where key_id = :key_id and ({windows})"
    )


def _select(rows: int) -> sa.TextClause:
    windows = " or ".join(
        f"(counter = :counter{i} and window_start = :window{i})" for i in range(rows)
    )
    return sa.text(
        f"select counter, count from rate_counters where key_id = :key_id and ({windows})"
    )


# Built once: a text() statement is compiled once per dialect and then reused, which keeps
# the limiter's share of a request small (it runs on every one).
_STATEMENTS = {
    rows: (_upsert(rows), _adjust(rows), _select(rows)) for rows in range(1, len(PERIODS) + 1)
}


def consume(
    conn: sa.Connection | DriverSession,
    key_id: str,
    limits: Mapping[str, int | None],
    now: dt.datetime,
    *,
    cost: int = 1,
    dry_run: bool = False,
) -> Decision:
    """Count ``cost`` against every window in ``limits`` (counter -> limit, None = counted
    but unlimited) if each has room; otherwise change nothing. Runs in the caller's
    transaction, which must hold the write lock (``pipelines.state.db``).

    The counters are incremented first (an upsert returning the new counts) and the
    increment taken back when a window is over its limit: one statement for an admitted
    request. On PostgreSQL the upsert's row locks, held to the end of the transaction,
    serialise two requests of one key the way SQLite's write lock does."""
    bounds = {counter: window_bounds(counter.split(":", 1)[0], now) for counter in limits}
    ordered = sorted(bounds)  # one lock order for every transaction
    params: dict[str, Any] = {"key_id": key_id, "cost": cost}
    for i, counter in enumerate(ordered):
        params[f"counter{i}"] = counter
        params[f"window{i}"] = bounds[counter][0]
    upsert, adjust, select = _STATEMENTS[len(ordered)]
    if dry_run:
        used = {row[0]: int(row[1]) for row in run(conn, select, params)}
    else:
        counted = {row[0]: int(row[1]) for row in run(conn, upsert, params)}
        used = {counter: count - cost for counter, count in counted.items()}
    windows = tuple(
        Window(counter, limit, used.get(counter, 0), bounds[counter][1])
        for counter, limit in limits.items()
    )
    allowed = all(w.limit is None or w.used + cost <= w.limit for w in windows)
    if dry_run:
        return Decision(allowed=allowed, now=now, windows=windows)
    if not allowed:
        run(conn, adjust, params)
        return Decision(allowed=False, now=now, windows=windows)
    if any(used[counter] == 0 for counter in ("minute", "hour") if counter in used):
        _forget_past_windows(conn, key_id, bounds)  # the key opened a new window
    return Decision(
        allowed=True, now=now, windows=tuple(replace(w, used=w.used + cost) for w in windows)
    )


_FORGET = sa.text(
    "delete from rate_counters"
    " where key_id = :key_id and counter = :counter and window_start < :window_start"
)


def _forget_past_windows(
    conn: sa.Connection | DriverSession,
    key_id: str,
    bounds: Mapping[str, tuple[str, dt.datetime]],
) -> None:
    for counter in ("minute", "hour"):
        if counter in bounds:
            run(
                conn,
                _FORGET,
                {"key_id": key_id, "counter": counter, "window_start": bounds[counter][0]},
            )


def daily_usage(
    engines: sa.Engine | Sequence[sa.Engine], now: dt.datetime
) -> dict[str, dict[str, int]]:
    """Per key: requests today (Brisbane) and in total, from the day counters. With several
    stores (the counters' file and its copy in the state database), each day's count is the
    larger of theirs."""
    today, _end = window_bounds("day", now)
    c = rate_counters.c
    days: dict[tuple[str, str], int] = {}
    for engine in [engines] if isinstance(engines, sa.Engine) else engines:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.key_id, c.window_start, c.count).where(c.counter == "day")
            ).all()
        for row in rows:
            day = (str(row.key_id), str(row.window_start))
            days[day] = max(days.get(day, 0), int(row[2]))
    usage: dict[str, dict[str, int]] = {}
    for (key_id, window_start), count in days.items():
        found = usage.setdefault(key_id, {"today": 0, "total": 0, "days": 0})
        found["total"] += count
        found["days"] += 1
        if window_start == today:
            found["today"] = count
    return usage


def usage_by_day(engine: sa.Engine, key_id: str) -> list[tuple[str, int]]:
    c = rate_counters.c
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(c.window_start, c.count.label("used"))
            .where((c.key_id == key_id) & (c.counter == "day"))
            .order_by(c.window_start)
        ).all()
    return [(str(r.window_start), int(r.used)) for r in rows]
