"""A ledger's month as the report reads it from the run history (never the warehouse): the
month's last run, its suppliers, the month's changes, the words of its snapshot's catalogue
and the user-supplied values in force when it ran (who set them, when and why, from the
audit trail). Also what every part of the report shares: which suppliers need attention, in
which order, and why."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

import pyarrow.parquet as pq

from pipelines.ledgers import overrides as trail
from pipelines.ledgers import store
from pipelines.ledgers.intake import LedgerError, check_customer_id
from pipelines.ledgers.report import words
from pipelines.settings import Settings

LEVELS = ("critical", "high", "medium", "low")
LEVEL_RANK = {level: i for i, level in enumerate(LEVELS)}


@dataclass(frozen=True)
class Override:
    """A user-supplied value a run used: the value, who set it, when (UTC) and why."""

    field: str
    value: str
    by: str
    at: str
    reason: str


@dataclass
class LedgerMonth:
    ledger: str
    run: store.Run
    suppliers: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    checks: list[dict[str, Any]]
    previous: store.Run | None = None  # last month's last run
    runs_in_month: list[str] = field(default_factory=list)
    words: words.Words = field(default_factory=lambda: words.Words({}, {}))
    # (supplier_ref, field) -> the override the run used
    overrides: dict[tuple[str, str], Override] = field(default_factory=dict)


def month_range(month: str) -> tuple[str, str]:
    try:
        first = dt.date.fromisoformat(f"{month}-01")
    except ValueError as exc:
        raise LedgerError(f"month {month!r}: give YYYY-MM") from exc
    following = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return first.isoformat(), following.isoformat()


def overrides_at(
    entries: list[dict[str, Any]], ledger: str, recorded_at: str | None
) -> dict[tuple[str, str], Override]:
    """The overrides of ``ledger`` in force at ``recorded_at`` (the trail replayed up to
    then; all of it when the time is unknown)."""
    found: dict[tuple[str, str], Override] = {}
    for entry in entries:
        if "_unreadable" in entry or entry.get("ledger") != ledger:
            continue
        if recorded_at and str(entry.get("at") or "") > recorded_at:
            continue
        key = (str(entry["supplier_ref"]), str(entry["field"]))
        if entry.get("action") == "override":
            found[key] = Override(
                key[1], str(entry.get("new") or ""), str(entry.get("by") or ""),
                str(entry.get("at") or ""), str(entry.get("reason") or ""),
            )  # fmt: skip
        else:
            found.pop(key, None)
    return found


def collect(
    settings: Settings, customer: str, month: str, ledger: str | None = None
) -> list[LedgerMonth]:
    """Each ledger's month: its last run in the month, the month's changes."""
    check_customer_id(customer)
    start, end = month_range(month)
    names = store.ledger_names(settings, customer)
    if ledger is not None:
        if ledger not in names:
            raise LedgerError(f"customer {customer} has no ledger {ledger!r}")
        names = [ledger]
    entries = trail.read_trail(settings, customer)
    seeds: words.Words | None = None
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
        said = None
        if last.summary.get("slice"):
            said = words.Words.from_slice(settings.ledgers_dir / customer / last.summary["slice"])
        if said is None:
            seeds = seeds or words.Words.from_seeds(settings.dbt_project_dir)
            said = seeds
        found.append(
            LedgerMonth(
                name,
                last,
                suppliers,
                changes,
                checks,
                before[-1] if before else None,
                [r.run_id for r in in_month],
                said,
                overrides_at(entries, name, last.summary.get("recorded_at")),
            )  # fmt: skip
        )
    if not found:
        raise LedgerError(f"customer {customer} has no ledger run in {month}")
    return found


# ------------------------------------------------------------ what every part reads of a row


def flags(row: dict[str, Any]) -> list[str]:
    return json.loads(row["flags"]) if row.get("abn") and row.get("flags") else []


def user_supplied(row: dict[str, Any]) -> list[str]:
    return json.loads(row["user_supplied"]) if row.get("user_supplied") else []


def candidates(row: dict[str, Any]) -> list[dict[str, Any]]:
    return json.loads(row["candidates"]) if row.get("candidates") else []


def identity_failures(row: dict[str, Any]) -> list[str]:
    """The decisive identity checks that FAIL (docs/decisions/21-decisive-identity-failure.md): what put the risk at
    least high. A run written before the column existed has none."""
    text = row.get("identity_failures")
    return json.loads(text) if row.get("abn") and text else []


def name(row: dict[str, Any]) -> str:
    return str(row.get("entity") or row.get("supplier_name") or "(no name)")


def needs_attention(row: dict[str, Any], alerted: set[str]) -> bool:
    return (
        row["resolution"] == "needs_review"
        or row["risk_level"] in ("critical", "high")
        or row["supplier_key"] in alerted
    )


def priority(row: dict[str, Any]) -> tuple[Any, ...]:
    """The act-first order, as the API's ``order=risk`` (pipelines/serving/ledgers.py):
    risk level, risk score, needs review first within them, the ledger's line."""
    level = LEVEL_RANK.get(row["risk_level"] or "", 4)
    return (level, -(row["risk_score"] or 0), row["resolution"] != "needs_review", row["line"])


@dataclass
class Attention:
    """A supplier that needs attention, and every ledger row it is: the same reference,
    ABN and name, with the same findings, in several ledgers is one supplier to act on."""

    month: LedgerMonth
    row: dict[str, Any]
    rows: list[tuple[LedgerMonth, dict[str, Any]]]

    @property
    def ledgers(self) -> list[tuple[str, int]]:
        return [(month.ledger, row["line"]) for month, row in self.rows]

    def changes(self) -> list[dict[str, Any]]:
        return [
            c for month, row in self.rows for c in month.changes
            if c["supplier_key"] == row["supplier_key"]
        ]  # fmt: skip


def attention(months: list[LedgerMonth]) -> list[Attention]:
    """Every supplier that needs attention (needs review, critical or high risk, or an
    alert in the month), in the act-first order across the ledgers, each once."""
    found = []
    for month in months:
        alerted = {c["supplier_key"] for c in month.changes if c["is_alert"]}
        found += [(month, r) for r in month.suppliers if needs_attention(r, alerted)]
    found.sort(key=lambda mr: (priority(mr[1]), mr[0].ledger))
    same: dict[tuple[Any, ...], Attention] = {}
    out = []
    for month, row in found:
        key = (row["supplier_ref"], row["abn"], name(row), row["risk_level"], row["risk_score"],
               row["resolution"], row["review_reason"], row["flags"], row["identity_failures"])  # fmt: skip
        item = same.get(key)
        if item is not None and all(m.ledger != month.ledger for m, _ in item.rows):
            item.rows.append((month, row))
            continue
        item = Attention(month, row, [(month, row)])
        same.setdefault(key, item)
        out.append(item)
    return out


def why(row: dict[str, Any], month: LedgerMonth) -> list[tuple[str, str]]:
    """Why a supplier needs action, in words, each with its code: the identity failures
    with their rule first, then the flags, the review reason, and any other FAIL."""
    said = month.words
    parts = []
    for check_id in identity_failures(row):
        text = words.rule_words(row.get(f"{check_id}_reason"))
        parts.append((f"{said.check(check_id)} fails" + (f": {text}" if text else ""), check_id))
    for flag in flags(row):
        severity = said.flag_severity(flag)
        parts.append(
            (f"Flag{f' ({severity})' if severity else ''}: {said.flag(flag)}", flag)
        )  # fmt: skip
    if row["resolution"] == "needs_review":
        parts.append((f"Needs review: {row['review_reason'] or 'see the ledger row'}", ""))
    if not parts:
        failing = [
            c["check_id"] for c in month.checks if row.get(f"{c['check_id']}_status") == "FAIL"
        ]
        parts += [(f"{said.check(c)} fails", c) for c in failing]
    if not parts and any(c["is_alert"] for c in month.changes
                         if c["supplier_key"] == row["supplier_key"]):  # fmt: skip
        parts.append(("A change for the worse this month (below)", ""))
    return parts
