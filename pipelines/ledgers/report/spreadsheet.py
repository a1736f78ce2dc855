"""The report as CSV: one row per supplier of each ledger's last run in the month.

Plain RFC 4180, UTF-8 with a BOM (Excel opens it as UTF-8). Column names are words a person
reads ("ABN status: result"); the ABN is written as the ABR writes it, "53 004 085 616", so
that a spreadsheet keeps it as text instead of turning it into a number (the fault intake
warns about, docs/ledgers.md). Statuses and flags stay codes (PASS, WARN, FAIL; LICENCE_MISMATCH):
a spreadsheet filters on them.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

from pipelines.ledgers.report import month as m
from pipelines.ledgers.report import words

COLUMNS = (
    "Ledger", "Run date", "Line", "Supplier ref", "ABN", "Supplier name (ledger)",
    "Registered name", "Resolution", "Review reason", "Assurance score", "Risk score",
    "Risk level", "Identity failures", "Flags", "User-supplied fields", "Changes in month",
    "Alerts in month",
)  # fmt: skip


def check_columns(name: str) -> tuple[str, str]:
    """A check's two columns: its status and its rule row."""
    return f"{name}: result", f"{name}: rule"


def header(months: list[m.LedgerMonth]) -> list[str]:
    said = months[0].words
    out = list(COLUMNS)
    for check in months[0].checks:
        out += check_columns(said.check(check["check_id"]))
    return out


def write_csv(months: list[m.LedgerMonth], out: Path) -> int:
    """One row per supplier; returns the rows written."""
    check_ids = [c["check_id"] for c in months[0].checks]
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header(months))
    rows = 0
    for month in months:
        changes = Counter(c["supplier_key"] for c in month.changes)
        alerts = Counter(c["supplier_key"] for c in month.changes if c["is_alert"])
        for row in month.suppliers:
            values = [
                month.ledger, month.run.run_date, row["line"], row["supplier_ref"],
                words.abn(row["abn"]), row["supplier_name"], row["entity"],
                words.resolution(row["resolution"]), row["review_reason"],
                words.number(row["assurance_score"]), words.number(row["risk_score"]),
                row["risk_level"], " ".join(m.identity_failures(row)), " ".join(m.flags(row)),
                " ".join(m.user_supplied(row)), changes[row["supplier_key"]],
                alerts[row["supplier_key"]],
            ]  # fmt: skip
            for check_id in check_ids:
                values += [row.get(f"{check_id}_status"), row.get(f"{check_id}_reason")]
            writer.writerow(["" if v is None else v for v in values])
            rows += 1
    out.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))
    return rows
