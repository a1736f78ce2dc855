"""What the report says for the codes a run records: checks, flags, rule rows, statuses,
risk levels, resolutions, ABNs.

The names of checks and the words of flags are not written here: they are the snapshot's
catalogue (``marts.checks.check_name`` from the seed ``check_weights``, ``marts.flags.trigger``
from the seed ``flag_definitions``), which every run keeps in its slice of the snapshot
(``<customer>/_slices/<id>/checks``, ``flags``). A rule row ("ABN cancelled, suspended or not
found => FAIL") is the tile's own text, split into its condition, its status and its note.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

STATUS_WORDS = {"PASS": "Pass", "WARN": "Warning", "FAIL": "Fail", "N/A": "Not applicable"}
LEVEL_WORDS = {"critical": "Critical", "high": "High", "medium": "Medium", "low": "Low"}
RESOLUTION_WORDS = {
    "verified": "Verified",
    "resolved_by_name": "ABN found by name",
    "needs_review": "Needs review",
}
SEVERITY_WORDS = {"CRITICAL": "critical", "HIGH": "high", "MEDIUM": "medium", "LOW": "low"}
FIELD_WORDS = {"domain": "Domain", "address": "Address", "phone": "Phone"}
_RULE = re.compile(r"^(?P<condition>.*?)\s*=>\s*(?P<status>PASS|WARN|FAIL|N/A)\s*(?P<note>.*)$")


@dataclass(frozen=True)
class Words:
    """The catalogue of one run's snapshot: check id -> name, flag id -> (severity, trigger)."""

    checks: dict[str, str]
    flags: dict[str, tuple[str, str]]

    @classmethod
    def from_slice(cls, folder: Path) -> Words | None:
        """The catalogue a run read (its slice of the snapshot); None when the slice is gone."""
        checks, flags = folder / "checks", folder / "flags"
        if not checks.is_dir() or not flags.is_dir():
            return None
        check_rows = pq.read_table(checks).to_pylist()
        flag_rows = pq.read_table(flags).to_pylist()
        return cls(
            {r["check_id"]: r.get("check_name") or "" for r in check_rows},
            {r["flag_id"]: (r.get("severity") or "", r.get("trigger") or "") for r in flag_rows},
        )

    @classmethod
    def from_seeds(cls, dbt_project_dir: Path) -> Words:
        """The same catalogue from the dbt seeds the snapshot's marts are built from."""
        seeds = dbt_project_dir / "seeds"
        with (seeds / "check_weights.csv").open(encoding="utf-8", newline="") as f:
            checks = {r["check_id"]: r["check_name"] for r in csv.DictReader(f)}
        with (seeds / "flag_definitions.csv").open(encoding="utf-8", newline="") as f:
            flags = {r["flag_id"]: (r["severity"], r["trigger"]) for r in csv.DictReader(f)}
        return cls(checks, flags)

    def check(self, check_id: str) -> str:
        return self.checks.get(check_id) or check_id

    def flag(self, flag_id: str) -> str:
        """The flag's trigger, in words ("A director name matches the register of registered
        liquidators")."""
        return self.flags.get(flag_id, ("", ""))[1] or flag_id

    def flag_severity(self, flag_id: str) -> str:
        return SEVERITY_WORDS.get(self.flags.get(flag_id, ("", ""))[0], "")


@dataclass(frozen=True)
class Rule:
    """A rule row in parts: "ABN active, status date unknown => WARN (decided)" is the
    condition "ABN active, status date unknown", the status WARN and the note "a BVS rule
    where the specification is open"."""

    condition: str
    status: str
    note: str


def rule(text: str | None) -> Rule:
    text = (text or "").strip()
    found = _RULE.match(text)
    if found is None:
        return Rule(text, "", "")
    note = found["note"].strip().removeprefix("(").removesuffix(")").strip()
    if note == "decided":
        note = "a BVS rule where the specification is open"
    elif note.startswith("decided:"):
        note = "a BVS rule: " + note.removeprefix("decided:").strip()
    return Rule(found["condition"], found["status"], note)


def rule_words(text: str | None) -> str:
    """The rule row as a sentence: its condition, and its note in brackets."""
    parts = rule(text)
    if not parts.condition and parts.status:
        return ""
    return parts.condition + (f" ({parts.note})" if parts.note else "")


def status(code: str | None) -> str:
    return STATUS_WORDS.get(code or "", code or "")


def level(code: str | None) -> str:
    return LEVEL_WORDS.get(code or "", "Not verified")


def resolution(code: str | None) -> str:
    return RESOLUTION_WORDS.get(code or "", code or "")


def abn(value: str | None) -> str:
    """An ABN as the ABR writes it, "53 004 085 616" (a spreadsheet keeps it as text)."""
    if not value:
        return ""
    digits = re.sub(r"\D", "", value)
    if len(digits) != 11:
        return value
    return f"{digits[:2]} {digits[2:5]} {digits[5:8]} {digits[8:]}"


def number(value: Any) -> str:
    """A score without a trailing ".0" (70.0 -> "70", 62.5 -> "62.5")."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
