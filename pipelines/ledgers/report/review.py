"""The PDF's section of the suppliers that need review (those not among the most urgent
sections before it): why, and the businesses import found for each, with the ABN to put in
the ledger when one of them is the supplier."""

from __future__ import annotations

from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, Spacer

from pipelines.ledgers.report import month as m
from pipelines.ledgers.report import words
from pipelines.ledgers.report.layout import NAME_LIMIT, TEXT_LIMIT, Layout
from pipelines.ledgers.report.summary import LIMIT

ABN_STATUS = {"ACT": "active", "CAN": "cancelled"}


def candidates(layout: Layout, row: dict[str, Any]) -> list[Flowable]:
    """The businesses import found for the supplier."""
    found = m.candidates(row)
    if not found:
        return [layout.text("Import found no registered business for this supplier.", layout.small)]
    widths = [mm * w for w in (26, 78, 16, 28, 32)]
    rows = []
    for c in found:
        if c.get("found_by") == "acn":
            how = "its ACN"
        elif c.get("score") is not None:
            how = f"name {round(100 * float(c['score']))}% alike"
        else:
            how = ""
        name = c.get("legal_name") or c.get("name") or ""
        if c.get("name") and c.get("legal_name") and c["name"] != c["legal_name"]:
            name = f"{c['name']} (legal name {c['legal_name']})"
        status = ABN_STATUS.get(c.get("abn_status") or "", c.get("abn_status") or "")
        rows.append([words.abn(c.get("abn")), name, c.get("state") or "", status, how])
    return [
        layout.text(
            "Businesses import found for it (if one is this supplier, put its ABN in the ledger):",
            layout.small,
        ),
        layout.table(
            ["ABN", "Registered name", "State", "ABN status", "Found by"],
            rows,
            widths,
            [20, NAME_LIMIT * 2, 10, 40, 60],
        ),  # fmt: skip
    ]


def supplier(layout: Layout, item: m.Attention) -> list[Flowable]:
    row = item.row
    where = "; ".join(f"Ledger {lg}, line {line}" for lg, line in item.ledgers)
    if row["supplier_ref"]:
        where += f" - reference {row['supplier_ref']}"
    given = row.get("abn_given")
    where += f" - ABN given: {words.abn(given)}" if given else " - no ABN given"
    return [
        layout.text(m.name(row), layout.h3, limit=NAME_LIMIT),
        layout.text(where, layout.small, limit=NAME_LIMIT * 3),
        layout.text(
            f"Needs review: {row['review_reason'] or 'see the ledger row'}", limit=TEXT_LIMIT
        ),  # fmt: skip
        *(candidates(layout, row) if m.candidates(row) or not row["abn"] else []),
        Spacer(1, 3 * mm),
    ]


def section(layout: Layout, attention: list[m.Attention]) -> list[Flowable]:
    rest = [a for a in attention[LIMIT:] if a.row["resolution"] == "needs_review"]
    if not rest:
        return []
    return [
        Spacer(1, 6 * mm),
        layout.text("Suppliers that need review", layout.h1),
        layout.text(
            f"{len(rest)} more supplier{'s' if len(rest) != 1 else ''} whose ledger row could not"
            " be verified as it stands: fix the row (the ABN, the name) and the next run verifies"
            " it."
        ),  # fmt: skip
        *(KeepTogether(supplier(layout, item)) for item in rest),
    ]
