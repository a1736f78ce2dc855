"""A small warehouse with load bookkeeping and marts, and a serving snapshot published from
it, for the commands that read the snapshot (`bvs status` during a run, `bvs sql`)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipelines.settings import Settings
from pipelines.warehouse.connection import connect
from pipelines.warehouse.meta import ensure_meta
from pipelines.warehouse.snapshot import SnapshotInfo, publish_snapshot

AS_OF = dt.date(2026, 11, 20)
BVS = str(Path(sys.executable).with_name("bvs"))


def publish(settings: Settings, companies: int = 3) -> SnapshotInfo:
    """Loads of abr (loaded, then failed) and asic (loaded), marts.companies of
    ``companies`` rows and a view, published as the current snapshot."""
    at = dt.datetime(2026, 11, 19, 1, 0, tzinfo=dt.UTC)
    with connect(settings) as con:
        ensure_meta(con)
        con.execute("delete from meta.loads")
        loads = [
            ("abr-1", "abr", "loaded", at, dt.date(2026, 11, 18), None),
            ("asic-1", "asic_companies", "loaded", at, dt.date(2026, 11, 18), None),
            ("abr-2", "abr", "failed", at + dt.timedelta(hours=1), dt.date(2026, 11, 19),
             "abr: public_split_1.zip: not a zip file"),
        ]  # fmt: skip
        for load_id, source, status, started, extract, message in loads:
            con.execute(
                "insert into meta.loads (load_id, source, status, started_at, finished_at,"
                " extract_date, message) values (?, ?, ?, ?, ?, ?, ?)",
                [load_id, source, status, started, started, extract, message],
            )
        con.execute("create schema if not exists marts")
        con.execute(
            "create or replace table marts.companies as select lpad(i::varchar, 11, '5') as abn,"
            " 'Company ' || i as name from range(?) as t(i)",
            [companies],
        )
        con.execute(
            "create or replace view marts.first_company as select * from marts.companies limit 1"
        )
        return publish_snapshot(con, settings, as_of=AS_OF)


@contextmanager
def a_run_holding_the_warehouse(settings: Settings) -> Iterator[subprocess.Popen[str]]:
    """Another process as `bvs run` is while it runs: the writer lock held and the warehouse
    open read-write (DuckDB's lock too)."""
    code = (
        "import sys, duckdb\n"
        "from pipelines.settings import get_settings\n"
        "from pipelines.warehouse.lock import writer_lock\n"
        "settings = get_settings()\n"
        "with writer_lock(settings, purpose='bvs run --as-of 2026-11-20'):\n"
        "    con = duckdb.connect(str(settings.warehouse))\n"
        "    print('holding', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "BVS_DATA_DIR": str(settings.data_dir)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert proc.stdout.readline().strip() == "holding"
        yield proc
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def bvs(
    settings: Settings, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BVS, *args],
        env={**os.environ, "BVS_DATA_DIR": str(settings.data_dir), "CI": "true"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
