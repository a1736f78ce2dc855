"""User-supplied values for a supplier's domain, address or phone (docs/ledgers.md), and their
audit trail.

An override replaces the value a check uses for one supplier of one ledger from the next run
on: the domain and phone the live checks use, and the address (state and postcode) the
address check compares with the register instead of the ledger row's. The tile's detail then
says ``user_supplied: true`` (the amber badge of reports). A revert goes back to the value
the ledger row gives.

Every override and revert is appended to the customer's audit trail,
``<ledgers_dir>/<customer>/audit.jsonl``: who, when, which field, the old and new values and
why. The trail is a hash chain: each entry carries the SHA-256 of the one before and its
own hash covers its content and that link, so changing, removing or reordering an entry
breaks every hash after it. The head (the last entry's number and hash) is also kept in the
state database, so cutting entries off the end shows too. ``bvs ledger audit --verify`` checks
both; an override is refused while the trail does not verify.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from pipelines.ledgers import store
from pipelines.ledgers.intake import LedgerError, check_customer_id
from pipelines.settings import Settings
from pipelines.state.tables import audit_heads

FIELDS = ("domain", "address", "phone")
GENESIS = "0" * 64
TRAIL = "audit.jsonl"

_STATE = re.compile(r"\b(NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\b", re.IGNORECASE)
_POSTCODE = re.compile(r"\b(\d{4})\b")
_DOMAIN = re.compile(r"^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")


@dataclass(frozen=True)
class Override:
    ledger: str
    supplier_ref: str
    field: str
    value: str
    by: str
    at: str
    reason: str


def trail_path(settings: Settings, customer: str) -> Path:
    return settings.ledgers_dir / customer / TRAIL


def _digest(entry: dict[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def read_trail(settings: Settings, customer: str) -> list[dict[str, Any]]:
    return [entry for _line, entry in _numbered_trail(settings, customer)]


def _numbered_trail(settings: Settings, customer: str) -> list[tuple[int, dict[str, Any]]]:
    """The trail's entries with the file line each is on (blank lines skipped)."""
    path = trail_path(settings, customer)
    if not path.exists():
        return []
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append((number, json.loads(line)))
        except json.JSONDecodeError:
            entries.append((number, {"_unreadable": line, "_line": number}))
    return entries


def verify_trail(settings: Settings, customer: str) -> list[str]:
    """What is wrong with the customer's audit trail (empty: it verifies), naming the file's
    lines: entries out of order, missing or repeated (by their numbers), an entry whose
    content or link to the entry before it changed, entries cut off the end."""
    from pipelines.state.db import state_store

    numbered = _numbered_trail(settings, customer)
    problems = [
        f"line {line} is not readable JSON" for line, entry in numbered if "_unreadable" in entry
    ]
    entries = [(line, e) for line, e in numbered if "_unreadable" not in e]
    problems += _sequence_problems(entries)
    by_seq: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for line, entry in entries:
        if isinstance(entry.get("seq"), int):
            by_seq.setdefault(entry["seq"], []).append((line, entry))
    for line, entry in entries:
        seq = entry.get("seq")
        if _digest(entry) != entry.get("hash"):
            problems.append(
                f"entry {seq} was altered (line {line}: its content no longer matches its hash)"
            )
        if not isinstance(seq, int):
            continue
        before = GENESIS if seq == 1 else None
        if seq > 1 and len(by_seq.get(seq - 1, [])) == 1:
            before = str(by_seq[seq - 1][0][1].get("hash"))
        if before is not None and entry.get("prev") != before:
            problems.append(
                f"entry {seq} (line {line}) does not follow entry {seq - 1} (its link changed)"
            )
    with state_store(settings) as engine, engine.connect() as conn:
        head = conn.execute(
            sa.select(audit_heads.c.seq, audit_heads.c.hash).where(
                audit_heads.c.customer == customer
            )
        ).first()
    last = by_seq[max(by_seq)][-1][1] if by_seq else None
    if head is not None and (
        last is None or (last.get("seq"), last.get("hash")) != (head.seq, head.hash)
    ):
        problems.append(
            f"the trail ends at entry {last.get('seq') if last else 0}, but entry {head.seq} was"
            " recorded last (entries were cut off the end or rewritten)"
        )
    if head is None and entries:
        problems.append("the trail has entries but no recorded head (it was not written by bvs)")
    return problems


def _sequence_problems(entries: list[tuple[int, dict[str, Any]]]) -> list[str]:
    """The entries' numbers against 1, 2, 3, ... in file order: lines out of order, numbers
    missing (an entry removed) or repeated (an entry copied), lines without a number."""
    problems = []
    numbered = []
    for line, entry in entries:
        seq = entry.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1:
            numbered.append((line, seq))
        else:
            problems.append(f"line {line} has no entry number (seq {seq!r})")
    lines_of: dict[int, list[int]] = {}
    for line, seq in numbered:
        lines_of.setdefault(seq, []).append(line)
    for seq, lines in sorted(lines_of.items()):
        if len(lines) > 1:
            problems.append(
                f"entry {seq} is on {len(lines)} lines ({', '.join(map(str, lines))}):"
                " an entry was copied"
            )
    if numbered:
        missing = sorted(set(range(1, max(s for _l, s in numbered) + 1)) - set(lines_of))
        if missing:
            problems.append(
                f"entr{'y' if len(missing) == 1 else 'ies'} {_ranges(missing)} missing:"
                " removed from the trail"
            )
    for (line_a, seq_a), (line_b, seq_b) in itertools.pairwise(numbered):
        if seq_b < seq_a:
            problems.append(
                f"lines {line_a} and {line_b} are out of order: entry {seq_a} (line {line_a})"
                f" comes before entry {seq_b} (line {line_b}); each line must hold the entry"
                " numbered one more than the line before (entries were moved)"
            )
    return problems


def _ranges(numbers: list[int]) -> str:
    """``[2, 3, 4, 7]`` as ``"2-4, 7"`` (and "is"/"are" left to the caller)."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
    return f"{text} {'is' if len(numbers) == 1 else 'are'}"


@contextmanager
def _locked(settings: Settings, customer: str) -> Iterator[Path]:
    path = trail_path(settings, customer)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(TRAIL + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _append(settings: Settings, customer: str, entry: dict[str, Any]) -> dict[str, Any]:
    from pipelines.state.db import state_store

    with _locked(settings, customer) as path:
        problems = verify_trail(settings, customer)
        if problems:
            raise LedgerError(
                f"the audit trail {path} does not verify, so nothing is added to it: {problems[0]}"
            )
        entries = read_trail(settings, customer)
        last = entries[-1] if entries else {"seq": 0, "hash": GENESIS}
        entry = {**entry, "seq": int(last["seq"]) + 1, "prev": last["hash"]}
        entry["hash"] = _digest(entry)
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        with state_store(settings) as engine, engine.begin() as conn:
            values = {
                "seq": entry["seq"],
                "hash": entry["hash"],
                "updated_at": dt.datetime.now(dt.UTC),
            }
            done = conn.execute(
                sa.update(audit_heads).where(audit_heads.c.customer == customer).values(**values)
            )
            if done.rowcount == 0:
                conn.execute(sa.insert(audit_heads).values(customer=customer, **values))
    return entry


def current(settings: Settings, customer: str) -> dict[tuple[str, str, str], Override]:
    """The overrides in force: (ledger, supplier_ref, field) -> the last override not
    reverted."""
    found: dict[tuple[str, str, str], Override] = {}
    for entry in read_trail(settings, customer):
        if "_unreadable" in entry:
            continue
        key = (entry["ledger"], entry["supplier_ref"], entry["field"])
        if entry["action"] == "override":
            found[key] = Override(
                entry["ledger"], entry["supplier_ref"], entry["field"], entry["new"],
                entry["by"], entry["at"], entry["reason"],
            )  # fmt: skip
        else:
            found.pop(key, None)
    return found


def for_ledger(settings: Settings, customer: str, ledger: str) -> dict[tuple[str, str], Override]:
    """(supplier_ref, field) -> override, for one ledger."""
    return {
        (o.supplier_ref, o.field): o
        for (lg, _, _), o in current(settings, customer).items()
        if lg == ledger
    }


def parse_address(value: str) -> tuple[str, str | None]:
    """An address as the address check uses it: (state, postcode or None)."""
    state = _STATE.search(value)
    if state is None:
        raise LedgerError(
            f"address {value!r}: give at least the state (NSW, VIC, QLD, WA, SA, TAS, ACT, NT),"
            " and the postcode"
        )
    postcode = _POSTCODE.search(value)
    return state.group(1).upper(), postcode.group(1) if postcode else None


def _clean(field: str, value: str) -> str:
    value = value.strip()
    if field == "domain":
        value = value.lower().removeprefix("https://").removeprefix("http://").split("/")[0]
        value = value.removeprefix("www.")
        if not _DOMAIN.match(value):
            raise LedgerError(f"domain {value!r} is not a domain name (e.g. example.com.au)")
    elif field == "phone":
        digits = re.sub(r"[^\d+]", "", value)
        if len(re.sub(r"\D", "", digits)) < 8:
            raise LedgerError(f"phone {value!r} has fewer than 8 digits")
    else:
        state, postcode = parse_address(value)
        value = f"{state} {postcode}" if postcode else state
    return value


def _detected(
    settings: Settings, customer: str, ledger: str, supplier_ref: str, field: str
) -> str | None:
    """The value the landed ledger row gives (what a revert goes back to)."""
    landed = {x.ledger: x for x in store.landed_ledgers(settings, customer)}
    if ledger not in landed:
        return None
    parsed = store.read_ledger_cached(settings, customer, ledger, landed[ledger].path)
    for row in parsed.rows.iter_rows(named=True):
        if row["supplier_ref"] == supplier_ref:
            if field == "address":
                parts = [p for p in (row["state"], row["postcode"]) if p]
                return " ".join(parts) or None
            return row[field]  # type: ignore[no-any-return]
    return None


def _check_supplier(settings: Settings, customer: str, ledger: str, supplier_ref: str) -> None:
    import pyarrow.parquet as pq

    if ledger not in store.ledger_names(settings, customer):
        raise LedgerError(f"customer {customer} has no ledger {ledger!r}")
    run = store.latest_run(settings, customer, ledger)
    if run is None:
        raise LedgerError(f"ledger {ledger!r} of {customer} has not been run yet (bvs ledger run)")
    refs = pq.read_table(run.file("suppliers.parquet"), columns=["supplier_ref"])["supplier_ref"]
    if supplier_ref not in set(refs.to_pylist()):
        raise LedgerError(f"ledger {ledger!r} of {customer} has no supplier {supplier_ref!r}")


def override(
    settings: Settings, customer: str, ledger: str, supplier_ref: str, field: str, value: str,
    reason: str, by: str,
) -> dict[str, Any]:  # fmt: skip
    """Record an override (from the next run on); returns the audit entry."""
    check_customer_id(customer)
    if field not in FIELDS:
        raise LedgerError(f"field {field!r}: one of {', '.join(FIELDS)}")
    if not reason.strip():
        raise LedgerError("an override needs a reason")
    _check_supplier(settings, customer, ledger, supplier_ref)
    new = _clean(field, value)
    active = for_ledger(settings, customer, ledger).get((supplier_ref, field))
    old = active.value if active else _detected(settings, customer, ledger, supplier_ref, field)
    return _append(settings, customer, {
        "action": "override", "at": dt.datetime.now(dt.UTC).isoformat(), "by": by,
        "ledger": ledger, "supplier_ref": supplier_ref, "field": field, "old": old, "new": new,
        "reason": reason.strip(),
    })  # fmt: skip


def revert(
    settings: Settings, customer: str, ledger: str, supplier_ref: str, field: str, by: str,
    reason: str = "",
) -> dict[str, Any]:  # fmt: skip
    """Go back to the value the ledger row gives (from the next run on)."""
    check_customer_id(customer)
    if field not in FIELDS:
        raise LedgerError(f"field {field!r}: one of {', '.join(FIELDS)}")
    active = for_ledger(settings, customer, ledger).get((supplier_ref, field))
    if active is None:
        raise LedgerError(f"supplier {supplier_ref!r} of ledger {ledger!r} has no {field} override")
    return _append(settings, customer, {
        "action": "revert", "at": dt.datetime.now(dt.UTC).isoformat(), "by": by,
        "ledger": ledger, "supplier_ref": supplier_ref, "field": field, "old": active.value,
        "new": _detected(settings, customer, ledger, supplier_ref, field),
        "reason": reason.strip() or "reverted to the value the ledger gives",
    })  # fmt: skip
