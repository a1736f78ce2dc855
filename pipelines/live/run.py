"""The pipeline's live checks: every target ABN checked, its tiles written to ``live.tiles``.

Bounded: at most ``workers`` entities in flight, shared among ``processes`` worker
processes (the checks are CPU-bound under the GIL), results written as they finish (memory
stays flat), the whole run within ``budget_seconds`` (what is left is N/A "Not run" and is
checked next run). Resumable: each lookup's answer is in the cache (24 h), so a run
stopped half-way and started again asks the providers only for what it had not finished.
Offline (the probe finds no network) every target's tiles are N/A with that reason at once.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import json
import multiprocessing as mp
import multiprocessing.queues as mpq
import queue
import signal
import threading
import time
import traceback
from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass, field, replace

import duckdb
import pyarrow as pa

from pipelines.live.checker import EntityFacts, LiveChecker, entity_tiles
from pipelines.live.config import LiveConfig
from pipelines.live.tiles import Tile
from pipelines.processes import die_with_parent

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


# Below this many entities a run stays in the calling process: starting worker processes
# (an interpreter and the imports each, about a second) costs more than it saves.
MIN_SHARDED = 200


def check_many(
    checker: LiveChecker,
    facts: Iterable[EntityFacts],
    as_of: dt.date,
    *,
    deadline: float | None = None,
    fresh: bool = False,
) -> Iterator[tuple[EntityFacts, dict[str, Tile]]]:
    """(facts, tiles) for each entity as it finishes; at most ``workers`` in flight.

    With ``processes`` above 1 (``BVS_LIVE_PROCESSES``) and at least ``MIN_SHARDED``
    entities (when ``facts`` has a length), the entities are shared among that many worker
    processes (``_sharded``): the checks are Python CPU under the GIL, one process uses
    one core. Offline, no process is started."""
    processes = checker.config.processes
    small = isinstance(facts, Sized) and len(facts) < MIN_SHARDED
    if processes > 1 and not small and checker.offline() is None:
        yield from _sharded(checker.config, facts, as_of, deadline, fresh)
        return
    yield from _threaded(checker, facts, as_of, deadline, fresh)


def _threaded(
    checker: LiveChecker,
    facts: Iterable[EntityFacts],
    as_of: dt.date,
    deadline: float | None,
    fresh: bool,
) -> Iterator[tuple[EntityFacts, dict[str, Tile]]]:
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
    """One entity's tiles; whatever it meets, N/A tiles with the reason rather than an error
    that would stop the run for everyone (checker.entity_tiles)."""
    return entity_tiles(checker, facts, as_of, deadline=deadline, fresh=fresh)


def shard_config(config: LiveConfig, processes: int) -> LiveConfig:
    """One worker process's share of the limits: the in-flight window and each provider's
    concurrency and rate divided among the processes, so that together they stay within
    the configured bounds."""
    limits = {
        name: replace(
            limit,
            concurrency=max(1, limit.concurrency // processes),
            per_second=limit.per_second / processes,
        )
        for name, limit in config.limits.items()
    }
    return config.with_(workers=max(1, config.workers // processes), limits=limits, processes=1)


def _sharded(
    config: LiveConfig,
    facts: Iterable[EntityFacts],
    as_of: dt.date,
    deadline: float | None,
    fresh: bool,
) -> Iterator[tuple[EntityFacts, dict[str, Tile]]]:
    """``check_many`` over ``config.processes`` worker processes sharing the cache (SQLite,
    WAL): entities go out on one queue, each worker takes one whenever it has a free slot
    of its window, tiles come back as they finish. At most ``2 * workers`` entities are out
    at once (memory stays flat); a worker dies with this process (a run killed half-way
    leaves no orphan checking on)."""
    n = config.processes
    ctx = mp.get_context("spawn")  # no fork of a process holding DuckDB and Dagster threads
    tasks: mpq.Queue[tuple[int, EntityFacts] | None] = ctx.Queue()
    results: mpq.Queue[tuple[int, dict[str, Tile] | BaseException | None]] = ctx.Queue()
    share = shard_config(config, n)
    workers = [
        ctx.Process(
            target=_shard_main,
            args=(share, as_of, deadline, fresh, tasks, results),
            name=f"bvs-live-{i}",
            daemon=True,
        )  # fmt: skip
        for i in range(n)
    ]
    for worker in workers:
        worker.start()
    out: dict[int, EntityFacts] = {}
    window = 2 * config.workers
    finished = 0

    def collect() -> Iterator[tuple[EntityFacts, dict[str, Tile]]]:
        nonlocal finished
        while True:
            try:
                key, answer = results.get(timeout=5.0)
            except queue.Empty:
                dead = [w.name for w in workers if not w.is_alive()]
                if dead:
                    raise RuntimeError(f"live-check worker(s) {', '.join(dead)} died") from None
                continue
            if key < 0:  # a worker has stopped
                finished += 1
                continue
            if isinstance(answer, BaseException):
                raise answer
            assert answer is not None
            yield out.pop(key), answer
            return

    try:
        for key, item in enumerate(facts):
            while len(out) >= window:
                yield from collect()
            out[key] = item
            tasks.put((key, item))
        for _ in workers:
            tasks.put(None)
        while out:
            yield from collect()
    finally:
        for worker in workers:
            worker.join(timeout=10 if not out else 0)
            if worker.is_alive():
                worker.kill()
                worker.join()
        tasks.close()
        results.close()
        tasks.cancel_join_thread()
        results.cancel_join_thread()


def _shard_main(
    config: LiveConfig,
    as_of: dt.date,
    deadline: float | None,
    fresh: bool,
    tasks: mpq.Queue[tuple[int, EntityFacts] | None],
    results: mpq.Queue[tuple[int, dict[str, Tile] | BaseException | None]],
) -> None:
    """A worker process: its own checker (its own cache connection, providers, DNS and
    HTTP clients), up to ``config.workers`` entities at once in threads."""
    die_with_parent(signal.SIGKILL)  # a killed run leaves no worker behind
    checker = LiveChecker(config)
    slots = threading.BoundedSemaphore(config.workers)

    def run(key: int, item: EntityFacts) -> None:
        try:
            answer: dict[str, Tile] | BaseException = _tiles(checker, item, as_of, deadline, fresh)
        except BaseException as error:  # sent back (as text: it may not pickle), raised there
            answer = RuntimeError(
                f"live check of ABN {item.abn} failed in a worker process:\n"
                + "".join(traceback.format_exception(error))
            )
        finally:
            slots.release()
        results.put((key, answer))

    with cf.ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="bvs-live") as pool:
        while True:
            slots.acquire()
            task = tasks.get()
            if task is None:
                break
            pool.submit(run, *task)
    results.put((-1, None))


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
