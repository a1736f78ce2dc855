"""What is loaded, what is published, what is stale: for ``bvs status`` and run summaries.

``render_status`` is ``bvs status``: every source and mart. The screen after a run gets the
short form: ``short_status_lines`` (one line for the sources, a line more per source that
failed, was never loaded or is stale; the headline marts; the serving snapshot) and
``ledger_line``, one ``bvs ledger run`` summary (its JSON line) in words.
``python -m pipelines.status ledgers`` reads ``bvs ledger run``'s output on stdin and puts
each summary in words (`make run`: the JSON goes to a log).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Iterable
from typing import Any

import duckdb

from pipelines.ingest.sources import SOURCES
from pipelines.serving.freshness import is_stale
from pipelines.settings import Settings, today_in_brisbane
from pipelines.warehouse.quality import dq_report
from pipelines.warehouse.snapshot import current_snapshot


def collect_status(settings: Settings, *, today: dt.date | None = None) -> dict[str, Any]:
    today = today or today_in_brisbane()
    status: dict[str, Any] = {
        "warehouse": str(settings.warehouse),
        "warehouse_state": "ok",
        "sources": [],
        "marts": {},
        "snapshot": None,
        "stale": [],
        # where the sources' state was read: the warehouse, or (while a run holds it) the
        # current serving snapshot, what the last run published
        "state_from": "warehouse",
        "run_in_progress": None,
    }
    latest: dict[str, dict[str, Any]] = {}
    attempts: dict[str, dict[str, Any]] = {}
    from pipelines.warehouse.lock import describe, holder, warehouse_busy

    # A run holds the writer lock: the warehouse is not opened (a reader, even read-only,
    # keeps the run from opening it for writing); what the run last published is shown.
    writer = holder(settings)
    if writer is not None:
        status["warehouse_state"] = f"busy: being written by {describe(writer)}"
        status["run_in_progress"] = {
            "command": writer.get("command"),
            "pid": writer.get("pid"),
            "since": writer.get("since"),
            "step": writer.get("step"),
        }
        latest, attempts = _published(settings, status)
    elif not settings.warehouse.exists():
        status["warehouse_state"] = "not built yet (run `bvs run`)"
    else:
        try:
            con = duckdb.connect(str(settings.warehouse), read_only=True)
        except duckdb.Error as exc:  # another process has it open read-write
            busy = warehouse_busy(settings, exc)
            status["warehouse_state"] = f"busy: {busy or exc}"
            latest, attempts = _published(settings, status)
        else:
            with con:
                latest, attempts = _loads(con)
                status["marts"] = _mart_counts(con)

    for name, source in SOURCES.items():
        loaded = latest.get(name)
        attempt = attempts.get(name)
        never = "never loaded" if status["state_from"] != "none" else "unknown (run in progress)"
        entry: dict[str, Any] = {
            "source": name,
            "status": "loaded" if loaded else never,
            "extract_date": loaded["extract_date"] if loaded else None,
            "loaded_at": loaded["finished_at"] if loaded else None,
            "rows": loaded["rows"] if loaded else {},
            "quarantined": loaded["quarantined"] if loaded else 0,
            "last_attempt": attempt["status"] if attempt else None,
            "last_message": attempt["message"] if attempt else None,
            "last_load_id": attempt["load_id"] if attempt else None,
            # the data-quality report of the last attempt (meta.dq_results)
            "checks": attempt["checks"] if attempt else [],
            "stale": False,
        }
        if attempt and attempt["status"] == "failed":
            entry["status"] = "failed (previous data kept)" if loaded else "failed"
        reference = entry["extract_date"]
        if is_stale(reference, source.refresh_days, today):
            entry["stale"] = True
            status["stale"].append(
                f"{name}: extract of {reference} is {(today - reference).days} days old "
                f"(refreshes every {source.refresh_days} days)"
            )
        elif loaded is None and status["state_from"] != "none":
            status["stale"].append(f"{name}: never loaded")
        status["sources"].append(entry)

    snapshot = current_snapshot(settings)
    if snapshot is not None:
        built = snapshot.built_at
        status["snapshot"] = {
            "snapshot_id": snapshot.snapshot_id,
            "path": str(snapshot.path),
            "as_of": snapshot.as_of,
            "built_at": built,
            "age_hours": round((dt.datetime.now(dt.UTC) - built).total_seconds() / 3600, 1),
            "tables": snapshot.tables,
        }
    return status


def _published(
    settings: Settings, status: dict[str, Any]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The sources and marts as the current serving snapshot has them (``meta.sources``,
    ``meta.source_failures``, its tables' row counts), for ``bvs status`` while a run holds
    the warehouse. Row counts per raw table and data-quality checks are the warehouse's
    alone: not shown meanwhile."""
    snapshot = current_snapshot(settings)
    if snapshot is None:
        status["state_from"] = "none"
        return {}, {}
    status["state_from"] = f"snapshot {snapshot.snapshot_id}"
    status["marts"] = {
        **{t: n for t, n in snapshot.tables.items() if t.startswith("marts.")},
        **{v: None for v in snapshot.views if v.startswith("marts.")},
    }
    status["marts"] = dict(sorted(status["marts"].items()))
    latest: dict[str, dict[str, Any]] = {}
    attempts: dict[str, dict[str, Any]] = {}
    try:
        con = duckdb.connect(str(snapshot.path), read_only=True)
    except duckdb.Error:  # retention removed it meanwhile: the next status reads the new one
        return latest, attempts
    with con:
        try:
            loads = con.execute(
                "select distinct load_id, source, extract_date, finished_at from meta.sources"
            ).fetchall()
            failures = con.execute(
                "select source, load_id, message from meta.source_failures"
            ).fetchall()
        except duckdb.Error:  # a snapshot without the metadata tables: nothing to say
            return latest, attempts
        for load_id, source, extract_date, finished_at in loads:
            latest[source] = {
                "load_id": load_id,
                "extract_date": extract_date,
                "finished_at": finished_at,
                "rows": {},
                "quarantined": 0,
            }
            attempts[source] = {
                "load_id": load_id,
                "status": "loaded",
                "message": None,
                "checks": [],
            }
        for source, load_id, message in failures:
            attempts[source] = {
                "load_id": load_id,
                "status": "failed",
                "message": message,
                "checks": [],
            }
    return latest, attempts


def _loads(
    con: duckdb.DuckDBPyConnection,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    has_meta = con.execute(
        "select count(*) from information_schema.tables where table_schema = 'meta' and table_name = 'loads'"
    ).fetchone()
    if not has_meta or not has_meta[0]:
        return {}, {}
    latest = {}
    for load_id, source, extract_date, finished_at, rows, quarantined in con.execute(
        """
        select load_id, source, extract_date, finished_at, row_counts, quarantined
        from meta.loads where status = 'loaded'
        qualify row_number() over (partition by source order by finished_at desc) = 1
        """
    ).fetchall():
        latest[source] = {
            "load_id": load_id,
            "extract_date": extract_date,
            "finished_at": finished_at,
            "rows": json.loads(rows or "{}"),
            "quarantined": quarantined or 0,
        }
    attempts = {}
    for load_id, source, status, message in con.execute(
        """
        select load_id, source, status, message from meta.loads
        qualify row_number() over (partition by source order by started_at desc) = 1
        """
    ).fetchall():
        if status == "unchanged" and source in latest:
            # the refused files are gone: the checks are those of the files back in place
            load_id = latest[source]["load_id"]
        checks = [
            {k: row[k] for k in ("table_name", "check_name", "passed", "observed", "expected")}
            for row in dq_report(con, load_id)
        ]
        attempts[source] = {
            "load_id": load_id,
            "status": status,
            "message": message,
            "checks": checks,
        }
    return latest, attempts


def _mart_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int | None]:
    """Rows of each mart table; None for a view, which is not counted: counting one runs its
    query (``marts.tiles``, the long form of ``verifications``, is 72 million rows at 2
    million ABNs: 12 s and 9.6 GB before every ``bvs run`` summary)."""
    tables = con.execute(
        "select table_name, table_type from information_schema.tables"
        " where table_schema = 'marts' order by 1"
    ).fetchall()
    counts: dict[str, int | None] = {}
    for table, kind in tables:
        if kind == "VIEW":
            counts[f"marts.{table}"] = None
            continue
        row = con.execute(f'select count(*) from marts."{table}"').fetchone()
        counts[f"marts.{table}"] = int(row[0]) if row else 0
    return counts


def mart_rows(rows: int | None) -> str:
    """A mart's rows as ``bvs status`` prints them."""
    return "view" if rows is None else f"{rows:,} rows"


def render_status(status: dict[str, Any]) -> str:
    lines = [f"warehouse: {status['warehouse']} ({status['warehouse_state']})"]
    run = status.get("run_in_progress")
    if run is not None or status["state_from"] != "warehouse":
        shown = (
            f"showing the last published state ({status['state_from']})"
            if status["state_from"] != "none"
            else "nothing is published yet: the sources show once it is"
        )
        if run is not None:
            since = f" since {run['since']}" if run.get("since") else ""
            lines.append(f"run in progress{since}: {run['command']} (PID {run['pid']}); {shown}")
        else:
            lines.append(f"the warehouse is open in another process; {shown}")
    lines.append("sources:")
    for s in status["sources"]:
        rows = ", ".join(f"{t} {n:,}" for t, n in s["rows"].items()) or "-"
        flag = "  STALE" if s["stale"] else ""
        lines.append(
            f"  {s['source']:<22} {s['status']:<28} extract {str(s['extract_date'] or '-'):<10}"
            f"  rows {rows}  quarantined {s['quarantined']:,}{flag}"
        )
        if s["last_attempt"] == "failed":
            lines.append(f"      last attempt failed: {s['last_message']}")
        passed = sum(1 for c in s["checks"] if c["passed"])
        if s["checks"]:
            lines.append(
                f"      data quality ({s['last_load_id']}): {passed}/{len(s['checks'])} checks passed"
            )
        for check in s["checks"]:
            if not check["passed"]:
                lines.append(
                    f"        FAILED {check['table_name']}.{check['check_name']}: "
                    f"{check['observed']} (expected {check['expected']})"
                )
    if status["marts"]:
        lines.append("marts:")
        lines += [f"  {t:<30} {mart_rows(n)}" for t, n in status["marts"].items()]
    snap = status["snapshot"]
    if snap:
        lines.append(
            f"serving snapshot: {snap['snapshot_id']} as of {snap['as_of']}, "
            f"built {snap['age_hours']} h ago\n  {snap['path']}"
        )
    else:
        lines.append("serving snapshot: none published yet")
    lines.append("stale: " + ("none" if not status["stale"] else ""))
    lines += [f"  {item}" for item in status["stale"]]
    return "\n".join(lines)


# the marts a newcomer looks at first; `bvs status` lists every one
HEADLINE_MARTS = (
    "marts.entities",
    "marts.verifications",
    "marts.risk_flags",
    "marts.phoenix_links",
)


def short_status_lines(status: dict[str, Any], *, published: bool) -> list[str]:
    """The run's outcome in at most about a dozen lines (more only for sources in trouble)."""
    sources = status["sources"]
    loaded = [s for s in sources if s["status"] == "loaded"]
    extracts = sorted(str(s["extract_date"]) for s in loaded if s["extract_date"])
    span = f", extracts {extracts[0]} to {extracts[-1]}" if extracts else ""
    if extracts and extracts[0] == extracts[-1]:
        span = f", extracts of {extracts[0]}"
    quarantined = sum(s["quarantined"] for s in sources)
    lines = [
        f"warehouse: {status['warehouse']}",
        f"  sources: {len(loaded)} of {len(sources)} loaded{span};"
        f" {quarantined:,} rows quarantined (bvs status: each source)",
    ]
    for s in sources:
        if s["status"] != "loaded" or s["stale"]:
            why = s["status"] + (", STALE" if s["stale"] else "")
            lines.append(f"    {s['source']}: {why}")
    marts = status["marts"]
    if marts:
        matches = sum(n or 0 for t, n in marts.items() if t.startswith("marts.match_"))
        shown = [f"{t.removeprefix('marts.')} {marts[t]:,}" for t in HEADLINE_MARTS if marts.get(t) is not None]  # fmt: skip
        lines.append(f"  marts: {len(marts)} tables; " + ", ".join(shown))
        lines.append(f"  register matches: {matches:,} rows")
    snapshot = status["snapshot"]
    if snapshot:
        state = "published" if published else "current, not republished by this run"
        lines.append(f"serving snapshot ({state}): {snapshot['snapshot_id']}, as of {snapshot['as_of']}")  # fmt: skip
        lines.append(f"  {snapshot['path']}")
    else:
        lines.append("serving snapshot: none published yet")
    return lines


def ledger_line(summary: dict[str, Any]) -> str:
    """One ``bvs ledger run`` summary in words."""
    resolution = summary.get("by_resolution", {})
    risk = summary.get("by_risk_level", {})
    review = resolution.get("needs_review", 0)
    risks = ", ".join(f"{level} {n:,}" for level, n in risk.items())
    return (
        f"  {summary.get('customer')}/{summary.get('ledger')}: {summary.get('suppliers', 0):,} suppliers,"
        f" {resolution.get('verified', 0):,} verified, {review:,} to review; risk {risks or '-'};"
        f" {summary.get('changes', 0):,} changes, {summary.get('alerts', 0):,} alerts"
    )


def ledger_lines(lines: Iterable[str]) -> Iterable[str]:
    """``bvs ledger run``'s output with each JSON summary line put in words."""
    for line in lines:
        text = line.rstrip("\n")
        try:
            summary = json.loads(text)
        except ValueError:
            summary = None
        yield ledger_line(summary) if isinstance(summary, dict) and "suppliers" in summary else text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["ledgers"]:
        print("usage: python -m pipelines.status ledgers < bvs-ledger-run-output", file=sys.stderr)
        return 2
    for line in ledger_lines(sys.stdin):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
