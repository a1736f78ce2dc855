"""The values your team supplied (overrides, docs/ledgers.md) that the month's runs used: the
value, who set it, when and why (the audit trail), in each supplier's section and as one
list for the whole report."""

from __future__ import annotations

from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Spacer, TableStyle

from pipelines.ledgers.report import month as m
from pipelines.ledgers.report import words
from pipelines.ledgers.report.layout import AMBER, NAME_LIMIT, Layout

NOT_IN_TRAIL = "(not in the audit trail)"


def used(row: dict[str, Any], field: str) -> str:
    """The value the run used for ``field`` (address: state and postcode)."""
    if field == "address":
        return " ".join(v for v in (row.get("state"), row.get("postcode")) if v)
    return str(row.get(field) or "")


def values(month: m.LedgerMonth, row: dict[str, Any]) -> list[list[str]]:
    """[field, value, by, on, why] of each value supplied for the supplier."""
    out = []
    for field in m.user_supplied(row):
        given = month.overrides.get((row["supplier_ref"] or "", field))
        out.append([
            words.FIELD_WORDS.get(field, field),
            given.value if given else used(row, field),
            given.by if given else NOT_IN_TRAIL,
            given.at[:16].replace("T", " ") + " UTC" if given else "",
            given.reason if given else "",
        ])  # fmt: skip
    return out


def _amber(table: Any, column: int, rows: int) -> None:
    table.setStyle(TableStyle([("BACKGROUND", (column, i), (column, i), AMBER)
                               for i in range(1, rows + 1)]))  # fmt: skip


def supplier(layout: Layout, month: m.LedgerMonth, row: dict[str, Any]) -> list[Flowable]:
    rows = values(month, row)
    if not rows:
        return []
    table = layout.table(["Value", "Used instead of the ledger's", "Set by", "On", "Why"], rows,
                         [mm * w for w in (20, 40, 26, 30, 64)])  # fmt: skip
    _amber(table, 0, len(rows))
    return [
        Spacer(1, 2 * mm),
        layout.text("Set by your team (amber), from the audit trail:", layout.small),
        table,
    ]


def section(layout: Layout, months: list[m.LedgerMonth]) -> list[Flowable]:
    """Every value your team supplied that the month's last runs used."""
    rows = []
    for month in months:
        for row in month.suppliers:
            for value in values(month, row):
                rows.append([layout.cell([(month.ledger, False), (f"line {row['line']}", True)],
                                         22 * mm),
                             layout.supplier(row, 40 * mm), *value])  # fmt: skip
    if not rows:
        return []
    widths = [mm * w for w in (22, 40, 16, 24, 18, 22, 38)]
    table = layout.table(["Ledger", "Supplier", "Value", "Used", "Set by", "On", "Why"], rows,
                         widths, [NAME_LIMIT] * 7)  # fmt: skip
    _amber(table, 2, len(rows))
    return [
        layout.text("Values set by your team", layout.h2),
        layout.text(
            "Each value below was used by its check instead of the value in the ledger row"
            " (bvs ledger audit lists every change to them).",
        ),
        Spacer(1, 2 * mm),
        table,
        Spacer(1, 4 * mm),
    ]
