"""A run's summary accounts for every supplier (no warehouse: a tiny ledger_verifications)."""

from __future__ import annotations

import duckdb

from pipelines.ledgers.run import run_summary, supplier_counts


def _verifications() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema ledgers")
    con.execute(
        "create table ledgers.ledger_verifications as select * from (values"
        " ('c', 'l', 2, 'S1', '53004085616', 'verified', 'low', null),"
        " ('c', 'l', 3, 'S2', '51824753556', 'needs_review', 'high', 'unknown state ''XX'''),"
        " ('c', 'l', 4, 'S3', null, 'needs_review', null, 'the ABN 5300408561 is not 11 digits'),"
        " ('c', 'l', 6, null, null, 'needs_review', null, 'no ABN and no supplier name'),"
        " ('c', 'other', 2, 'S1', null, 'needs_review', null, 'elsewhere')"
        ") t(customer, ledger, line, supplier_ref, abn, resolution, risk_level, review_reason)"
    )
    return con


def test_by_risk_level_adds_up_to_the_suppliers_and_names_the_unverified() -> None:
    counts = supplier_counts(_verifications(), "c", "l")
    assert counts["by_risk_level"] == {"low": 1, "high": 1, "unverified": 2}
    assert counts["by_resolution"] == {"verified": 1, "resolved_by_name": 0, "needs_review": 3}
    assert sum(counts["by_risk_level"].values()) == sum(counts["by_resolution"].values()) == 4
    assert counts["unverified"] == [
        {"line": 4, "supplier_ref": "S3", "reason": "the ABN 5300408561 is not 11 digits"},
        {"line": 6, "supplier_ref": None, "reason": "no ABN and no supplier name"},
    ]


def test_the_printed_summary_carries_the_unverified_and_the_ignored_rows() -> None:
    counts = supplier_counts(_verifications(), "c", "l")
    ignored = [{"line": 5, "reason": "a totals row, not a supplier (no ABN)", "held": "Total"}]
    summary = {
        "customer": "c", "ledger": "l", "run_date": "2026-11-20", "run_id": "2026-11-20.01",
        "suppliers": 4, **counts, "changes": 0, "alerts": 0,
        "snapshot": {"snapshot_id": "s1"}, "intake": {"rows": 4, "ignored": ignored},
    }  # fmt: skip
    printed = run_summary(summary)
    assert printed["by_risk_level"]["unverified"] == 2
    assert [u["line"] for u in printed["unverified"]] == [4, 6]
    assert printed["ignored"] == ignored
