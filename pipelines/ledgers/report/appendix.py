"""The PDF's appendix: every supplier of every ledger, in the ledger's order, and what the
report is."""

from __future__ import annotations

from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Spacer

from pipelines.ledgers.report import month as m
from pipelines.ledgers.report import words
from pipelines.ledgers.report.layout import TEXT_LIMIT, Layout

WIDTHS = [mm * w for w in (16, 8, 20, 41, 22, 17, 9, 10, 37)]
NAME_LIMIT = 80  # characters of a name in the appendix


def flag_words(row: dict[str, Any], month: m.LedgerMonth) -> list[tuple[str, bool]]:
    pieces: list[tuple[str, bool]] = []
    for i, flag in enumerate(m.flags(row)):
        pieces += [(("; " if i else "") + month.words.flag(flag), False), (flag, True)]
    return pieces


def section(layout: Layout, months: list[m.LedgerMonth]) -> list[Flowable]:
    rows = []
    for month in months:
        for row in month.suppliers:
            rows.append([
                month.ledger,
                row["line"],
                row["supplier_ref"] or "",
                m.name(row),
                words.abn(row["abn"]) or "none",
                words.resolution(row["resolution"]),
                words.number(row["assurance_score"]) or "-",
                words.level(row["risk_level"]) if row["risk_level"] else "-",
                layout.cell(flag_words(row, month), WIDTHS[8]) if m.flags(row) else "",
            ])  # fmt: skip
    return [
        layout.text("Appendix: all suppliers", layout.h1),
        layout.table(
            ["Ledger", "Line", "Ref", "Supplier", "ABN", "Resolution", "Score", "Risk", "Flags"],
            rows,
            WIDTHS,
            [NAME_LIMIT, 10, NAME_LIMIT, NAME_LIMIT, 20, 40, 10, 20, TEXT_LIMIT],
        ),  # fmt: skip
        Spacer(1, 6 * mm),
        layout.text("About this report", layout.h2),
        layout.text(
            "Each supplier was verified against the public registers in the serving snapshot of"
            " its ledger's last run of the month (the as-of dates are on each check). Values"
            " marked as set by your team were given by your team and are recorded in the audit"
            " trail (bvs ledger audit). The notice at the foot of every page applies to all of it."
        ),  # fmt: skip
    ]
