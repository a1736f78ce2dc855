"""The PDF's section per supplier that needs attention (the most urgent ``LIMIT``; the rest
are in the appendix): its risk and why in words, the candidates import found for a supplier
needing review, the ledger checks and every check that warns or fails with its rule in words
and its sources' dates, the user-supplied values (the value, who set it, when and why), and
its changes of the month."""

from __future__ import annotations

import json
from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, Spacer, TableStyle

from pipelines.ledgers.report import month as m
from pipelines.ledgers.report import review, team_values, words
from pipelines.ledgers.report.layout import (
    AMBER,
    NAME_LIMIT,
    STATUS_COLOUR,
    TEXT_LIMIT,
    Layout,
    shorten,
)
from pipelines.ledgers.report.summary import CHANGE_KINDS, LIMIT

LEDGER_CHECKS = ("abn_status", "gst", "address")  # decided with the ledger row
CHANGES_SHOWN = 12


def section(layout: Layout, attention: list[m.Attention]) -> list[Flowable]:
    out: list[Flowable] = [layout.text("Suppliers that need attention", layout.h1)]
    if len(attention) > LIMIT:
        review = any(a.row["resolution"] == "needs_review" for a in attention[LIMIT:])
        then = "; the suppliers that need review follow" if review else ""
        out.append(layout.text(f"The {LIMIT} most urgent of {len(attention)}{then}; the"
                               " appendix lists every supplier."))  # fmt: skip
    for item in attention[:LIMIT]:
        out.append(KeepTogether(supplier(layout, item)))
    if not attention:
        out.append(layout.text("No supplier needs attention this month."))
    return out


def supplier(layout: Layout, item: m.Attention) -> list[Flowable]:
    """One supplier's section."""
    month, row = item.month, item.row
    out: list[Flowable] = [layout.text(m.name(row), layout.h3, limit=NAME_LIMIT)]
    where = ["; ".join(f"Ledger {lg}, line {line}" for lg, line in item.ledgers)]
    if row["supplier_ref"]:
        where.append(f"reference {row['supplier_ref']}")
    where.append(f"ABN {words.abn(row['abn'])}" if row["abn"] else "no ABN")
    if row.get("entity") and row["supplier_name"] and row["entity"] != row["supplier_name"]:
        where.append(f"named {shorten(row['supplier_name'], NAME_LIMIT)!r} in the ledger")
    out.append(layout.text(" - ".join(where), layout.small, limit=NAME_LIMIT * 3))

    line = f"Risk: {words.level(row['risk_level'])}"
    if row["risk_score"] is not None:
        line += (f" (risk score {words.number(row['risk_score'])}, assurance score"
                 f" {words.number(row['assurance_score'])})")  # fmt: skip
    out.append(layout.text(f"{line}. Resolution: {words.resolution(row['resolution'])}."))
    for text, code in m.why(row, month):
        bullet = [("- " + text, False), *([(code, True)] if code else [])]
        out.append(layout.text(bullet, limit=TEXT_LIMIT))
    if m.candidates(row) or (row["resolution"] == "needs_review" and not row["abn"]):
        out += review.candidates(layout, row)
    if row["abn"]:
        out += [Spacer(1, 1.5 * mm), *checks(layout, month, row)]
    out += team_values.supplier(layout, month, row)
    out += changes(layout, item.changes(), month.words)
    out.append(Spacer(1, 4 * mm))
    return out


def checks(layout: Layout, month: m.LedgerMonth, row: dict[str, Any]) -> list[Flowable]:
    """The ledger's own checks, then what fails, what warns, and what a user supplied."""
    said, user = month.words, set(m.user_supplied(row))
    order = {"FAIL": 1, "WARN": 2}
    shown = sorted(
        (c for c in month.checks
         if c["check_id"] in LEDGER_CHECKS or row.get(f"{c['check_id']}_status") in order
         or c["check_id"] in user),
        key=lambda c: (0 if c["check_id"] in LEDGER_CHECKS
                       else order.get(row.get(f"{c['check_id']}_status") or "", 3), c["check_id"]),
    )  # fmt: skip
    widths = [mm * w for w in (40, 18, 74, 48)]
    rows, marks = [], []
    for check in shown:
        cid = check["check_id"]
        status = row.get(f"{cid}_status")
        badge = cid in user
        label = [(said.check(cid), False), (cid, True)]
        if badge:
            label.append(("- set by your team (below)", False))
        sources = "; ".join(
            f"{s.get('label') or s.get('register') or s.get('source')}"
            f" (as of {s.get('as_of') or 'not loaded'})"
            for s in json.loads(check.get("sources") or "[]")
        )
        rows.append([layout.cell(label, widths[0]), words.status(status),
                     words.rule_words(row.get(f"{cid}_reason")), sources])  # fmt: skip
        at = len(rows)
        if status in STATUS_COLOUR:
            marks.append(("BACKGROUND", (1, at), (1, at), STATUS_COLOUR[status]))
        if badge:
            marks.append(("BACKGROUND", (0, at), (0, at), AMBER))
    table = layout.table(["Check", "Result", "Rule", "Sources (as of)"], rows, widths)
    table.setStyle(TableStyle(marks))
    return [table]


def change_words(change: dict[str, Any], said: words.Words) -> list[tuple[str, bool]]:
    kind, subject = change["kind"], change["subject"] or ""
    before, after = change.get("before_value"), change.get("after_value")
    text: list[tuple[str, bool]] = [(f"{change['run_date']}: ", False)]
    if kind == "tile":
        text += [(f"{said.check(subject)}: {words.status(before) or '-'} to"
                  f" {words.status(after) or '-'}", False), (subject, True)]  # fmt: skip
    elif kind in ("flag_raised", "flag_cleared"):
        text += [(f"{CHANGE_KINDS[kind].capitalize()}: {said.flag(subject)}", False),
                 (subject, True)]  # fmt: skip
    elif kind == "risk_level":
        text.append((f"Risk level {words.level(before)} to {words.level(after)}", False))
    else:
        what = CHANGE_KINDS.get(kind, kind.replace("_", " ")).capitalize()
        text.append((f"{what} {subject}: {before or '-'} to {after or '-'}", False))
    if change["is_alert"]:
        text.append((" (alert)", False))
    return text


def changes(layout: Layout, mine: list[dict[str, Any]], said: words.Words) -> list[Flowable]:
    if not mine:
        return []
    out: list[Flowable] = [layout.text("This month:", layout.small)]
    for change in mine[:CHANGES_SHOWN]:
        said_change = [("- ", False), *change_words(change, said)]
        out.append(layout.text(said_change, layout.small, limit=TEXT_LIMIT))
    if len(mine) > CHANGES_SHOWN:
        out.append(layout.text(f"... and {len(mine) - CHANGES_SHOWN} more (bvs ledger changes)",
                               layout.small))  # fmt: skip
    return out
