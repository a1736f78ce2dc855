"""A ledger run history written on disk as `bvs ledger run` writes it (run.json,
suppliers.parquet, changes.parquet, checks.json, the run's slice of the snapshot's check and
flag catalogue, the audit trail), without a warehouse: the monthly report reads nothing
else. Suppliers are given as a few fields; the rest are filled as a verified low-risk row."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.settings import PROJECT_ROOT, Settings

SEEDS = PROJECT_ROOT / "dbt_project" / "seeds"
RUN_DATE = "2026-11-20"
MONTH = RUN_DATE[:7]
SLICE = "_slices/snap1-0123456789abcdef"


def seed(name: str) -> list[dict[str, str]]:
    with (SEEDS / f"{name}.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


CHECK_IDS = [r["check_id"] for r in seed("check_weights")]
FLAG_IDS = [r["flag_id"] for r in seed("flag_definitions")]

CHANGE_SCHEMA = pa.schema([
    ("customer", pa.string()), ("ledger", pa.string()), ("run_id", pa.string()),
    ("run_date", pa.date32()), ("previous_run_id", pa.string()), ("supplier_key", pa.string()),
    ("supplier_ref", pa.string()), ("abn", pa.string()), ("kind", pa.string()),
    ("subject", pa.string()), ("before_value", pa.string()), ("after_value", pa.string()),
    ("is_alert", pa.bool_()),
])  # fmt: skip


def supplier(line: int, **given: Any) -> dict[str, Any]:
    """A ledger_verifications row: verified, low risk, every check PASS, unless ``given``."""
    ref = given.get("supplier_ref", f"S{line:04d}")
    row: dict[str, Any] = {
        "line": line, "supplier_key": ref or f"#line{line}", "supplier_ref": ref,
        "abn": "53004085616", "abn_given": "53004085616", "supplier_name": f"SUPPLIER {line}",
        "entity": f"SUPPLIER {line} PTY LTD", "domain": None, "email": None, "phone": None,
        "state": "NSW", "postcode": "2000", "resolution": "verified", "review_reason": None,
        "candidates": None, "user_supplied": None, "assurance_score": 95.0, "risk_score": 10.0,
        "risk_level": "low", "identity_failures": "[]", "flags": "[]",
    }  # fmt: skip
    for check_id in CHECK_IDS:
        row[f"{check_id}_status"] = "PASS"
        row[f"{check_id}_reason"] = "Found => PASS"
    row.update(given)
    for key in ("flags", "identity_failures", "candidates", "user_supplied"):
        if isinstance(row[key], list):
            row[key] = json.dumps(row[key])
    if row["abn"] is None:
        row.update(assurance_score=None, risk_score=None, risk_level=None, flags=None,
                   identity_failures=None)  # fmt: skip
        for check_id in CHECK_IDS:
            row[f"{check_id}_status"] = row[f"{check_id}_reason"] = None
    return row


def write_run(
    settings: Settings, customer: str, ledger: str, suppliers: list[dict[str, Any]],
    changes: list[dict[str, Any]] | None = None, run_id: str = f"{RUN_DATE}.01",
) -> Path:  # fmt: skip
    folder = settings.ledgers_dir / customer / ledger / "runs" / run_id
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(suppliers), folder / "suppliers.parquet")
    rows = [
        {"customer": customer, "ledger": ledger, "run_id": run_id, "run_date": None,
         "previous_run_id": None, "supplier_ref": None, "abn": None, "before_value": None,
         "after_value": None, "is_alert": False, **c}
        for c in changes or []
    ]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows, schema=CHANGE_SCHEMA), folder / "changes.parquet")
    pq.write_table(pa.table({"customer": pa.array([], pa.string())}), folder / "states.parquet")
    sources = json.dumps([{"register": "ABR ABN bulk extract", "source": "abr",
                           "as_of": "2026-11-18"}])  # fmt: skip
    checks = [{"check_id": c, "weight": 5, "sources": sources} for c in sorted(CHECK_IDS)]
    flags = [{"flag_id": f["flag_id"], "severity": f["severity"],
              "severity_rank": int(f["severity_rank"])} for f in seed("flag_definitions")]  # fmt: skip
    (folder / "checks.json").write_text(json.dumps({"checks": checks, "flags": flags}))
    summary = {
        "customer": customer, "ledger": ledger, "run_id": run_id, "run_date": run_id[:10],
        "previous_run_id": None, "suppliers": len(suppliers), "changes": len(rows),
        "alerts": sum(1 for c in rows if c["is_alert"]),
        "snapshot": {"snapshot_id": "snap1", "as_of": "2026-11-18"}, "slice": SLICE,
        "recorded_at": f"{run_id[:10]}T02:00:00+00:00",
    }  # fmt: skip
    (folder / "run.json").write_text(json.dumps(summary))
    write_slice(settings, customer)
    return folder


def write_slice(settings: Settings, customer: str) -> None:
    """The run's slice of the snapshot's catalogue: marts.checks and marts.flags, which the
    snapshot builds from these seeds."""
    folder = settings.ledgers_dir / customer / SLICE
    if folder.is_dir():
        return
    (folder / "checks").mkdir(parents=True)
    (folder / "flags").mkdir()
    checks = [{"check_id": r["check_id"], "check_name": r["check_name"],
               "weight": int(r["weight"])} for r in seed("check_weights")]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(checks), folder / "checks" / "part-0.parquet")
    flags = [{"flag_id": r["flag_id"], "severity": r["severity"],
              "severity_rank": int(r["severity_rank"]), "trigger": r["trigger"]}
             for r in seed("flag_definitions")]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(flags), folder / "flags" / "part-0.parquet")


def write_trail(settings: Settings, customer: str, entries: list[dict[str, Any]]) -> None:
    """Audit entries as `bvs ledger override` appends them (the report reads, never
    verifies, the trail)."""
    path = settings.ledgers_dir / customer / "audit.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        for seq, entry in enumerate(entries, start=1):
            f.write(json.dumps({"seq": seq, "prev": "0" * 64, "hash": "0" * 64, **entry}) + "\n")
