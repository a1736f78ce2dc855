"""The monthly supplier-ledger report for a finance person: CSV and PDF.

``bvs ledger report --customer C [--ledger L] --month YYYY-MM --format csv|pdf --out PATH``
reads the run history (never the warehouse): for each ledger, the month's last run, and every
change of the runs in that month.

* **CSV**: one row per supplier of the month's last run, every tile (status and reason), the
  score, risk level and flags, which values are user-supplied, and the supplier's changes and
  alerts in the month. Plain RFC 4180, UTF-8 with a BOM (spreadsheets open it as UTF-8).
* **PDF** (reportlab): a summary page (suppliers by risk level, changes since last month,
  the suppliers that need action first), a section per supplier that needs attention (its
  tiles that are not PASS, its flags, the sources and their as-of dates, user-supplied values
  with an amber badge), an appendix of all suppliers, and the SPEC 1.8 notice on every page.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from pipelines.ledgers import store
from pipelines.ledgers.intake import LedgerError, check_customer_id
from pipelines.serving import notices
from pipelines.settings import Settings

DISCLAIMER = notices.DECISION_SUPPORT
LEVELS = ("critical", "high", "medium", "low")
LEVEL_RANK = {level: i for i, level in enumerate(LEVELS)}
ATTENTION_LIMIT = 60  # supplier sections in the PDF; the rest are in the appendix
LEDGER_CHECKS = ("abn_status", "gst", "address")  # decided with the ledger row


@dataclass
class LedgerMonth:
    ledger: str
    run: store.Run
    suppliers: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    checks: list[dict[str, Any]]
    previous: store.Run | None = None  # last month's last run
    runs_in_month: list[str] = field(default_factory=list)


def _month(month: str) -> tuple[str, str]:
    try:
        first = dt.date.fromisoformat(f"{month}-01")
    except ValueError as exc:
        raise LedgerError(f"month {month!r}: give YYYY-MM") from exc
    following = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return first.isoformat(), following.isoformat()


def collect(
    settings: Settings, customer: str, month: str, ledger: str | None = None
) -> list[LedgerMonth]:
    """Each ledger's month: its last run in the month, the month's changes."""
    check_customer_id(customer)
    start, end = _month(month)
    names = store.ledger_names(settings, customer)
    if ledger is not None:
        if ledger not in names:
            raise LedgerError(f"customer {customer} has no ledger {ledger!r}")
        names = [ledger]
    found = []
    for name in names:
        runs = store.runs(settings, customer, name)
        in_month = [r for r in runs if start <= r.run_date < end]
        if not in_month:
            continue
        last = in_month[-1]
        before = [r for r in runs if r.run_date < start]
        suppliers = sorted(
            pq.read_table(last.file("suppliers.parquet")).to_pylist(), key=lambda r: r["line"]
        )
        changes = [
            {**row, "run_date": r.run_date}
            for r in in_month
            for row in pq.read_table(r.file("changes.parquet")).to_pylist()
        ]
        checks = json.loads(last.file("checks.json").read_text())["checks"]
        found.append(
            LedgerMonth(
                name,
                last,
                suppliers,
                changes,
                checks,
                before[-1] if before else None,
                [r.run_id for r in in_month],
            )  # fmt: skip
        )
    if not found:
        raise LedgerError(f"customer {customer} has no ledger run in {month}")
    return found


def _user_supplied(row: dict[str, Any]) -> list[str]:
    return json.loads(row["user_supplied"]) if row.get("user_supplied") else []


def _needs_attention(row: dict[str, Any], alerted: set[str]) -> bool:
    return (
        row["resolution"] == "needs_review"
        or row["risk_level"] in ("critical", "high")
        or row["supplier_key"] in alerted
    )


def _priority(row: dict[str, Any]) -> tuple[Any, ...]:
    """The act-first order, as the API's ``order=risk`` (pipelines/serving/ledgers.py):
    risk level, risk score, needs review first within them, the ledger's line."""
    level = LEVEL_RANK.get(row["risk_level"] or "", 4)
    return (level, -(row["risk_score"] or 0), row["resolution"] != "needs_review", row["line"])


def _identity_failures(row: dict[str, Any]) -> list[str]:
    """The decisive identity checks that FAIL (CONTRACT decision 21): what put the risk at
    least high. A run written before the column existed has none."""
    text = row.get("identity_failures")
    return json.loads(text) if row.get("abn") and text else []


def _why(row: dict[str, Any], checks: list[dict[str, Any]]) -> str:
    """Why a supplier needs action: the identity failures with their rule rows first, then
    the flags, the review reason, and any other FAIL."""
    parts = [
        f"{c} FAIL: {row.get(f'{c}_reason') or ''}".rstrip(": ") for c in _identity_failures(row)
    ]
    flags = json.loads(row["flags"]) if row["abn"] and row["flags"] else []
    if flags:
        parts.append(", ".join(flags))
    if row["resolution"] == "needs_review":
        parts.append(row["review_reason"] or "needs review")
    if not parts:
        failing = [c["check_id"] for c in checks if row.get(f"{c['check_id']}_status") == "FAIL"]
        if failing:
            parts.append("FAIL: " + ", ".join(failing))
    return "; ".join(parts)


# ------------------------------------------------------------------------------------ CSV


def write_csv(months: list[LedgerMonth], out: Path) -> int:
    """One row per supplier; returns the rows written."""
    check_ids = [c["check_id"] for c in months[0].checks]
    header = [
        "ledger", "run_date", "line", "supplier_ref", "abn", "supplier_name", "resolution",
        "review_reason", "entity", "assurance_score", "risk_score", "risk_level",
        "identity_failures", "flags", "user_supplied", "changes_in_month", "alerts_in_month",
    ]  # fmt: skip
    for check_id in check_ids:
        header += [f"{check_id}_status", f"{check_id}_reason"]
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    rows = 0
    for month in months:
        changes = Counter(c["supplier_key"] for c in month.changes)
        alerts = Counter(c["supplier_key"] for c in month.changes if c["is_alert"])
        for row in month.suppliers:
            flags = json.loads(row["flags"]) if row["abn"] and row["flags"] else []
            values = [
                month.ledger, month.run.run_date, row["line"], row["supplier_ref"], row["abn"],
                row["supplier_name"], row["resolution"], row["review_reason"], row["entity"],
                row["assurance_score"], row["risk_score"], row["risk_level"],
                " ".join(_identity_failures(row)), " ".join(flags),
                " ".join(_user_supplied(row)), changes[row["supplier_key"]],
                alerts[row["supplier_key"]],
            ]  # fmt: skip
            for check_id in check_ids:
                values += [row[f"{check_id}_status"], row[f"{check_id}_reason"]]
            writer.writerow(["" if v is None else v for v in values])
            rows += 1
    out.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))
    return rows


# ------------------------------------------------------------------------------------ PDF


def write_pdf(customer: str, month: str, months: list[LedgerMonth], out: Path) -> int:
    """The finance person's report; returns its page count."""
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_LEFT
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import (
        KeepTogether,
        PageBreak,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    styles = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=styles["BodyText"], fontSize=8.5, leading=10.5)
    small = ParagraphStyle("small", parent=body, fontSize=7, leading=8.5, alignment=TA_LEFT)
    h1, h2, h3 = styles["Title"], styles["Heading2"], styles["Heading3"]
    amber = colors.HexColor("#F5A623")
    level_colour = {
        "critical": colors.HexColor("#B00020"),
        "high": colors.HexColor("#E65100"),
        "medium": colors.HexColor("#F9A825"),
        "low": colors.HexColor("#2E7D32"),
    }
    status_colour = {"FAIL": colors.HexColor("#FDE0DC"), "WARN": colors.HexColor("#FFF4CE")}
    title_month = dt.date.fromisoformat(f"{month}-01").strftime("%B %Y")

    def p(text: Any, style: ParagraphStyle = body) -> Paragraph:
        return Paragraph(
            str(text if text is not None else "").replace("&", "&amp;").replace("<", "&lt;"),
            style,
        )

    def grid(data: list[list[Any]], widths: list[float], header: bool = True) -> Table:
        table = Table(data, colWidths=widths, repeatRows=1 if header else 0)
        style = [
            ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#BBBBBB")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("FONTSIZE", (0, 0), (-1, -1), 7.5),
        ]
        if header:
            style += [("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#E8EAF0")),
                      ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold")]  # fmt: skip
        table.setStyle(TableStyle(style))
        return table

    def footer(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(15 * mm, 10 * mm, DISCLAIMER)
        canvas.drawRightString(195 * mm, 5 * mm, f"{customer} - {title_month} - page {doc.page}")
        canvas.restoreState()

    story: list[Any] = []
    everyone = [(m, row) for m in months for row in m.suppliers]
    alerted = {(m.ledger, c["supplier_key"]) for m in months for c in m.changes if c["is_alert"]}
    attention = sorted(
        [
            (m, r)
            for m, r in everyone
            if _needs_attention(r, {k for lg, k in alerted if lg == m.ledger})
        ],
        key=lambda mr: _priority(mr[1]),
    )

    # -- summary page ------------------------------------------------------------------------
    story.append(p(f"Supplier ledger report: {customer}", h1))
    story.append(
        p(
            f"{title_month}. Each ledger as its last run of the month verified it, and every change in the month."
        )
    )
    story.append(Spacer(1, 4 * mm))
    rows: list[list[Any]] = [
        [
            "Ledger",
            "Last run",
            "Snapshot as of",
            "Suppliers",
            "Critical",
            "High",
            "Medium",
            "Low",
            "Needs review",
        ]
    ]
    for m in months:
        levels = Counter(r["risk_level"] for r in m.suppliers)
        review = sum(1 for r in m.suppliers if r["resolution"] == "needs_review")
        rows.append([m.ledger, m.run.run_date, m.run.summary["snapshot"]["as_of"], len(m.suppliers),
                     levels["critical"], levels["high"], levels["medium"], levels["low"], review])  # fmt: skip
    story.append(p("Suppliers by risk level", h2))
    widths = [32 * mm, 20 * mm, 22 * mm, 18 * mm, 15 * mm, 13 * mm, 15 * mm, 13 * mm, 20 * mm]
    levels_table = grid(rows, widths)
    levels_table.setStyle(
        TableStyle(
            [("BACKGROUND", (i, 0), (i, 0), level_colour[lv]) for i, lv in enumerate(LEVELS, 4)]
            + [("TEXTCOLOR", (4, 0), (7, 0), colors.white)]
        )
    )
    story.append(levels_table)

    story.append(p("Changes since last month", h2))
    rows = [["Ledger", "Runs in the month", "Changes", "Alerts", "Compared with"]]
    kinds: Counter[str] = Counter()
    for m in months:
        kinds.update(c["kind"] for c in m.changes)
        rows.append([m.ledger, len(m.runs_in_month), len(m.changes), sum(1 for c in m.changes if c["is_alert"]),
                     m.previous.run_date if m.previous else "(first month)"])  # fmt: skip
    story.append(grid(rows, [40 * mm, 30 * mm, 25 * mm, 25 * mm, 40 * mm]))
    if kinds:
        story.append(Spacer(1, 2 * mm))
        story.append(
            p("By kind: " + ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in kinds.most_common()))
        )

    story.append(p("Suppliers that need action first", h2))
    rows = [["Supplier", "Ref", "ABN", "Risk", "Why"]]
    for m, r in attention[:15]:
        why = _why(r, m.checks)
        rows.append([p(r["entity"] or r["supplier_name"], small), r["supplier_ref"], r["abn"] or "-",
                     f"{r['risk_level'] or 'review'} {r['risk_score'] if r['risk_score'] is not None else ''}",
                     p(why, small)])  # fmt: skip
    if len(rows) == 1:
        rows.append(["None this month", "", "", "", ""])
    story.append(grid(rows, [50 * mm, 22 * mm, 24 * mm, 20 * mm, 64 * mm]))
    story.append(Spacer(1, 4 * mm))
    story.append(p(DISCLAIMER, small))
    story.append(PageBreak())

    # -- a section per supplier that needs attention ---------------------------------------------
    story.append(p("Suppliers that need attention", h1))
    if len(attention) > ATTENTION_LIMIT:
        story.append(
            p(
                f"The {ATTENTION_LIMIT} most urgent of {len(attention)}; the rest are in the appendix."
            )
        )
    for m, r in attention[:ATTENTION_LIMIT]:
        parts: list[Any] = []
        name = r["entity"] or r["supplier_name"] or "(no name)"
        parts.append(
            p(f"{name} - {r['supplier_ref'] or ''} - ABN {r['abn'] or 'none'} ({m.ledger})", h3)
        )
        flags = json.loads(r["flags"]) if r["abn"] and r["flags"] else []
        level = r["risk_level"] or "not verified"
        line = f"Risk level {level}"
        if r["risk_score"] is not None:
            line += f", risk score {r['risk_score']}, assurance score {r['assurance_score']}"
        identity = _identity_failures(r)
        if identity:
            line += ". Identity failure (at least high): " + ", ".join(identity)
        if flags:
            line += ". Flags: " + ", ".join(flags)
        parts.append(p(line))
        if r["resolution"] != "verified":
            parts.append(
                p(f"Resolution: {r['resolution'].replace('_', ' ')}. {r['review_reason'] or ''}")
            )
        user = set(_user_supplied(r))
        if r["abn"]:
            rows = [["Check", "Status", "Rule", "Sources (as of)"]]
            marks = []
            # the ledger's own checks, then what fails, then what warns, then user-supplied
            order = {"FAIL": 1, "WARN": 2}
            shown = sorted(
                (
                    c
                    for c in m.checks
                    if c["check_id"] in LEDGER_CHECKS
                    or r[f"{c['check_id']}_status"] in order
                    or c["check_id"] in user
                ),
                key=lambda c: (
                    0
                    if c["check_id"] in LEDGER_CHECKS
                    else order.get(r[f"{c['check_id']}_status"], 3),
                    c["check_id"],
                ),
            )
            for check in shown:
                cid = check["check_id"]
                status = r[f"{cid}_status"]
                badge = cid in user
                sources = ", ".join(
                    f"{s.get('register')} ({s.get('as_of') or 'not loaded'})"
                    for s in json.loads(check["sources"] or "[]")
                )
                label = cid.replace("_", " ") + ("  [USER-SUPPLIED]" if badge else "")
                rows.append(
                    [p(label, small), status, p(r[f"{cid}_reason"], small), p(sources, small)]
                )
                if status in status_colour:
                    marks.append(
                        (
                            "BACKGROUND",
                            (1, len(rows) - 1),
                            (1, len(rows) - 1),
                            status_colour[status],
                        )
                    )
                if badge:
                    marks.append(("BACKGROUND", (0, len(rows) - 1), (0, len(rows) - 1), amber))
            table = grid(rows, [38 * mm, 14 * mm, 78 * mm, 50 * mm])
            table.setStyle(TableStyle(marks))
            parts.append(table)
            if user:
                parts.append(
                    p(
                        "User-supplied values (amber): "
                        + ", ".join(sorted(user))
                        + "; see bvs ledger audit.",
                        small,
                    )
                )
        changes = [c for c in m.changes if c["supplier_key"] == r["supplier_key"]]
        if changes:
            parts.append(p("This month: " + "; ".join(
                f"{c['run_date']} {c['kind'].replace('_', ' ')} {c['subject']}: {c['before_value'] or '-'} -> {c['after_value'] or '-'}{' (alert)' if c['is_alert'] else ''}"
                for c in changes[:12]), small))  # fmt: skip
        parts.append(Spacer(1, 4 * mm))
        story.append(KeepTogether(parts))
    if not attention:
        story.append(p("No supplier needs attention this month."))
    story.append(PageBreak())

    # -- appendix: every supplier ----------------------------------------------------------------
    story.append(p("Appendix: all suppliers", h1))
    rows = [["Ledger", "Ref", "Supplier", "ABN", "Resolution", "Score", "Risk", "Flags"]]
    for m, r in everyone:
        flags = json.loads(r["flags"]) if r["abn"] and r["flags"] else []
        rows.append([m.ledger, r["supplier_ref"] or "", p(r["entity"] or r["supplier_name"], small), r["abn"] or "-",
                     r["resolution"].replace("_", " "), r["assurance_score"] if r["assurance_score"] is not None else "-",
                     r["risk_level"] or "-", p(" ".join(flags), small)])  # fmt: skip
    story.append(
        grid(rows, [24 * mm, 20 * mm, 50 * mm, 22 * mm, 22 * mm, 12 * mm, 14 * mm, 26 * mm])
    )
    story.append(Spacer(1, 6 * mm))
    story.append(p("About this report", h2))
    story.append(p(DISCLAIMER))
    story.append(
        p(
            "Each supplier was verified against the public registers in the serving snapshot of its"
            " last run (the as-of dates are on each check). Values marked user-supplied were given by"
            " your team and are recorded in the audit trail."
        )
    )

    doc = SimpleDocTemplate(
        str(out), pagesize=A4, leftMargin=15 * mm, rightMargin=15 * mm, topMargin=15 * mm,
        bottomMargin=18 * mm, title=f"Supplier ledger report {customer} {month}",
        author="BVS", subject=DISCLAIMER,
    )  # fmt: skip
    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return int(doc.page)


def report(
    settings: Settings, customer: str, month: str, fmt: str, out: Path, ledger: str | None = None
) -> dict[str, Any]:
    months = collect(settings, customer, month, ledger)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "customer": customer, "month": month, "format": fmt, "out": str(out),
        "ledgers": {m.ledger: m.run.run_id for m in months},
        "suppliers": sum(len(m.suppliers) for m in months),
        "changes": sum(len(m.changes) for m in months),
    }  # fmt: skip
    if fmt == "csv":
        result["rows"] = write_csv(months, out)
    elif fmt == "pdf":
        result["pages"] = write_pdf(customer, month, months, out)
    else:
        raise LedgerError(f"format {fmt!r}: csv or pdf")
    return result
