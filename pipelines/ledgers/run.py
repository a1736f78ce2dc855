"""One night's re-verification of a customer's supplier ledgers, in three steps.

1. :func:`prepare_run` (Dagster asset ``raw/ledger__inputs``): read each landed ledger of the
   customer, resolve names, and write the run's inputs as Parquet behind views in schema
   ``raw``: the suppliers, the facts each ledger's previous run recorded, and the rows of the
   serving snapshot the run verifies against (its ABNs). A ledger whose inputs are those of
   its latest run (same file, same snapshot, same date) is not run again.
2. dbt builds the ledger models (``tag:ledger``, as of the run date): tiles with the ledger
   rules, scores, flags, the facts to compare and the changes since the previous run.
3. :func:`commit_runs` (``ledgers/history``): each ledger's run is written to the history
   (``pipelines.ledgers.store``), then its alerts are raised in the state database.

Each step can be killed and the run started again: the inputs are rewritten, dbt rebuilds,
a run is committed by one rename and its alerts are unique per change. So a run killed
half-way and run again ends as if it had run once, and running a night twice changes
nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.ledgers import store
from pipelines.ledgers.intake import LedgerError, ParsedLedger, check_customer_id, read_ledger
from pipelines.ledgers.resolve import NameResolution, resolve_names
from pipelines.ledgers.suppliers import RESOLUTIONS, names_to_resolve, supplier_rows
from pipelines.settings import Settings
from pipelines.warehouse.rawfiles import point_view
from pipelines.warehouse.snapshot import SnapshotInfo, current_snapshot

# The serving snapshot's marts a run reads, and the column that ties a row to an ABN (None:
# the whole table). Dagster's raw/ledger__inputs and dbt's source ledger_run list the same.
SNAPSHOT_SLICES: dict[str, str | None] = {
    "verifications": "abn",
    "entities": "abn",
    "entity_names": "abn",
    "risk_flags": "abn",
    "network_officeholders": "abn",
    "match_adverse": "abn",
    "match_gazette": "abn",
    "match_insolvency": "abn",
    "checks": None,
    "flags": None,
}
SUPPLIERS_TABLE = "raw.ledger__suppliers"
PREVIOUS_TABLE = "raw.ledger__previous_states"
STATE_COLUMNS = pa.schema(
    [
        ("customer", pa.string()),
        ("ledger", pa.string()),
        ("run_id", pa.string()),
        ("supplier_key", pa.string()),
        ("abn", pa.string()),
        ("kind", pa.string()),
        ("subject", pa.string()),
        ("value", pa.string()),
    ]
)
SUPPLIER_SCHEMA = {
    "customer": pl.String,
    "ledger": pl.String,
    "run_id": pl.String,
    "run_date": pl.Date,
    "snapshot_id": pl.String,
    "ledger_file": pl.String,
    "ledger_sha256": pl.String,
    "line": pl.Int64,
    "supplier_key": pl.String,
    "supplier_ref": pl.String,
    "abn": pl.String,
    "abn_given": pl.String,
    "supplier_name": pl.String,
    "domain": pl.String,
    "email": pl.String,
    "phone": pl.String,
    "state": pl.String,
    "postcode": pl.String,
    "annual_spend_aud": pl.Float64,
    "gst_charged": pl.Boolean,
    "resolution": pl.String,
    "review_reason": pl.String,
    "candidates": pl.String,
}
# The raw tables (views) a run writes, in the order Dagster lists them (keys raw/<table>).
INPUT_TABLES = (
    SUPPLIERS_TABLE.removeprefix("raw."),
    PREVIOUS_TABLE.removeprefix("raw."),
    *(f"ledger__snapshot_{mart}" for mart in SNAPSHOT_SLICES),
)
WORK_FOLDER = "_work"
BATCH_ROWS = 50_000


def snapshot_table(mart: str) -> str:
    return f"raw.ledger__snapshot_{mart}"


@dataclass
class PlannedRun:
    """One ledger to run tonight."""

    ledger: str
    run_id: str
    previous_run_id: str | None
    inputs: dict[str, str]
    ledger_file: str
    intake: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunPlan:
    customer: str
    run_date: str
    snapshot_id: str
    snapshot_as_of: str
    runs: list[PlannedRun] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # ledgers whose latest run stands
    failed: dict[str, str] = field(default_factory=dict)  # ledger -> why it could not run

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> RunPlan:
        data = json.loads(text)
        data["runs"] = [PlannedRun(**r) for r in data["runs"]]
        return cls(**data)


def work_dir(settings: Settings, customer: str) -> Path:
    return settings.ledgers_dir / WORK_FOLDER / customer


def plan_path(settings: Settings, customer: str) -> Path:
    return work_dir(settings, customer) / "plan.json"


def result_path(settings: Settings, customer: str) -> Path:
    """The summaries of the customer's last run (what ``bvs ledger run`` prints)."""
    return work_dir(settings, customer) / "result.json"


def require_snapshot(settings: Settings) -> SnapshotInfo:
    snapshot = current_snapshot(settings)
    if snapshot is None:
        raise LedgerError(
            "no serving snapshot is published yet: run `bvs run` before re-verifying ledgers"
        )
    return snapshot


# ------------------------------------------------------------------------------ resolution


def _resolutions(
    settings: Settings,
    snapshot: SnapshotInfo,
    parsed: ParsedLedger,
    previous: store.Run | None,
) -> dict[str, NameResolution]:
    """Names found once stay found for that ledger file: a supplier resolved by name keeps
    its ABN until the customer sends a new file (the run before it is read back); names
    that could not be resolved are searched again whenever the snapshot changes."""
    names = names_to_resolve(parsed)
    if not names:
        return {}
    known: dict[str, NameResolution] = {}
    if (
        previous is not None
        and previous.summary.get("inputs", {}).get("ledger_sha256") == parsed.sha256
    ):
        same_snapshot = previous.summary["inputs"].get("snapshot_id") == snapshot.snapshot_id
        table = pq.read_table(
            previous.file("suppliers.parquet"),
            columns=["supplier_name", "abn", "abn_given", "resolution", "candidates"],
        )
        for row in table.to_pylist():
            name = row["supplier_name"]
            if (
                name is None
                or row["abn_given"] is not None
                and row["resolution"] != "resolved_by_name"
            ):
                continue
            candidates = json.loads(row["candidates"]) if row["candidates"] else []
            if row["resolution"] == "resolved_by_name" and row["abn"]:
                known[name] = NameResolution(name, row["abn"], 1, candidates)
            elif same_snapshot and row["abn"] is None and row["abn_given"] is None:
                matches = sum(1 for c in candidates if c.get("score", 0) >= 0.9)
                known[name] = NameResolution(name, None, matches, candidates)
    wanted = [name for name in names if name not in known]
    if wanted:
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            known.update(resolve_names(con, wanted))
        finally:
            con.close()
    return {name: known[name] for name in names}


# ---------------------------------------------------------------------------------- inputs


def _write_parquet(frame: pl.DataFrame, path: Path) -> None:
    frame.write_parquet(path, compression="zstd")


def _empty_states(path: Path) -> None:
    pq.write_table(STATE_COLUMNS.empty_table(), path)


def prepare_run(
    settings: Settings,
    con: duckdb.DuckDBPyConnection,
    customer: str,
    run_date: dt.date,
) -> RunPlan:
    """Step 1 (module notes): the run's inputs, and the plan of which ledgers run."""
    check_customer_id(customer)
    snapshot = require_snapshot(settings)
    plan = RunPlan(
        customer=customer,
        run_date=run_date.isoformat(),
        snapshot_id=snapshot.snapshot_id,
        snapshot_as_of=snapshot.as_of.isoformat(),
    )
    work = work_dir(settings, customer)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)

    frames: list[pl.DataFrame] = []
    previous_states: list[Path] = []
    try:
        landed = store.landed_ledgers(settings, customer)
    except LedgerError as exc:
        raise LedgerError(f"customer {customer}: {exc}") from exc
    for ledger in landed:
        latest = store.latest_run(settings, customer, ledger.ledger)
        try:
            parsed = read_ledger(ledger.path)
            inputs = {
                "snapshot_id": snapshot.snapshot_id,
                "ledger_sha256": parsed.sha256,
                "as_of": run_date.isoformat(),
            }
            if latest is not None and latest.summary.get("inputs") == inputs:
                plan.unchanged.append(ledger.ledger)
                continue
            run_id = store.next_run_id(latest, run_date.isoformat())
            resolutions = _resolutions(settings, snapshot, parsed, latest)
        except LedgerError as exc:
            plan.failed[ledger.ledger] = str(exc)
            continue
        rows = supplier_rows(parsed, resolutions).with_columns(
            customer=pl.lit(customer),
            ledger=pl.lit(ledger.ledger),
            run_id=pl.lit(run_id),
            run_date=pl.lit(run_date),
            snapshot_id=pl.lit(snapshot.snapshot_id),
            ledger_file=pl.lit(ledger.path.name),
            ledger_sha256=pl.lit(parsed.sha256),
        )
        frames.append(rows.select(list(SUPPLIER_SCHEMA)))
        plan.runs.append(
            PlannedRun(
                ledger=ledger.ledger,
                run_id=run_id,
                previous_run_id=latest.run_id if latest else None,
                inputs=inputs,
                ledger_file=str(ledger.path),
                intake={
                    "rows": rows.height,
                    "ignored": parsed.ignored,
                    "blank_lines": parsed.blank_lines,
                    "encoding": parsed.encoding,
                },
            )
        )
        if latest is not None:
            previous_states.append(latest.file("states.parquet"))

    suppliers = (
        pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=SUPPLIER_SCHEMA)
    )
    suppliers_dir = work / "suppliers"
    suppliers_dir.mkdir()
    _write_parquet(suppliers, suppliers_dir / "part-0.parquet")

    previous_dir = work / "previous_states"
    previous_dir.mkdir()
    _empty_states(previous_dir / "part-empty.parquet")
    for i, path in enumerate(previous_states):
        shutil.copyfile(path, previous_dir / f"part-{i}.parquet")

    _slice_snapshot(snapshot, suppliers_dir / "part-0.parquet", work)

    con.execute("create schema if not exists raw")
    con.execute("begin")
    try:
        point_view(con, SUPPLIERS_TABLE, suppliers_dir)
        point_view(con, PREVIOUS_TABLE, previous_dir)
        for mart in SNAPSHOT_SLICES:
            point_view(con, snapshot_table(mart), work / f"snapshot_{mart}")
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    plan_path(settings, customer).write_text(plan.to_json())
    return plan


def _slice_snapshot(snapshot: SnapshotInfo, suppliers: Path, work: Path) -> None:
    """The snapshot's rows of the run's ABNs, one folder of Parquet per mart."""
    con = duckdb.connect()
    try:
        con.execute("attach ? as snap (read_only)", [str(snapshot.path)])
        present = {
            row[0]
            for row in con.execute(
                "select table_name from duckdb_tables() where database_name = 'snap'"
                " and schema_name = 'marts'"
            ).fetchall()
        }
        missing = [mart for mart in SNAPSHOT_SLICES if mart not in present]
        if missing:
            raise LedgerError(
                f"the serving snapshot {snapshot.snapshot_id} has no {', '.join(missing)}:"
                " it was published by an older version; run `bvs run` to publish a new one"
            )
        con.execute(
            "create temp table run_abns as select distinct abn from read_parquet(?)"
            " where abn is not null",
            [str(suppliers)],
        )
        for mart, key in SNAPSHOT_SLICES.items():
            folder = work / f"snapshot_{mart}"
            folder.mkdir()
            target = str(folder / "part-0.parquet").replace("'", "''")
            # mart and key come from SNAPSHOT_SLICES, never from input
            where = f" where {key} in (select abn from run_abns)" if key else ""
            con.execute(
                f"copy (select * from snap.marts.{mart}{where}) to '{target}'"
                " (format parquet, compression zstd)"
            )
    finally:
        con.close()


# ---------------------------------------------------------------------------------- commit


# The order each history file is written in (fixed column names).
_ORDER = {
    "ledger_verifications": "line",
    "ledger_supplier_states": "supplier_key, kind, subject",
    "ledger_changes": "supplier_key, kind, subject",
}


def _copy_rows(
    con: duckdb.DuckDBPyConnection, table: str, customer: str, ledger: str, path: Path
) -> int:
    """One ledger's rows of a ``ledgers`` table to Parquet, streamed in batches."""
    cursor = con.cursor()
    try:
        reader = cursor.sql(
            f"select * from ledgers.{table} where customer = $customer and ledger = $ledger"
            f" order by {_ORDER[table]}",
            params={"customer": customer, "ledger": ledger},  # table: a fixed name
        ).to_arrow_reader(BATCH_ROWS)
        rows = 0
        with pq.ParquetWriter(path, reader.schema, compression="zstd") as writer:
            for batch in reader:
                writer.write_batch(batch)
                rows += batch.num_rows
        return rows
    finally:
        cursor.close()


def _grouped(
    con: duckdb.DuckDBPyConnection, column: str, customer: str, ledger: str
) -> dict[str, int]:
    rows = con.execute(
        f"select {column}, count(*) from ledgers.ledger_verifications"  # fixed column names
        " where customer = ? and ledger = ? group by 1",
        [customer, ledger],
    ).fetchall()
    return {str(k): int(n) for k, n in rows if k is not None}


def commit_runs(
    settings: Settings, con: duckdb.DuckDBPyConnection, plan: RunPlan
) -> list[dict[str, Any]]:
    """Step 3 (module notes): record each planned run, then raise its alerts. Returns one
    summary per ledger of the customer (runs recorded now, and the latest run of ledgers
    that did not need one)."""
    from pipelines.state.db import state_store
    from pipelines.state.ledgers import raise_alerts

    summaries: list[dict[str, Any]] = []
    checks = [
        dict(zip(("check_id", "weight", "sources"), row, strict=True))
        for row in con.execute(
            "select check_id, weight, sources from raw.ledger__snapshot_checks order by check_id"
        ).fetchall()
    ]
    flag_catalogue = [
        dict(zip(("flag_id", "severity", "severity_rank"), row, strict=True))
        for row in con.execute(
            "select flag_id, severity, severity_rank from raw.ledger__snapshot_flags"
        ).fetchall()
    ]
    recorded: list[store.Run] = []
    for planned in plan.runs:
        done = {r.run_id: r for r in store.runs(settings, plan.customer, planned.ledger)}
        if planned.run_id in done:  # committed by an earlier attempt of this step
            recorded.append(done[planned.run_id])
            continue

        def write(folder: Path, planned: PlannedRun = planned) -> dict[str, Any]:
            suppliers = _copy_rows(
                con,
                "ledger_verifications",
                plan.customer,
                planned.ledger,
                folder / "suppliers.parquet",
            )
            _copy_rows(
                con,
                "ledger_supplier_states",
                plan.customer,
                planned.ledger,
                folder / "states.parquet",
            )
            changes = _copy_rows(
                con, "ledger_changes", plan.customer, planned.ledger, folder / "changes.parquet"
            )
            (folder / "checks.json").write_text(
                json.dumps({"checks": checks, "flags": flag_catalogue}, indent=1, default=str)
            )
            alerts = con.execute(
                "select count(*) from ledgers.ledger_changes where customer = ? and ledger = ?"
                " and is_alert",
                [plan.customer, planned.ledger],
            ).fetchone()
            return {
                "customer": plan.customer,
                "ledger": planned.ledger,
                "run_id": planned.run_id,
                "run_date": plan.run_date,
                "previous_run_id": planned.previous_run_id,
                "suppliers": suppliers,
                "by_resolution": {
                    r: _grouped(con, "resolution", plan.customer, planned.ledger).get(r, 0)
                    for r in RESOLUTIONS
                },
                "by_risk_level": _grouped(con, "risk_level", plan.customer, planned.ledger),
                "changes": changes,
                "alerts": int(alerts[0]) if alerts else 0,
                "inputs": planned.inputs,
                "snapshot": {"snapshot_id": plan.snapshot_id, "as_of": plan.snapshot_as_of},
                "ledger_file": Path(planned.ledger_file).name,
                "intake": planned.intake,
                "recorded_at": dt.datetime.now(dt.UTC).isoformat(),
            }

        ledger_path = Path(planned.ledger_file)
        if ledger_path.exists():
            store.archive_file(
                settings,
                plan.customer,
                planned.ledger,
                ledger_path,
                planned.inputs["ledger_sha256"],
            )
        recorded.append(
            store.commit_run(settings, plan.customer, planned.ledger, planned.run_id, write)
        )

    latest = [
        run
        for name in plan.unchanged
        if (run := store.latest_run(settings, plan.customer, name)) is not None
    ]
    with state_store(settings) as engine:
        for run in [*recorded, *latest]:
            raise_alerts(engine, run)
            summaries.append({**run.summary, "recorded": run in recorded})
    return summaries


def run_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The line ``bvs ledger run`` prints per ledger (CONTRACT.md, Ledgers)."""
    return {
        "customer": summary["customer"],
        "ledger": summary["ledger"],
        "run_date": summary["run_date"],
        "run_id": summary["run_id"],
        "suppliers": summary["suppliers"],
        "by_resolution": summary["by_resolution"],
        "by_risk_level": summary["by_risk_level"],
        "changes": summary["changes"],
        "alerts": summary["alerts"],
        "snapshot_id": summary["snapshot"]["snapshot_id"],
        "recorded": summary.get("recorded", True),
    }


def failed_ledgers(plan: RunPlan) -> Sequence[str]:
    return [f"{ledger}: {why}" for ledger, why in sorted(plan.failed.items())]
