"""The pipeline's live checks: every target ABN checked, its tiles written to ``live.tiles``.

Bounded: at most ``workers`` entities in flight, results written as they finish (memory
stays flat), the whole run within ``budget_seconds`` (what is left is N/A "Not run" and is
checked next run). Resumable: each lookup's answer is in the cache (24 h), so a run
stopped half-way and started again asks the providers only for what it had not finished.
Offline (the probe finds no network) every target's tiles are N/A with that reason at once.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from pipelines.live.checker import EntityFacts, LiveChecker
from pipelines.live.tiles import Tile, live_tiles

COLUMNS = "abn varchar, check_id varchar, status varchar, reason varchar, detail varchar, checked_at timestamp"


@dataclass
class RunSummary:
    entities: int = 0
    offline: str | None = None
    seconds: float = 0.0
    by_status: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, tiles: dict[str, Tile]) -> None:
        for check_id, t in tiles.items():
            by = self.by_status.setdefault(check_id, {})
            key = "Not run" if t.reason.startswith("Not run") else t.status
            by[key] = by.get(key, 0) + 1


def tile_row(
    abn: str, check_id: str, t: Tile, checked_at: dt.datetime
) -> tuple[str, str, str, str, str, dt.datetime]:
    detail = dict(t.detail)
    if t.rate_limited:
        detail["rate_limited"] = {"retry_at": t.rate_limited}
    return abn, check_id, t.status, t.reason, json.dumps(detail, default=str), checked_at


def _insert(
    con: duckdb.DuckDBPyConnection, rows: list[tuple[str, str, str, str, str, dt.datetime]]
) -> None:
    """One Arrow batch per insert (row-by-row ``executemany`` is slow in DuckDB)."""
    if not rows:
        return
    columns = list(zip(*rows, strict=True))
    batch = pa.table(
        [pa.array(columns[i], type=pa.string()) for i in range(5)]
        + [pa.array(columns[5], type=pa.timestamp("us"))],
        names=["abn", "check_id", "status", "reason", "detail", "checked_at"],
    )
    con.register("live_tiles_batch", batch)
    try:
        con.execute("insert into live.tiles__next select * from live_tiles_batch")
    finally:
        con.unregister("live_tiles_batch")


def check_many(
    checker: LiveChecker,
    facts: Iterable[EntityFacts],
    as_of: dt.date,
    *,
    deadline: float | None = None,
    fresh: bool = False,
) -> Iterator[tuple[EntityFacts, dict[str, Tile]]]:
    """(facts, tiles) for each entity as it finishes; at most ``workers`` in flight."""
    window = checker.config.workers
    with cf.ThreadPoolExecutor(max_workers=window, thread_name_prefix="bvs-live") as pool:
        pending: dict[cf.Future[dict[str, Tile]], EntityFacts] = {}
        for item in facts:
            if len(pending) >= window * 2:
                done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
            pending[pool.submit(_tiles, checker, item, as_of, deadline, fresh)] = item
        for future in cf.as_completed(list(pending)):
            yield pending.pop(future), future.result()


def _tiles(checker: LiveChecker, facts: EntityFacts, as_of: dt.date, deadline: float | None,
           fresh: bool) -> dict[str, Tile]:  # fmt: skip
    return live_tiles(checker.check_entity(facts, deadline=deadline, fresh=fresh), as_of)


def check_and_store(
    con: duckdb.DuckDBPyConnection,
    checker: LiveChecker,
    facts: list[EntityFacts],
    as_of: dt.date,
) -> RunSummary:
    """Check every entity and replace ``live.tiles`` with their tiles (one transaction)."""
    started = time.monotonic()
    summary = RunSummary(entities=len(facts), offline=checker.offline())
    deadline = started + checker.config.budget_seconds
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    con.execute("create schema if not exists live")
    con.execute(f"create or replace table live.tiles__next ({COLUMNS})")
    batch: list[tuple[str, str, str, str, str, dt.datetime]] = []
    for item, tiles in check_many(checker, facts, as_of, deadline=deadline):
        summary.count(tiles)
        batch.extend(tile_row(item.abn, c, t, now) for c, t in tiles.items())
        if len(batch) >= 20_000:
            _insert(con, batch)
            batch.clear()
    _insert(con, batch)
    con.execute("begin")
    con.execute("drop table if exists live.tiles")
    con.execute("alter table live.tiles__next rename to tiles")
    con.execute("commit")
    summary.seconds = round(time.monotonic() - started, 2)
    return summary
