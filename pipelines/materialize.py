"""Materialising assets in this process, as ``bvs run`` and ``bvs ledger run`` do: the Dagster
home, the one warehouse writer, the log file a quiet run writes, and the run itself.

``bvs run`` calls :func:`run_pipeline`; ``bvs ledger run`` plans in
``pipelines.ledgers.commands.run`` and materialises here (:func:`materialize_ledgers`). The
schedule's runs and these are the same assets, so a run from the command line and one from
Dagster are the same run.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.progress import TERMINAL_FD, interactive
from pipelines.settings import PROJECT_ROOT, Settings


@dataclass(frozen=True)
class Output:
    """Where a run's own output goes: Dagster's console log level, and ``verbose`` (Dagster's
    and dbt's output on standard error) or not (a log file under ``<data_dir>/logs/``)."""

    log_level: str = "WARNING"
    verbose: bool = False


def ensure_dagster_home() -> Path:
    """DAGSTER_HOME (absolute) with telemetry off and one warehouse writer across runs."""
    home = Path(os.environ.get("DAGSTER_HOME") or PROJECT_ROOT / ".dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(
            "telemetry:\n  enabled: false\nconcurrency:\n  pools:\n    default_limit: 1\n"
        )
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    return home


def _say(prefix: str) -> Callable[[str], None]:
    return lambda line: print(f"{prefix}: {line}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def one_writer(settings: Settings, prefix: str) -> Iterator[Any]:
    """The warehouse's writer lock for the whole command, and a Dagster instance with no
    dead run holding a slot of the pool (pipelines/defs/writer.py). Raises WarehouseBusy."""
    from pipelines.warehouse.lock import writer_lock

    with writer_lock(settings, purpose=_command(), on_wait=_say(prefix)):
        import dagster as dg

        from pipelines.defs.writer import reap_dead_runs

        instance = dg.DagsterInstance.get()
        for line in reap_dead_runs(instance):
            _say(prefix)(line)
        _wait_for_pool(instance, settings, prefix)
        if settings.warehouse.exists():  # open elsewhere (DuckDB's lock): one line, now
            from pipelines.warehouse.connection import warehouse

            with warehouse(settings):
                pass
        yield instance


def _command() -> str:
    return " ".join(["bvs", *sys.argv[1:]])[:120]


def _wait_for_pool(instance: Any, settings: Settings, prefix: str) -> None:
    """Wait (bounded, Ctrl-C stops it) while live runs of this Dagster home hold the pool."""
    import time

    from pipelines.defs.writer import pool_holders, reap_dead_runs
    from pipelines.warehouse.lock import WarehouseBusy

    started, told = time.monotonic(), False
    while holders := pool_holders(instance):
        waited = time.monotonic() - started
        if waited >= settings.writer_wait_seconds:
            raise WarehouseBusy(
                f"the Dagster pool 'duckdb' of {os.environ['DAGSTER_HOME']} is held by "
                f"{'; '.join(holders)}; waited {waited:.0f} s. Let that run finish (or cancel"
                " it in the Dagster UI), then run again."
            )
        if not told:
            _say(prefix)(
                f"waiting up to {settings.writer_wait_seconds:g} s for the Dagster pool 'duckdb',"
                f" held by {'; '.join(holders)}"
            )
            told = True
        time.sleep(1)
        reap_dead_runs(instance)


def run_log_path(settings: Settings, command: str) -> Path:
    """Where a quiet run's full output goes: ``<data_dir>/logs/bvs-<command>-<UTC time>.log``."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return settings.data_dir / "logs" / f"bvs-{command}-{stamp}.log"


@contextlib.contextmanager
def output_to(log: Path | None) -> Iterator[None]:
    """With a log file, everything written to standard output and error meanwhile (Dagster's
    event log, dbt's lines from its own process, the packages' warnings) goes to it instead;
    without one, nothing changes (--verbose)."""
    if log is None:
        yield
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for target, fd in zip((1, 2), saved, strict=True):
            os.dup2(fd, target)
            os.close(fd)


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Everything written to standard output (dbt's log lines included) goes to standard
    error meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


# ------------------------------------------------------------------------------- bvs run


def run_pipeline(settings: Settings, as_of: dt.date, select: str | None, output: Output) -> int:
    """``bvs run``: materialise the pipeline (or ``select``) and publish a snapshot; prints
    its summary. The exit code: 0, 1 (failed, or a source kept its last good data), 2 (the
    selection matches nothing). Raises WarehouseBusy."""
    from pipelines.dbt import apply_dbt_env, prepare_manifest

    ensure_dagster_home()
    apply_dbt_env(settings)
    prepare_manifest(settings)

    import dagster as dg

    from pipelines.definitions import defs
    from pipelines.defs.instance import quick_event_log
    from pipelines.defs.jobs import PIPELINE
    from pipelines.defs.ledgers.assets import ledger_assets
    from pipelines.defs.resources import BvsResource
    from pipelines.defs.transform.dbt import dbt_resource

    graph = defs.resolve_asset_graph()
    assets = [
        a
        for a in defs.assets or []
        if isinstance(a, dg.AssetsDefinition) and a not in ledger_assets  # bvs ledger run
    ]
    selection: dg.AssetSelection = (
        dg.AssetSelection.from_string(select) & PIPELINE if select else PIPELINE
    )
    selected = set(selection.resolve(graph))
    if select:
        # one table of a source selects the whole source: its tables load together
        for assets_def in assets:
            if selected & assets_def.keys and not assets_def.can_subset:
                selected |= assets_def.keys
        selection = dg.AssetSelection.assets(*selected)
    if not selected:
        print(f"bvs run: the selection {select!r} matches no asset", file=sys.stderr)
        return 2
    print(f"bvs run: as of {as_of}, {len(selected)} assets, warehouse {settings.warehouse}")
    log = None if output.verbose else run_log_path(settings, "run")
    if log is not None:
        print(f"bvs run: the full output (Dagster, dbt) goes to {log}", flush=True)
    sys.stdout.flush()
    if interactive(sys.stderr, settings.progress):  # live progress from inside the steps
        os.environ[TERMINAL_FD] = str(os.dup(sys.stderr.fileno()))
    from pipelines.defs.writer import process_tags

    with one_writer(settings, "bvs run") as instance, output_to(log), quick_event_log():
        result = dg.materialize(
            assets,
            selection=selection,
            instance=instance,
            resources={
                "bvs": BvsResource(data_dir=str(settings.data_dir), as_of=as_of.isoformat()),
                "dbt": dbt_resource(),
            },
            raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": output.log_level}}}},
            tags={"bvs/as_of": as_of.isoformat(), "bvs/trigger": "cli", **process_tags()},
        )
    materialized = {
        event.asset_key.to_user_string()
        for event in result.get_asset_materialization_events()
        if event.asset_key is not None
    }
    failed_sources = _failed_sources(result)
    if not result.success:
        print("bvs run: FAILED", file=sys.stderr)
        for event in result.all_events:
            if event.is_failure and event.step_key:
                data = getattr(event.event_specific_data, "error", None)
                print(f"  {event.step_key}: {_why(data, event.message)}", file=sys.stderr)
                if data is not None and output.log_level == "DEBUG":
                    print(data.to_string(), file=sys.stderr)
        for line in failed_sources:
            print(f"  {line}", file=sys.stderr)
        for line in _after_failure(materialized):
            print(f"  {line}", file=sys.stderr)
        if log is not None:
            print(f"  the full output: {log}", file=sys.stderr)
        return 1
    _print_summary(settings, published="serving/snapshot" in materialized)
    for line in _passed_over(result):
        print(f"bvs run: warning: {line}", file=sys.stderr)
    if failed_sources:
        print(
            f"bvs run: {len(failed_sources)} source(s) FAILED and kept their last good data;"
            " the rest was loaded and published:",
            file=sys.stderr,
        )
        for line in failed_sources:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


def _after_failure(materialized: set[str]) -> list[str]:
    """What a failed run leaves, from the assets it materialized before it failed: dbt
    commits each model as it builds it, so the warehouse may hold some of the week's
    tables; the serving snapshot changes only when the publish ran."""
    lines = []
    if "serving/snapshot" in materialized:
        lines.append("the serving snapshot is the one this run published")
    else:
        lines.append("the serving snapshot is unchanged (the API serves the last one published)")
    built = sorted(key for key in materialized if not key.startswith("serving/"))
    if built:
        lines.append(
            f"the warehouse keeps the {len(built)} tables this run wrote or confirmed before"
            " the failure; a source whose load failed keeps its last good data"
        )
    else:
        lines.append("the warehouse is unchanged")
    return lines


def _why(error: Any, fallback: str | None) -> str:
    """A step's failure in one line: the failure's own description (a dg.Failure, ours), else
    the exception's last line; the stack trace only at --log-level DEBUG."""
    if error is None:
        return fallback or "failed"
    while error.cls_name == "DagsterExecutionStepExecutionError" and error.cause is not None:
        error = error.cause  # "Error occurred while executing op": the exception itself
    lines = [line for line in error.message.strip().splitlines() if line.strip()]
    if not lines:
        return fallback or "failed"
    message = lines[-1].strip()
    if error.cls_name == "Failure":  # ours: its description is the message
        message = message.split("Failure: ", 1)[-1]
    return message


def _failed_sources(result: Any) -> list[str]:
    """One line per source whose new files this run refused (it kept its last good data)."""
    lines = {}
    for event in result.get_asset_materialization_events():
        metadata = event.materialization.metadata
        status = metadata.get("status")
        if status is not None and status.value == "failed":
            message = metadata.get("message")
            lines[event.step_key] = str(message.value if message is not None else event.step_key)
    return sorted(lines.values())


def _passed_over(result: Any) -> list[str]:
    """One line per landed file a source passed over (a corrupt zip its name dates before
    the snapshot read): it was not read, and failed nothing."""
    lines = set()
    for event in result.get_asset_materialization_events():
        metadata = event.materialization.metadata
        passed_over = metadata.get("passed_over")
        if passed_over is not None:
            lines |= set(str(passed_over.value).splitlines())
    return sorted(lines)


def _print_summary(settings: Settings, *, published: bool) -> None:
    """The run's outcome in a few lines; every source and table: ``bvs status``."""
    from pipelines.status import collect_status, short_status_lines

    print("\n".join(short_status_lines(collect_status(settings), published=published)))


# ------------------------------------------------------------------------ bvs ledger run


def materialize_ledgers(
    settings: Settings,
    customers: list[str],
    as_of: dt.date,
    output: Output,
    emit: Callable[[dict[str, Any]], None],
) -> int:
    """Materialise the ledger job's partition of each customer (the assets the nightly
    schedule runs) under the one writer; ``emit`` each ledger's run summary. The number of
    customers whose run failed (each failure on standard error). Raises WarehouseBusy."""
    from pipelines.dbt import apply_dbt_env, prepare_manifest

    ensure_dagster_home()
    apply_dbt_env(settings.for_ledger_runs())
    prepare_manifest(settings.for_ledger_runs())  # the ledger runs' profile: its own parse
    with one_writer(settings, "bvs ledger run") as instance:
        return _materialize_ledgers(settings, instance, customers, as_of, output, emit)


def _materialize_ledgers(
    settings: Settings,
    instance: Any,
    pending: list[str],
    as_of: dt.date,
    output: Output,
    emit: Callable[[dict[str, Any]], None],
) -> int:
    import dagster as dg

    from pipelines.defs.instance import quick_event_log
    from pipelines.defs.ledgers.assets import ledger_assets
    from pipelines.defs.ledgers.partitions import CUSTOMERS, partition_key
    from pipelines.defs.resources import BvsResource
    from pipelines.defs.transform.project import dbt_resource
    from pipelines.defs.writer import process_tags
    from pipelines.ledgers.run import result_path

    known = set(instance.get_dynamic_partitions(CUSTOMERS.name or ""))
    if new := [c for c in pending if c not in known]:
        instance.add_dynamic_partitions(CUSTOMERS.name or "", new)
    failed = 0
    log = None if output.verbose else run_log_path(settings, "ledger-run")
    if log is not None:
        print(f"bvs ledger run: the full output (Dagster, dbt) goes to {log}", file=sys.stderr)
    for customer in pending:
        result_file = result_path(settings, customer)
        result_file.unlink(missing_ok=True)
        # stdout carries the JSON lines alone
        with stdout_to_stderr(), output_to(log), quick_event_log():
            result = dg.materialize(
                ledger_assets,
                partition_key=partition_key(customer, as_of.isoformat()),
                instance=instance,
                resources={
                    "bvs": BvsResource(data_dir=str(settings.data_dir), as_of=as_of.isoformat()),
                    "dbt": dbt_resource(),
                },
                raise_on_error=False,
                run_config={"loggers": {"console": {"config": {"log_level": output.log_level}}}},
                tags={
                    "bvs/as_of": as_of.isoformat(),
                    "bvs/customer": customer,
                    "bvs/trigger": "cli",
                    **process_tags(),
                },
            )
        if result.success and result_file.exists():
            for summary in json.loads(result_file.read_text()):
                emit(summary)
        else:
            failed += 1
            for event in result.all_events:
                if event.is_failure and event.step_key:
                    data = getattr(event.event_specific_data, "error", None)
                    why = (
                        data.message.strip().splitlines()[-1] if data is not None else event.message
                    )
                    print(f"bvs ledger run: {customer}: {event.step_key}: {why}", file=sys.stderr)
        for check in result.get_asset_check_evaluations():
            if not check.passed:
                failed += 1
                print(
                    f"bvs ledger run: {customer}: {check.check_name}: {check.description}",
                    file=sys.stderr,
                )
    return failed
