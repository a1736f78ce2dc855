"""`bvs.json_array_agg` on DuckDB gives exactly what an ordered `string_agg` gives.

The macro (dbt_project/macros/cross_db/json.sql) gathers a group's texts unordered, with a
sort key from `create_sort_key`, and sorts each list after, so that the aggregate spills like
any other (an aggregate with its own ORDER BY keeps every row in memory). Compiled by the
real dbt (`dbt compile --inline`) and run by DuckDB over generated groups with the order
clauses the evidence models use (descending dates, several terms, qualified columns, null
sort keys, null texts), each group's array must equal the ordered `string_agg` of the same
rows, and parse as JSON.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

import duckdb
import pytest
from test_dbt_build import run_dbt

# (order_by, the reference's ORDER BY): the forms the evidence models pass.
ORDERS = {
    "date_desc": "action_date desc, regulator, record_id",
    "two_ascending": "regulator, record_id",
    "rank_desc": "severity desc, record_id",
    "qualified": "rows.record_id",
}

INLINE_SQL = """
select
    grp,
    {%- for name, order_by in orders.items() %}
    {{ bvs.json_array_agg(
        "case when keep then cast(json_object('id', record_id, 'regulator', regulator) as varchar) end",
        order_by=order_by) }} as macro_{{ name }},
    '[' || string_agg(
        case when keep then cast(json_object('id', record_id, 'regulator', regulator) as varchar) end,
        ',' order by {{ order_by }}) || ']' as reference_{{ name }},
    {%- endfor %}
    {{ bvs.json_array_agg(
        "case when keep then cast(json_object('id', record_id) as varchar) end") }} as macro_unordered
from main.evidence_rows as rows
group by grp
order by grp
"""


def _rows(seed: int = 11) -> list[tuple]:
    """Groups of 0 to 30 rows: dates and severities with nulls and repeats, record ids unique
    within a group (so every order is total and the reference is exact); some rows' texts
    null; some groups with no text at all."""
    rng = random.Random(seed)
    rows = []
    for grp in range(300):
        all_dropped = grp % 17 == 0
        for record in rng.sample(range(1000), rng.randint(1, 30)):
            rows.append(
                (
                    grp,
                    f"R{record:04d}",
                    rng.choice(["ACCC", "QBCC", "FWO", "NDIS_COMMISSION", None]),
                    None
                    if rng.random() < 0.1
                    else dt.date(2020, 1, 1) + dt.timedelta(days=rng.randint(0, 40)),
                    rng.choice([1, 2, 3, None]),
                    not all_dropped and rng.random() > 0.15,
                )
            )
    return rows


@pytest.fixture(scope="module")
def aggregated(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    work = tmp_path_factory.mktemp("json_macros")
    warehouse = work / "warehouse.duckdb"
    sql = INLINE_SQL.replace("orders.items()", repr(ORDERS) + ".items()")
    compiled = run_dbt("compile", warehouse, work, "--quiet", "--inline", sql)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    con = duckdb.connect(str(warehouse))
    try:
        con.execute(
            "create table main.evidence_rows (grp integer, record_id varchar, regulator varchar,"
            " action_date date, severity integer, keep boolean)"
        )
        con.executemany("insert into main.evidence_rows values (?, ?, ?, ?, ?, ?)", _rows())
        cursor = con.execute(compiled.stdout)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_equals_ordered_string_agg(aggregated: list[dict], order: str) -> None:
    assert len(aggregated) == 300
    for group in aggregated:
        assert group[f"macro_{order}"] == group[f"reference_{order}"], group["grp"]
    # the cases are there: groups with several texts, and groups with none (null)
    assert sum(group[f"macro_{order}"] is None for group in aggregated) >= 10
    assert max(len(json.loads(g[f"macro_{order}"] or "[]")) for g in aggregated) >= 20


def test_descending_dates_put_nulls_last(aggregated: list[dict]) -> None:
    """The first term is descending: newest first, undated records at the end."""
    dates = {(row[0], row[1]): row[3] for row in _rows()}
    checked = 0
    for group in aggregated:
        if group["macro_date_desc"] is None:
            continue
        seen = [dates[(group["grp"], item["id"])] for item in json.loads(group["macro_date_desc"])]
        dated = [d for d in seen if d is not None]
        assert seen == dated + [None] * (len(seen) - len(dated)), group["grp"]
        assert dated == sorted(dated, reverse=True), group["grp"]
        checked += len(dated) > 1 and len(dated) < len(seen)
    assert checked > 20


def test_without_order_every_text_once(aggregated: list[dict]) -> None:
    for group in aggregated:
        ordered = group["macro_qualified"]
        unordered = group["macro_unordered"]
        assert (ordered is None) == (unordered is None)
        if ordered is not None:
            ids = sorted(item["id"] for item in json.loads(unordered))
            assert ids == [item["id"] for item in json.loads(ordered)]


@pytest.mark.parametrize(
    "order_by", ["action_date desc nulls first", "coalesce(action_date, record_id)", "a, , b"]
)
def test_an_order_it_cannot_sort_as_written_is_refused(tmp_path: Path, order_by: str) -> None:
    sql = "select {{ bvs.json_array_agg('x', order_by=\"" + order_by + '") }} as items from t'
    compiled = run_dbt("compile", tmp_path / "warehouse.duckdb", tmp_path, "--inline", sql)
    assert compiled.returncode != 0
    assert "json_array_agg: order term" in compiled.stdout + compiled.stderr
