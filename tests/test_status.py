"""`bvs status` and the summary after `bvs run`: what they count (pipelines/status.py)."""

import duckdb

from pipelines.status import _mart_counts, mart_rows


def test_mart_tables_are_counted_and_views_are_not_run() -> None:
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute("create table marts.verifications as select range as abn from range(3)")
    # a view is its query: counting marts.tiles ran the long form of every verification
    # (72 million rows at 2 million ABNs); this one fails if it is ever run
    con.execute("create view marts.tiles as select error('a view was counted') as abn")

    counts = _mart_counts(con)

    assert counts == {"marts.tiles": None, "marts.verifications": 3}
    assert [mart_rows(n) for n in counts.values()] == ["view", "3 rows"]
