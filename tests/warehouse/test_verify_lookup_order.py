"""The verify lookup's records reach SQLite in ABN order, however the snapshot gives them.

An insert at a random key of a B-tree larger than SQLite's page cache costs a random read and
write (docs/weekly-refresh.md, "Two realistic weeks at 20 M"), so the writer spreads the
compressed records over files by ABN range and inserts range by range, each sorted.
"""

from __future__ import annotations

import bisect
import random
from pathlib import Path

import duckdb

from pipelines.warehouse import verify_lookup as lookup_module
from pipelines.warehouse.verify_lookup import _range_bounds, _RangeSpool


def _abns(count: int) -> list[int]:
    rng = random.Random(7)
    return rng.sample(range(10_000_000_000, 99_999_999_999), count)


def test_ranges_are_cut_at_quantiles_into_about_range_rows_each(monkeypatch) -> None:
    monkeypatch.setattr(lookup_module, "RANGE_ROWS", 1_000)
    abns = _abns(4_500)
    with duckdb.connect() as con:
        con.execute("create table v as select unnest(?) as abn", [abns])
        bounds = _range_bounds(con, "v")
        assert len(bounds) == 4  # five ranges of about 900
        sizes = [0] * 5
        for abn in abns:
            sizes[bisect.bisect_right(bounds, abn)] += 1
        assert all(850 <= size <= 950 for size in sizes), sizes
        con.execute("create table few as select * from v limit 1000")
        assert _range_bounds(con, "few") == []  # one range: no cut
        con.execute("create table none as select * from v limit 0")
        assert _range_bounds(con, "none") == []


def test_every_record_comes_back_once_in_abn_order(tmp_path: Path) -> None:
    abns = _abns(5_000)  # in no order, as a snapshot gives them
    records = [(abn, f"body of {abn}".encode() * (abn % 3)) for abn in abns]
    bounds = sorted(abns)[1_000::1_000]  # five ranges; a bound itself opens its range
    with _RangeSpool(bounds, tmp_path) as spool:
        spool.add(records[:2_500])
        spool.add(iter(records[2_500:]))
        ranges = list(spool.ranges())
    assert [len(r) for r in ranges] == [1_000] * 5
    written = [record for r in ranges for record in r]
    assert written == sorted(records)  # bodies intact, empty ones too


def test_with_no_bounds_all_records_are_one_sorted_range(tmp_path: Path) -> None:
    records = [(abn, b"x") for abn in _abns(100)]
    with _RangeSpool([], tmp_path) as spool:
        spool.add(records)
        assert list(spool.ranges()) == [sorted(records)]
