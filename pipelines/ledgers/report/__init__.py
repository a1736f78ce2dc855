"""The monthly supplier-ledger report for a finance person: CSV and PDF.

``bvs ledger report --customer C [--ledger L] --month YYYY-MM --format csv|pdf --out PATH``
reads the run history (never the warehouse): for each ledger, the month's last run, and every
change of the runs in that month (``month.py``).

* **CSV** (``spreadsheet.py``): one row per supplier of the month's last run, every check
  (result and rule), the score, risk level and flags, which values are user-supplied, and the
  supplier's changes and alerts in the month; column names in words, the ABN grouped as the
  ABR writes it so that a spreadsheet keeps it as text.
* **PDF** (reportlab), one module per part, ``write_pdf`` only putting them in order: the
  first page (``summary.py``: suppliers by risk level, changes since last month, the
  suppliers that need action first), a section per supplier that needs attention
  (``attention.py``), the other suppliers that need review with the businesses import found
  (``review.py``), the values your team supplied (``team_values.py``), an appendix of all
  suppliers (``appendix.py``), and the docs/decisions/26-words-the-spec-requires.md notice at the foot of every page
  (``layout.py``, which also makes every cell fit its column). Codes are said in words
  (``words.py``: check names and flag triggers from the snapshot's catalogue), the code
  small beside them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipelines.ledgers.intake import LedgerError
from pipelines.ledgers.report.month import LedgerMonth, collect
from pipelines.ledgers.report.spreadsheet import write_csv
from pipelines.serving.notices import DECISION_SUPPORT as DISCLAIMER
from pipelines.settings import Settings


def write_pdf(customer: str, month: str, months: list[LedgerMonth], out: Path) -> int:
    """The finance person's report, section by section; returns its page count."""
    from reportlab.platypus import PageBreak, SimpleDocTemplate

    from pipelines.ledgers.report import appendix, attention, review, summary, team_values
    from pipelines.ledgers.report.layout import BOTTOM_MARGIN, MARGIN, PAGE, Layout
    from pipelines.ledgers.report.month import attention as needing_attention

    layout = Layout(customer, month)
    urgent = needing_attention(months)
    story = [
        *summary.section(layout, months, urgent),
        PageBreak(),
        *attention.section(layout, urgent),
        *review.section(layout, urgent),
        PageBreak(),
        *team_values.section(layout, months),
        *appendix.section(layout, months),
    ]
    doc = SimpleDocTemplate(
        str(out), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
        bottomMargin=BOTTOM_MARGIN, title=f"Supplier ledger report {customer} {month}",
        author="BVS", subject=DISCLAIMER,
    )  # fmt: skip
    doc.build(story, onFirstPage=layout.footer, onLaterPages=layout.footer)
    return int(doc.page)


def report(
    settings: Settings, customer: str, month: str, fmt: str, out: Path, ledger: str | None = None
) -> dict[str, Any]:
    if fmt not in ("csv", "pdf"):
        raise LedgerError(f"format {fmt!r}: csv or pdf")
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
    else:
        result["pages"] = write_pdf(customer, month, months, out)
    return result


__all__ = ["DISCLAIMER", "LedgerMonth", "collect", "report", "write_csv", "write_pdf"]
