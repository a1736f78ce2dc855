"""What ``bvs ledger import | run | show | changes`` do (CONTRACT.md, Ledgers), as functions.

``bvs ledger run`` (:func:`run`) decides which customers need a run and materialises the
Dagster ledger job's partition of each (``pipelines.materialize``), so a run from the command
line and one from the schedule are the same run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from pipelines.ledgers import store
from pipelines.ledgers.intake import (
    LedgerError,
    check_customer_id,
    check_ledger_name,
    read_ledger,
)
from pipelines.ledgers.resolve import resolve_acns, resolve_names
from pipelines.ledgers.suppliers import (
    acns_to_resolve,
    intake_summary,
    names_to_resolve,
    supplier_rows,
)
from pipelines.materialize import Output
from pipelines.serving.ledgers import change_record, checks_of, supplier_record, suppliers_query
from pipelines.settings import Settings, today_in_brisbane
from pipelines.warehouse.snapshot import current_snapshot

# ----------------------------------------------------------------------------------- import


def import_ledger(
    settings: Settings, file: Path, customer: str, name: str | None = None
) -> dict[str, Any]:
    """Validate ``file`` and land it as ledger ``name`` of ``customer`` (atomically: the
    previous file stays until the new one is complete, and is kept in ``replaced/``).
    Names without an ABN are resolved against the current snapshot, if there is one.
    Raises LedgerError (the file named) when the file cannot be read at all."""
    check_customer_id(customer)
    file = Path(file)
    ledger = check_ledger_name(name or file.stem)
    parsed = read_ledger(file)
    snapshot = current_snapshot(settings)
    resolutions = None
    acn_matches = None
    names = names_to_resolve(parsed)
    if snapshot is not None:
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            resolutions = resolve_names(con, names)
            acn_matches = resolve_acns(con, acns_to_resolve(parsed))
        finally:
            con.close()
    rows = supplier_rows(parsed, resolutions, acn_matches)
    landed, replaced = _land(settings, file, customer, ledger)
    return {
        **intake_summary(customer, ledger, parsed, rows),
        "file": str(landed),
        "replaced": str(replaced) if replaced else None,
        "snapshot_id": snapshot.snapshot_id if snapshot else None,
    }


# the rows needing review and the ignored rows `bvs ledger import` prints (the rest are in
# the details file it names): a 50,000-row file's full list was one 3 MB line
PRINTED_PROBLEMS = 5


def import_summary(
    settings: Settings, file: Path, customer: str, name: str | None = None
) -> dict[str, Any]:
    """``bvs ledger import``: :func:`import_ledger`, with everything it found written to a
    details file (``store.import_details_path``, JSON) and a summary returned: the counts
    of CONTRACT.md, the first rows needing review and ignored rows, how many there are in
    all (``needs_review_count``, ``ignored_count``) and the file (``details``)."""
    found = import_ledger(settings, file, customer, name)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    details = store.import_details_path(settings, customer, found["ledger"], stamp)
    details.parent.mkdir(parents=True, exist_ok=True)
    tmp = details.with_name(f".{details.name}.tmp-{secrets.token_hex(4)}")
    tmp.write_text(json.dumps(found, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, details)
    summary: dict[str, Any] = {}
    for key, value in found.items():
        if key in ("needs_review", "ignored"):
            summary[key] = value[:PRINTED_PROBLEMS]
            summary[f"{key}_count"] = len(value)
        else:
            summary[key] = value
    summary["details"] = str(details)
    return summary


def _land(settings: Settings, file: Path, customer: str, ledger: str) -> tuple[Path, Path | None]:
    folder = store.customer_landing(settings, customer)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{ledger}{file.suffix.lower()}"
    tmp = folder / f".{ledger}.tmp-{secrets.token_hex(4)}"
    shutil.copyfile(file, tmp)
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    replaced: Path | None = None
    previous = [folder / f"{ledger}{ext}" for ext in store.EXTENSIONS]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    for old in previous:
        if old.exists():
            keep = folder / store.REPLACED_FOLDER
            keep.mkdir(exist_ok=True)
            replaced = keep / f"{ledger}.{stamp}{old.suffix}"
            shutil.copy2(old, replaced)
    os.replace(tmp, target)
    for old in previous:
        if old != target and old.exists():
            old.unlink()  # the same ledger sent as .xlsx after .csv (kept in replaced/)
    return target, replaced


# -------------------------------------------------------------------------------------- run


def run(
    settings: Settings,
    customer: str | None,
    as_of: dt.date | None,
    output: Output,
    emit: Callable[[dict[str, Any]], None],
) -> int:
    """``bvs ledger run``: re-verify every landed ledger of ``customer`` (default: of every
    customer) as of ``as_of`` (default: today in Brisbane); ``emit`` one summary per ledger
    (CONTRACT.md). A customer whose ledgers already ran on tonight's inputs is not run again
    (its latest summaries are emitted, ``"recorded": false``). Returns the exit code (1: a
    customer's run failed). Raises LedgerError for what cannot be run as asked, WarehouseBusy
    when another process holds the warehouse."""
    from pipelines.ledgers.run import run_summary, up_to_date
    from pipelines.materialize import materialize_ledgers

    today = today_in_brisbane()
    as_of = as_of or today
    if as_of > today:
        raise LedgerError(f"the run date {as_of} is after today ({today} in Brisbane)")
    if customer:
        customers = [check_customer_id(customer)]
        if not store.landed_ledgers(settings, customer):
            raise LedgerError(f"customer {customer} has no ledger landed")
    else:
        customers = store.customers_with_ledgers(settings)
    if not customers:
        raise LedgerError(f"no ledger is landed under {store.landing_root(settings)}")
    pending = []
    for name in customers:
        if (latest := up_to_date(settings, name, as_of)) is not None:
            # every ledger already ran on tonight's inputs: nothing to record, no run started
            for done in latest:
                emit(run_summary({**done.summary, "recorded": False}))
        else:
            pending.append(name)
    if not pending:
        return 0
    failed = materialize_ledgers(
        settings, pending, as_of, output, lambda summary: emit(run_summary(summary))
    )
    return 1 if failed else 0


# ------------------------------------------------------------------------------------- show


def _pick_ledgers(settings: Settings, customer: str, ledger: str | None) -> list[str]:
    check_customer_id(customer)
    names = store.ledger_names(settings, customer)
    if ledger is not None:
        if ledger not in names:
            raise LedgerError(f"customer {customer} has no ledger {ledger!r}")
        return [ledger]
    if not names:
        raise LedgerError(f"customer {customer} has no ledger")
    return names


def _run_on(settings: Settings, customer: str, ledger: str, run_date: dt.date | None) -> store.Run:
    found = store.runs(settings, customer, ledger)
    if run_date is not None:
        found = [r for r in found if r.run_date == run_date.isoformat()]
    if not found:
        when = f" on {run_date}" if run_date else ""
        raise LedgerError(f"ledger {ledger!r} of {customer} has no run{when} (bvs ledger run)")
    return found[-1]


def show(
    settings: Settings, customer: str, ledger: str | None = None, run_date: dt.date | None = None
) -> Iterator[str]:
    """``bvs ledger show``: the JSON text of one run of one ledger, in pieces (a ledger of a
    hundred thousand suppliers is streamed, not built in memory)."""
    names = _pick_ledgers(settings, customer, ledger)
    if len(names) > 1:
        raise LedgerError(
            f"customer {customer} has {len(names)} ledgers ({', '.join(names)}): give --ledger"
        )
    run = _run_on(settings, customer, names[0], run_date)
    checks = checks_of(run)
    head = {
        "customer": customer,
        "ledger": run.ledger,
        "run_date": run.run_date,
        "run_id": run.run_id,
        "snapshot_id": run.summary["snapshot"]["snapshot_id"],
    }
    yield json.dumps(head)[:-1] + ', "suppliers": ['
    first = True
    con = duckdb.connect()
    try:
        cursor = suppliers_query(con, settings, run, checks, tail="order by s.line")
        names = [d[0] for d in cursor.description]
        while batch := cursor.fetchmany(5_000):
            for values in batch:
                record = supplier_record(dict(zip(names, values, strict=True)), checks)
                text = json.dumps(record, default=str)
                yield text if first else "," + text
                first = False
    finally:
        con.close()
    yield "]}"


def changes(
    settings: Settings,
    customer: str,
    ledger: str | None = None,
    since: dt.date | None = None,
) -> Iterator[dict[str, Any]]:
    """``bvs ledger changes``: every change of the runs on or after ``since``, oldest run
    first."""
    for name in _pick_ledgers(settings, customer, ledger):
        for run in store.runs(settings, customer, name):
            if since is not None and run.run_date < since.isoformat():
                continue
            table = pq.read_table(run.file("changes.parquet")).sort_by(
                [("supplier_key", "ascending"), ("kind", "ascending"), ("subject", "ascending")]
            )
            for row in table.to_pylist():
                yield {
                    **change_record(row, name, run.run_date, run.run_id),
                    "supplier_key": row["supplier_key"],
                }
