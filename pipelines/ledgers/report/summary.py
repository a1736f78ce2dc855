"""The PDF's first page: suppliers by risk level per ledger, the changes since last month,
and the suppliers that need action first (each once, with the ledgers it is in, and how
many more there are)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Spacer, TableStyle

from pipelines.ledgers.report import month as m
from pipelines.ledgers.report import words
from pipelines.ledgers.report.layout import LEVEL_COLOUR, NAME_LIMIT, Layout

ACT_FIRST = 15  # rows of the act-first list on the first page
LIMIT = 60  # supplier sections after it (pipelines/ledgers/report/attention.py)

CHANGE_KINDS = {
    "tile": "a check's result", "flag_raised": "flag raised", "flag_cleared": "flag cleared",
    "risk_level": "risk level", "score": "assurance score", "abn_status": "ABN register status",
    "director": "director", "adverse_record": "new adverse record",
    "insolvency": "insolvency notice", "enforcement": "enforcement action",
}  # fmt: skip


def risk(row: dict[str, Any]) -> list[tuple[str, bool]]:
    if row["risk_level"] is None:
        return [("Not verified", False)]
    out = [(words.level(row["risk_level"]), False)]
    if row["risk_score"] is not None:
        out.append((f"risk score {words.number(row['risk_score'])}", True))
    return out


def why(row: dict[str, Any], month: m.LedgerMonth) -> list[tuple[str, bool]]:
    pieces: list[tuple[str, bool]] = []
    for i, (text, code) in enumerate(m.why(row, month)):
        pieces.append((("" if i == 0 else "; ") + text, False))
        if code:
            pieces.append((code, True))
    return pieces


def section(layout: Layout, months: list[m.LedgerMonth],
            attention: list[m.Attention]) -> list[Flowable]:  # fmt: skip
    out: list[Flowable] = [
        layout.text(f"Supplier ledger report: {layout.customer}", layout.h1, limit=NAME_LIMIT),
        layout.text(
            f"{layout.title_month}. Each ledger as its last run of the month verified it,"
            " and every change in the month."
        ),  # fmt: skip
        Spacer(1, 4 * mm),
    ]
    out += by_risk_level(layout, months)
    out += changes(layout, months)
    out += act_first_list(layout, attention)
    return out


def by_risk_level(layout: Layout, months: list[m.LedgerMonth]) -> list[Flowable]:
    rows = []
    for month in months:
        levels = Counter(r["risk_level"] for r in month.suppliers)
        review = sum(1 for r in month.suppliers if r["resolution"] == "needs_review")
        rows.append([month.ledger, month.run.run_date, month.run.summary["snapshot"]["as_of"],
                     len(month.suppliers), *(levels[lv] for lv in m.LEVELS), review])  # fmt: skip
    widths = [mm * w for w in (36, 20, 22, 18, 15, 13, 15, 13, 28)]
    header: list[Any] = ["Ledger", "Last run", "Registers as of", "Suppliers"]
    header += [layout.cell(words.level(lv), w, style=layout.head_white)
               for lv, w in zip(m.LEVELS, widths[4:8], strict=True)]  # fmt: skip
    table = layout.table([*header, "Needs review"], rows, widths)
    table.setStyle(TableStyle(
        [("BACKGROUND", (i, 0), (i, 0), LEVEL_COLOUR[lv]) for i, lv in enumerate(m.LEVELS, 4)]
    ))  # fmt: skip
    return [layout.text("Suppliers by risk level", layout.h2), table]


def changes(layout: Layout, months: list[m.LedgerMonth]) -> list[Flowable]:
    rows = []
    kinds: Counter[str] = Counter()
    for month in months:
        kinds.update(c["kind"] for c in month.changes)
        rows.append([month.ledger, len(month.runs_in_month), len(month.changes),
                     sum(1 for c in month.changes if c["is_alert"]),
                     month.previous.run_date if month.previous else "nothing (first month)"])  # fmt: skip
    out: list[Flowable] = [
        layout.text("Changes since last month", layout.h2),
        layout.table(
            ["Ledger", "Runs in the month", "Changes", "Alerts", "Compared with the run of"],
            rows,
            [mm * w for w in (50, 30, 25, 25, 50)],
        ),  # fmt: skip
    ]
    if kinds:
        out.append(Spacer(1, 2 * mm))
        out.append(layout.text("By kind: " + ", ".join(
            f"{CHANGE_KINDS.get(k, k.replace('_', ' '))} {n}" for k, n in kinds.most_common())))  # fmt: skip
    return out


def act_first_list(layout: Layout,
                   attention: list[m.Attention]) -> list[Flowable]:  # fmt: skip
    listed = attention
    widths = [mm * w for w in (46, 28, 24, 20, 62)]
    rows = []
    for item in listed[:ACT_FIRST]:
        row = item.row
        rows.append([
            layout.supplier(row, widths[0]),
            layout.cell("; ".join(f"{lg}, line {line}" for lg, line in item.ledgers), widths[1]),
            words.abn(row["abn"]) or "none",
            layout.cell(risk(row), widths[3]),
            layout.cell(why(row, item.month), widths[4]),
        ])  # fmt: skip
    if not rows:
        rows.append(["None this month", "", "", "", ""])
    out: list[Flowable] = [
        layout.text("Suppliers that need action first", layout.h2),
        layout.table(["Supplier", "Ledger", "ABN", "Risk", "Why"], rows, widths),
    ]
    more = len(listed) - ACT_FIRST
    if more > 0:
        out.append(Spacer(1, 2 * mm))
        out.append(layout.text(
            f"... and {more} more supplier{'s' if more != 1 else ''} that need attention"
            f" ({len(listed)} in all). The next pages show the {min(len(listed), LIMIT)} most"
            " urgent, then every supplier that needs review with the businesses import found"
            " for it; the appendix lists every supplier."
        ))  # fmt: skip
    return out
