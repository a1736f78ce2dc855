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
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.ledgers import overrides, store
from pipelines.ledgers.intake import LedgerError, ParsedLedger, check_customer_id
from pipelines.ledgers.resolve import NameResolution, resolve_acns, resolve_names
from pipelines.ledgers.suppliers import (
    RESOLUTIONS,
    acns_to_resolve,
    names_to_resolve,
    supplier_rows,
)
from pipelines.settings import Settings
from pipelines.warehouse.rawfiles import point_view
from pipelines.warehouse.snapshot import SnapshotInfo, current_snapshot

# The serving snapshot's marts a run reads, and the column that ties a row to an ABN (None:
# the whole table). Dagster's raw/ledger__inputs and dbt's source ledger_run list the same.
# A mart listed in SLICE_COLUMNS is read for those columns only (scanning 20 million rows of
# every column of `entities` costs several times more).
SLICE_COLUMNS: dict[str, tuple[str, ...]] = {
    "entities": (
        "abn", "legal_name", "entity_type_code", "is_individual", "abn_status",
        "abn_status_from_date", "gst_status", "gst_status_from_date", "state", "postcode",
        "acn", "asic_company_status",
    ),
    "entity_names": ("abn", "name", "name_normalised", "name_kind", "bn_status"),
}  # fmt: skip
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
STATE_COLUMNS = {
    name: pl.String
    for name in ("customer", "ledger", "run_id", "supplier_key", "abn", "kind", "subject", "value")
}
SUPPLIER_SCHEMA = {
    "supplier_id": pl.Int64,  # the row's number in the run: the ledger models' join key
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
    "user_supplied": pl.String,
}
# The raw tables (views) a run writes, in the order Dagster lists them (keys raw/<table>).
INPUT_TABLES = (
    SUPPLIERS_TABLE.removeprefix("raw."),
    PREVIOUS_TABLE.removeprefix("raw."),
    *(f"ledger__snapshot_{mart}" for mart in SNAPSHOT_SLICES),
)
WORK_FOLDER = "_work"
# by_risk_level's bucket for the suppliers with no risk level: no ABN to verify (an ABN that
# cannot be used, a name that found no single business); each is listed in "unverified"
UNVERIFIED = "unverified"


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
    slice: str = ""  # the snapshot slice the run reads (store.slice_dir)

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
    """Names are looked up once per version of a ledger file (the run before is read back):
    a supplier resolved by name keeps its ABN until the customer sends a new file; the
    candidates shown beside an ABN that cannot be used are kept too; a name that could not be
    resolved is looked up again whenever a new snapshot is published (it may be registered
    by then)."""
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
            if name is None:
                continue
            candidates = json.loads(row["candidates"]) if row["candidates"] else []
            matches = sum(1 for c in candidates if c.get("score", 0) >= 0.9)
            if row["resolution"] == "resolved_by_name" and row["abn"]:
                known[name] = NameResolution(name, row["abn"], 1, candidates)
            elif row["abn"] is None and (row["abn_given"] is not None or same_snapshot):
                known.setdefault(name, NameResolution(name, None, matches, candidates))
    wanted = [name for name in names if name not in known]
    if wanted:
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            known.update(resolve_names(con, wanted))
        finally:
            con.close()
    return {name: known[name] for name in names}


def _acn_matches(snapshot: SnapshotInfo, parsed: ParsedLedger) -> dict[str, list[dict[str, Any]]]:
    """The companies of ACNs given for ABNs (few rows: looked up on every run)."""
    acns = acns_to_resolve(parsed)
    if not acns:
        return {}
    con = duckdb.connect(str(snapshot.path), read_only=True)
    try:
        return resolve_acns(con, acns)
    finally:
        con.close()


# ---------------------------------------------------------------------------------- inputs


def _overrides_digest(in_force: dict[tuple[str, str], overrides.Override]) -> str:
    """A digest of the overrides of one ledger (empty: none), part of a run's inputs: a new
    override or a revert makes the same night's run a new run."""
    if not in_force:
        return ""
    text = json.dumps(sorted((ref, f, o.value) for (ref, f), o in in_force.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def _with_overrides(
    rows: pl.DataFrame, in_force: dict[tuple[str, str], overrides.Override]
) -> tuple[pl.DataFrame, str]:
    """The user-supplied values in place of the ledger row's (docs/ledgers.md), with
    ``user_supplied`` listing the fields replaced; and their digest."""
    if not in_force:
        return rows.with_columns(user_supplied=pl.lit(None, dtype=pl.String)), ""
    values: dict[str, dict[str, str]] = {}
    for (ref, name), override in in_force.items():
        values.setdefault(ref, {})[name] = override.value
    table = []
    for ref, fields in values.items():
        state, postcode = (
            overrides.parse_address(fields["address"]) if "address" in fields else (None, None)
        )
        table.append({
            "supplier_ref": ref,
            "o_domain": fields.get("domain"),
            "o_phone": fields.get("phone"),
            "o_address": "address" in fields,
            "o_state": state,
            "o_postcode": postcode,
            "user_supplied": json.dumps(sorted(fields)),
        })  # fmt: skip
    lookup = pl.DataFrame(
        table,
        schema={"supplier_ref": pl.String, "o_domain": pl.String, "o_phone": pl.String,
                "o_address": pl.Boolean, "o_state": pl.String, "o_postcode": pl.String,
                "user_supplied": pl.String},
    )  # fmt: skip
    first = ~pl.col("supplier_key").str.contains("#line")  # the row the supplier_ref names
    joined = rows.join(lookup, on="supplier_ref", how="left").with_columns(
        pl.when(first).then(pl.col("user_supplied")).alias("user_supplied")
    )
    address = first & pl.col("o_address").fill_null(False)
    out = joined.with_columns(
        domain=pl.when(first & pl.col("o_domain").is_not_null())
        .then(pl.col("o_domain"))
        .otherwise(pl.col("domain")),
        phone=pl.when(first & pl.col("o_phone").is_not_null())
        .then(pl.col("o_phone"))
        .otherwise(pl.col("phone")),
        state=pl.when(address).then(pl.col("o_state")).otherwise(pl.col("state")),
        postcode=pl.when(address).then(pl.col("o_postcode")).otherwise(pl.col("postcode")),
    ).drop("o_domain", "o_phone", "o_address", "o_state", "o_postcode")
    return out, _overrides_digest(in_force)


def _write_parquet(frame: pl.DataFrame, path: Path) -> None:
    frame.write_parquet(path, compression="zstd")


def _empty_states(path: Path) -> None:
    # polars: pyarrow's writer imports pandas (about 0.5 s of a night) for this empty file
    pl.DataFrame(schema=STATE_COLUMNS).write_parquet(path)


def up_to_date(settings: Settings, customer: str, run_date: dt.date) -> list[store.Run] | None:
    """The latest runs of the customer's ledgers when every one of them already ran on
    exactly tonight's inputs (same file, snapshot, date and overrides), else None: a run
    would record nothing, so ``bvs ledger run`` need not start one."""
    snapshot = current_snapshot(settings)
    if snapshot is None or overrides.verify_trail(settings, customer):
        return None
    latest = []
    for ledger in store.landed_ledgers(settings, customer):
        run = store.latest_run(settings, customer, ledger.ledger)
        if run is None:
            return None
        inputs = {
            "snapshot_id": snapshot.snapshot_id,
            "ledger_sha256": store.sha256_of_file(ledger.path),
            "as_of": run_date.isoformat(),
        }
        if digest := _overrides_digest(overrides.for_ledger(settings, customer, ledger.ledger)):
            inputs["overrides"] = digest
        if run.summary.get("inputs") != inputs:
            return None
        latest.append(run)
    return latest


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
    trail = overrides.verify_trail(settings, customer)
    for ledger in landed:
        if trail:  # an override from an altered trail is never applied
            plan.failed[ledger.ledger] = (
                f"the override audit trail does not verify (bvs ledger audit --verify): {trail[0]}"
            )
            continue
        latest = store.latest_run(settings, customer, ledger.ledger)
        try:
            parsed = store.read_ledger_cached(settings, customer, ledger.ledger, ledger.path)
            inputs = {
                "snapshot_id": snapshot.snapshot_id,
                "ledger_sha256": parsed.sha256,
                "as_of": run_date.isoformat(),
            }
            if in_force := _overrides_digest(
                overrides.for_ledger(settings, customer, ledger.ledger)
            ):
                inputs["overrides"] = in_force
            if latest is not None and latest.summary.get("inputs") == inputs:
                plan.unchanged.append(ledger.ledger)
                continue
            run_id = store.next_run_id(latest, run_date.isoformat())
            resolutions = _resolutions(settings, snapshot, parsed, latest)
            acn_matches = _acn_matches(snapshot, parsed)
        except LedgerError as exc:
            plan.failed[ledger.ledger] = str(exc)
            continue
        rows, _ = _with_overrides(
            supplier_rows(parsed, resolutions, acn_matches),
            overrides.for_ledger(settings, customer, ledger.ledger),
        )
        rows = rows.with_columns(
            customer=pl.lit(customer),
            ledger=pl.lit(ledger.ledger),
            run_id=pl.lit(run_id),
            run_date=pl.lit(run_date),
            snapshot_id=pl.lit(snapshot.snapshot_id),
            ledger_file=pl.lit(ledger.path.name),
            ledger_sha256=pl.lit(parsed.sha256),
        )
        frames.append(  # numbered once all ledgers are read
            rows.with_columns(supplier_id=pl.lit(0, dtype=pl.Int64)).select(list(SUPPLIER_SCHEMA))
        )
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
                    "columns": parsed.columns,
                },
            )
        )
        if latest is not None:
            previous_states.append(latest.file("states.parquet"))

    suppliers = (
        pl.concat(frames, how="vertical").with_columns(
            supplier_id=pl.int_range(pl.len(), dtype=pl.Int64)
        )
        if frames
        else pl.DataFrame(schema=SUPPLIER_SCHEMA)
    )
    suppliers_dir = work / "suppliers"
    suppliers_dir.mkdir()
    _write_parquet(suppliers, suppliers_dir / "part-0.parquet")

    previous_dir = work / "previous_states"
    previous_dir.mkdir()
    _empty_states(previous_dir / "part-empty.parquet")
    for i, path in enumerate(previous_states):
        shutil.copyfile(path, previous_dir / f"part-{i}.parquet")

    plan.slice = str(_snapshot_slice(settings, snapshot, customer, suppliers))

    con.execute("create schema if not exists raw")
    con.execute("begin")
    try:
        point_view(con, SUPPLIERS_TABLE, suppliers_dir)
        point_view(con, PREVIOUS_TABLE, previous_dir)
        for mart in SNAPSHOT_SLICES:
            point_view(con, snapshot_table(mart), Path(plan.slice) / mart)
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    plan_path(settings, customer).write_text(plan.to_json())
    return plan


def _snapshot_slice(
    settings: Settings, snapshot: SnapshotInfo, customer: str, suppliers: pl.DataFrame
) -> Path:
    """The serving snapshot's rows of the run's ABNs, one folder of Parquet per mart, kept in
    the customer's history (``slices/<snapshot id>-<ABNs digest>/``): the runs that used it
    read their tiles' evidence from it, so a run's history stands without its snapshot.
    Another run of the customer on the same snapshot with the same ABNs (a ledger re-run
    after an override, the nights before the next publish) reuses it: the snapshot is not
    read again."""
    abns = sorted(set(suppliers["abn"].drop_nulls().to_list()))
    digest = hashlib.sha256("\n".join(abns).encode()).hexdigest()[:16]
    folder = store.slice_dir(settings, customer, snapshot.snapshot_id, digest)
    if folder.is_dir():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".tmp-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        _write_slice(settings, snapshot, abns, tmp)
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder


def _write_slice(settings: Settings, snapshot: SnapshotInfo, abns: list[str], folder: Path) -> None:
    con = duckdb.connect(
        config={
            "memory_limit": settings.duckdb_memory_limit,
            "max_temp_directory_size": settings.duckdb_temp_limit,
        }
    )
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
        con.register("abn_list", pa.table({"abn": pa.array(abns, type=pa.string())}))
        con.execute("create temp table run_abns as select abn from abn_list")
        con.unregister("abn_list")
        for mart, key in SNAPSHOT_SLICES.items():
            (folder / mart).mkdir()
            target = str(folder / mart / "part-0.parquet").replace("'", "''")
            # mart, key and columns come from the declarations above, never from input
            where = f" where {key} in (select abn from run_abns)" if key else ""
            columns = ", ".join(SLICE_COLUMNS.get(mart, ("*",)))
            con.execute(
                f"copy (select {columns} from snap.marts.{mart}{where}) to '{target}'"
                " (format parquet, compression zstd)"
            )
    finally:
        con.close()


# The history files of a run and the table each comes from (fixed names). Readers order
# rows themselves (suppliers by line), so the files are written in no particular order:
# DuckDB then writes with both cores.
_EXPORTS = {
    "suppliers.parquet": "ledger_verifications",
    "states.parquet": "ledger_supplier_states",
    "changes.parquet": "ledger_changes",
}


def _export(con: duckdb.DuckDBPyConnection, work: Path, ledgers: list[str]) -> Path:
    """Each ledger's rows of the run's tables, one Parquet file per (ledger, table) under
    ``work/export/<ledger>/``, straight from DuckDB (the rows never pass through Python).
    One file per ledger and table: a partitioned write of all ledgers at once was three
    times slower. A run of one ledger takes the file a `run_parquet` model wrote into the
    work folder as it is (a copy: the model's view still reads it)."""
    folder = work / "export"
    shutil.rmtree(folder, ignore_errors=True)
    cursor = con.cursor()
    try:
        cursor.execute("set preserve_insertion_order = false")
        for ledger in ledgers:
            (folder / ledger).mkdir(parents=True)
            for name, table in _EXPORTS.items():
                written = work / f"{table}.parquet"  # macros/materializations/run_parquet.sql
                if len(ledgers) == 1 and written.exists():
                    shutil.copyfile(written, folder / ledger / name)
                    continue
                target = str(folder / ledger / name).replace("'", "''")
                cursor.execute(
                    f"copy (select * from ledgers.{table} where ledger = ?) to '{target}'"
                    " (format parquet, compression zstd)",  # table: a fixed name
                    [ledger],
                )
    finally:
        cursor.close()
    return folder


def _take(folder: Path, name: str, ledger: str, target: Path) -> int:
    """Move one ledger's exported file into a run folder; returns its rows."""
    os.replace(folder / ledger / name, target)
    return int(pq.ParquetFile(target).metadata.num_rows)


def supplier_counts(con: duckdb.DuckDBPyConnection, customer: str, ledger: str) -> dict[str, Any]:
    """How a run's suppliers add up, each counted once in each grouping: ``by_resolution``
    (every resolution, 0 included) and ``by_risk_level``, where a supplier with no risk level
    (no ABN to verify) counts as ``unverified`` and is listed in ``unverified`` (line,
    supplier_ref, why) for the finance person to act on."""
    rows = con.execute(
        "select resolution, risk_level, count(*) from ledgers.ledger_verifications"
        " where customer = ? and ledger = ? group by all",
        [customer, ledger],
    ).fetchall()
    by_resolution = dict.fromkeys(RESOLUTIONS, 0)
    by_risk_level: dict[str, int] = {}
    for resolution, level, n in rows:
        by_resolution[str(resolution)] = by_resolution.get(str(resolution), 0) + int(n)
        key = UNVERIFIED if level is None else str(level)
        by_risk_level[key] = by_risk_level.get(key, 0) + int(n)
    by_risk_level.setdefault(UNVERIFIED, 0)
    unverified = con.execute(
        "select line, supplier_ref, abn, review_reason from ledgers.ledger_verifications"
        " where customer = ? and ledger = ? and risk_level is null order by line",
        [customer, ledger],
    ).fetchall()
    return {
        "by_resolution": by_resolution,
        "by_risk_level": by_risk_level,
        "unverified": [
            {
                "line": line,
                "supplier_ref": ref,
                "reason": reason or f"no risk level for the ABN {abn}",
            }
            for line, ref, abn, reason in unverified
        ],
    }


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
    exported = _export(con, work_dir(settings, plan.customer), [r.ledger for r in plan.runs])
    for planned in plan.runs:
        done = {r.run_id: r for r in store.runs(settings, plan.customer, planned.ledger)}
        if planned.run_id in done:  # committed by an earlier attempt of this step
            recorded.append(done[planned.run_id])
            continue

        def write(folder: Path, planned: PlannedRun = planned) -> dict[str, Any]:
            rows = {name: _take(exported, name, planned.ledger, folder / name) for name in _EXPORTS}
            suppliers, changes = rows["suppliers.parquet"], rows["changes.parquet"]
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
                **supplier_counts(con, plan.customer, planned.ledger),
                "changes": changes,
                "alerts": int(alerts[0]) if alerts else 0,
                "inputs": planned.inputs,
                "snapshot": {"snapshot_id": plan.snapshot_id, "as_of": plan.snapshot_as_of},
                # the snapshot's rows the run read: its register tiles' evidence
                "slice": Path(plan.slice)
                .relative_to(settings.ledgers_dir / plan.customer)
                .as_posix(),
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
    """The line ``bvs ledger run`` prints per ledger (CONTRACT.md, Ledgers), with every
    supplier accounted for (``by_risk_level`` adds up to ``suppliers``; the ``unverified``
    ones listed) and the file's ignored rows (line, reason, what the row held)."""
    return {
        "customer": summary["customer"],
        "ledger": summary["ledger"],
        "run_date": summary["run_date"],
        "run_id": summary["run_id"],
        "suppliers": summary["suppliers"],
        "by_resolution": summary["by_resolution"],
        "by_risk_level": summary["by_risk_level"],
        "unverified": summary.get("unverified", []),
        "ignored": summary.get("intake", {}).get("ignored", []),
        "changes": summary["changes"],
        "alerts": summary["alerts"],
        "snapshot_id": summary["snapshot"]["snapshot_id"],
        "recorded": summary.get("recorded", True),
    }


def failed_ledgers(plan: RunPlan) -> Sequence[str]:
    return [f"{ledger}: {why}" for ledger, why in sorted(plan.failed.items())]
