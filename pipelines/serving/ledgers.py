"""A customer's supplier ledgers as the API and ``bvs ledger show`` give them, read from the
run history (``pipelines.ledgers.store``): a reader only, like the rest of ``serving``.

Each query reads one run's Parquet files with DuckDB (only the columns and row groups it
needs), so a page of a ledger of a hundred thousand suppliers costs milliseconds.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

import duckdb

from pipelines.ledgers import store
from pipelines.ledgers.intake import LEDGER_ROW_FIELDS
from pipelines.settings import Settings

RESOLUTIONS = ("verified", "resolved_by_name", "needs_review")
RISK_LEVELS = ("low", "medium", "high", "critical")
MAX_PAGE = 500
# A page's order (fixed SQL, chosen by name). "risk" is the ledger report's "act first"
# order: the highest risk level first (a decisive identity failure is at least high), then
# the higher risk score, suppliers that need review before the rest of their level, then
# the ledger's line; suppliers with no risk level (no usable ABN) last.
ORDERS = {
    "risk": (
        "order by case s.risk_level when 'critical' then 0 when 'high' then 1"
        " when 'medium' then 2 when 'low' then 3 else 4 end,"
        " s.risk_score desc nulls last, s.resolution <> 'needs_review', s.line"
    ),
    "line": "order by s.line",
}


class LedgerNotFound(LookupError):
    """No such ledger for this customer (another customer's ledger looks the same)."""

    @property
    def message(self) -> str:
        return f"no ledger {self.args[0]!r}"


RUNS_NAMED = 10  # a run-missing message names at most this many of the ledger's run dates


class LedgerRunNotFound(LedgerNotFound):
    """The ledger exists but has no run of the date asked for (or no run at all): the
    message names its run dates, the most recent first."""

    def __init__(self, ledger: str, run_date: dt.date | None, run_dates: list[str]) -> None:
        super().__init__(ledger)
        self.ledger = ledger
        self.run_date = run_date
        self.run_dates = run_dates

    @property
    def message(self) -> str:
        if not self.run_dates:
            return f"ledger {self.ledger!r} has no run yet"
        latest = sorted(set(self.run_dates), reverse=True)
        named = ", ".join(latest[:RUNS_NAMED])
        more = (
            f" ({len(latest)} dates in all, the first {latest[-1]})"
            if len(latest) > RUNS_NAMED
            else ""
        )
        return (
            f"ledger {self.ledger!r} has no run on {self.run_date}; its runs, latest first:"
            f" {named}{more} (without run=, the latest)"
        )


# Tiles whose evidence the run decided itself (the ledger rows; user-supplied values): the
# rest is the snapshot's, in the run's slice.
OWN_DETAILS = ("abn_status", "gst", "address", "domain", "phone")


def _tile(row: dict[str, Any], check: dict[str, Any]) -> dict[str, Any]:
    check_id = check["check_id"]
    own = row.get(f"{check_id}_detail")
    if check_id in ("domain", "phone"):  # the run's own only when the user supplied it
        detail = own or row.get(f"snapshot_{check_id}_detail")
    elif check_id in OWN_DETAILS:
        detail = own
    else:
        detail = row.get(f"snapshot_{check_id}_detail")
    return {
        "status": row[f"{check_id}_status"],
        "reason": row[f"{check_id}_reason"],
        "detail": json.loads(detail) if detail else None,
        # as the run's snapshot listed them; `stale` as the verify answer has it, null here:
        # a run's history keeps the check catalogue, not the sources' cadences
        "sources": [
            {**source, "stale": source.get("stale")}
            for source in (json.loads(check["sources"]) if check["sources"] else [])
        ],
        "weight": check["weight"],
    }


def supplier_record(row: dict[str, Any], checks: list[dict[str, Any]]) -> dict[str, Any]:
    """One supplier of a run (CONTRACT.md, Ledgers, ``bvs ledger show``)."""
    verified = row["abn"] is not None
    return {
        "supplier_ref": row["supplier_ref"],
        "abn": row["abn"],
        "supplier_name": row["supplier_name"],
        "line": row["line"],
        "ledger_row": {k: row[k] for k in LEDGER_ROW_FIELDS},
        "resolution": row["resolution"],
        "review_reason": row["review_reason"],
        "user_supplied": json.loads(row["user_supplied"]) if row.get("user_supplied") else [],
        "candidates": json.loads(row["candidates"]) if row["candidates"] else [],
        "entity": row["entity"],
        "assurance_score": row["assurance_score"],
        "risk": {
            "score": row["risk_score"],
            "level": row["risk_level"],
            "flags": json.loads(row["flags"]) if verified and row["flags"] else [],
            "identity_failures": (
                json.loads(row["identity_failures"])
                if verified and row.get("identity_failures")
                else []
            ),
        },
        "checks": {c["check_id"]: _tile(row, c) for c in checks} if verified else {},
    }


def checks_of(run: store.Run) -> list[dict[str, Any]]:
    return list(json.loads(run.file("checks.json").read_text())["checks"])


def suppliers_query(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    run: store.Run,
    checks: list[dict[str, Any]],
    *,
    where: str = "true",
    params: list[Any] | None = None,
    tail: str = "",
) -> duckdb.DuckDBPyConnection:
    """A query of a run's suppliers, each with its tiles' evidence from the run's snapshot
    slice: ``where`` and ``tail`` (order, limit) are fixed SQL of the callers, values go in
    ``params``."""
    slice_name = run.summary.get("slice")
    evidence = (
        settings.ledgers_dir / run.customer / slice_name / "verifications" if slice_name else None
    )
    files = [str(run.file("suppliers.parquet"))]
    if evidence is not None and evidence.is_dir():
        details = ", ".join(
            f"d.{c['check_id']}_detail as snapshot_{c['check_id']}_detail" for c in checks
        )
        sql = (
            f"select s.*, {details} from read_parquet(?) s"
            " left join read_parquet(?) d on s.abn = d.abn"
        )
        files.append(str(evidence / "*.parquet"))
    else:  # a run recorded before slices were kept: its own file only
        sql = "select s.* from read_parquet(?) s"
    return con.execute(f"{sql} where {where} {tail}", [*files, *(params or [])])


def _run(settings: Settings, customer: str, ledger: str, run_date: dt.date | None) -> store.Run:
    if ledger not in store.ledger_names(settings, customer):
        raise LedgerNotFound(ledger)
    every = store.runs(settings, customer, ledger)
    runs = every
    if run_date is not None:
        runs = [r for r in every if r.run_date == run_date.isoformat()]
    if not runs:
        raise LedgerRunNotFound(ledger, run_date, [r.run_date for r in every])
    return runs[-1]


def run_summary(run: store.Run) -> dict[str, Any]:
    s = run.summary
    return {
        "run_id": run.run_id,
        "run_date": run.run_date,
        "suppliers": s["suppliers"],
        "by_resolution": s["by_resolution"],
        "by_risk_level": s["by_risk_level"],
        "changes": s["changes"],
        "alerts": s["alerts"],
        "snapshot_id": s["snapshot"]["snapshot_id"],
        "snapshot_as_of": s["snapshot"]["as_of"],
    }


def list_ledgers(settings: Settings, customer: str) -> dict[str, Any]:
    ledgers = []
    for name in store.ledger_names(settings, customer):
        latest = store.latest_run(settings, customer, name)
        ledgers.append({"ledger": name, "latest_run": run_summary(latest) if latest else None})
    return {"customer": customer, "ledgers": ledgers}


def ledger_page(
    settings: Settings,
    customer: str,
    ledger: str,
    *,
    resolution: str | None = None,
    risk_level: str | None = None,
    run_date: dt.date | None = None,
    order: str = "risk",
    limit: int = 100,
    offset: int = 0,
) -> dict[str, Any]:
    """One page of a run's suppliers, filtered by resolution and risk level, in ``order``
    (``ORDERS``: highest risk first, or the ledger's line order)."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; known: {', '.join(ORDERS)}")
    run = _run(settings, customer, ledger, run_date)
    where: list[str] = ["true"]
    params: list[Any] = []
    if resolution is not None:
        where.append("s.resolution = ?")
        params.append(resolution)
    if risk_level is not None:
        where.append("s.risk_level = ?")
        params.append(risk_level)
    checks = checks_of(run)
    con = duckdb.connect()
    try:
        total = con.execute(
            f"select count(*) from read_parquet(?) s where {' and '.join(where)}",
            [str(run.file("suppliers.parquet")), *params],
        ).fetchone()
        cursor = suppliers_query(
            con, settings, run, checks, where=" and ".join(where), params=[*params, limit, offset],
            tail=f"{ORDERS[order]} limit ? offset ?",
        )  # fmt: skip
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    finally:
        con.close()
    matched = int(total[0]) if total else 0
    return {
        "customer": customer,
        "ledger": ledger,
        "run": run_summary(run),
        "total": matched,
        "order": order,
        "offset": offset,
        "limit": limit,
        "next_offset": offset + len(rows) if offset + len(rows) < matched else None,
        "suppliers": [supplier_record(r, checks) for r in rows],
    }


def change_record(
    row: Mapping[str, Any], ledger: str, run_date: str, run_id: str
) -> dict[str, Any]:
    """One row of a run's changes.parquet as `bvs ledger changes` and the API show it."""
    return {
        "run_date": run_date,
        "run_id": run_id,
        "ledger": ledger,
        "supplier_ref": row["supplier_ref"],
        "abn": row["abn"],
        "kind": row["kind"],
        "subject": row["subject"],
        "before": row["before_value"],
        "after": row["after_value"],
        "alert": bool(row["is_alert"]),
    }


def ledger_changes(
    settings: Settings,
    customer: str,
    ledger: str,
    *,
    since: dt.date | None = None,
    limit: int = 100,
    offset: int = 0,
) -> dict[str, Any]:
    """The changes of the runs on or after ``since`` (all runs without it), oldest first."""
    if ledger not in store.ledger_names(settings, customer):
        raise LedgerNotFound(ledger)
    runs = [
        r for r in store.runs(settings, customer, ledger)
        if since is None or r.run_date >= since.isoformat()
    ]  # fmt: skip
    changes: list[dict[str, Any]] = []
    total = 0
    if runs:
        con = duckdb.connect()
        try:
            files = [str(r.file("changes.parquet")) for r in runs]
            source = "read_parquet(?, union_by_name = true)"
            found = con.execute(f"select count(*) from {source}", [files]).fetchone()
            total = int(found[0]) if found else 0
            cursor = con.execute(
                f"select * from {source} order by run_id, supplier_key, kind, subject"
                " limit ? offset ?",
                [files, limit, offset],
            )
            names = [d[0] for d in cursor.description]
            for values in cursor.fetchall():
                row = dict(zip(names, values, strict=True))
                changes.append(
                    change_record(row, ledger, row["run_date"].isoformat(), row["run_id"])
                )
        finally:
            con.close()
    return {
        "customer": customer,
        "ledger": ledger,
        "since": since.isoformat() if since else None,
        "total": total,
        "offset": offset,
        "limit": limit,
        "next_offset": offset + len(changes) if offset + len(changes) < total else None,
        "changes": changes,
    }
