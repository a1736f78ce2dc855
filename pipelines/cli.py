"""The ``bvs`` command: sample data, pipeline runs, status (see docs and CONTRACT)."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pipelines.progress import TERMINAL_FD, Progress, interactive
from pipelines.settings import PROJECT_ROOT, Settings, get_settings, today_in_brisbane


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from exc


# ---------------------------------------------------------------------------------- sample


def _as_of(value: str) -> dt.date:
    """An as-of date: YYYY-MM-DD, or ``today`` (in Brisbane, as `bvs run` takes it)."""
    return today_in_brisbane() if value == "today" else _date(value)


def cmd_sample(args: argparse.Namespace, settings: Settings) -> int:
    from bvs_sample import extract_date_for, write_sample

    if args.as_of and args.extract_date:
        print("bvs sample: give --as-of or --extract-date, not both", file=sys.stderr)
        return 2
    if args.as_of:
        args.extract_date = extract_date_for(args.as_of)
    out = Path(args.out) if args.out else settings.landing_dir
    progress = Progress("sample", enabled=settings.progress)
    summary = write_sample(
        out,
        scale=args.scale,
        seed=args.seed,
        abr_format=args.abr_format,
        progress=lambda stage, done, total: progress.update(stage, done, total),
        **({"extract_date": args.extract_date} if args.extract_date else {}),
    )
    progress.done()
    print(
        f"wrote sample landing data to {out} (extracts of {summary.extract_date}, as of {summary.as_of})"
    )
    for name, count in sorted(summary.counts.items()):
        print(f"  {name}: {count:,}")
    return 0


# ---------------------------------------------------------------------------------- run


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


def _say(prefix: str) -> Any:
    return lambda line: print(f"{prefix}: {line}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _one_writer(settings: Settings, prefix: str) -> Iterator[Any]:
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


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.warehouse.lock import WarehouseBusy

    try:
        return _run(args, settings)
    except WarehouseBusy as exc:
        print(f"bvs run: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.dbt import apply_dbt_env, prepare_manifest

    as_of = args.as_of or today_in_brisbane()
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
        dg.AssetSelection.from_string(args.select) & PIPELINE if args.select else PIPELINE
    )
    selected = set(selection.resolve(graph))
    if args.select:
        # one table of a source selects the whole source: its tables load together
        for assets_def in assets:
            if selected & assets_def.keys and not assets_def.can_subset:
                selected |= assets_def.keys
        selection = dg.AssetSelection.assets(*selected)
    if not selected:
        print(f"bvs run: the selection {args.select!r} matches no asset", file=sys.stderr)
        return 2
    print(f"bvs run: as of {as_of}, {len(selected)} assets, warehouse {settings.warehouse}")
    log = None if args.verbose else run_log_path(settings, "run")
    if log is not None:
        print(f"bvs run: the full output (Dagster, dbt) goes to {log}", flush=True)
    sys.stdout.flush()
    if interactive(sys.stderr, settings.progress):  # live progress from inside the steps
        os.environ[TERMINAL_FD] = str(os.dup(sys.stderr.fileno()))
    from pipelines.defs.writer import process_tags

    with _one_writer(settings, "bvs run") as instance, _output_to(log), quick_event_log():
        result = dg.materialize(
            assets,
            selection=selection,
            instance=instance,
            resources={
                "bvs": BvsResource(data_dir=str(settings.data_dir), as_of=as_of.isoformat()),
                "dbt": dbt_resource(),
            },
            raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": args.log_level}}}},
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
                if data is not None and args.log_level == "DEBUG":
                    print(data.to_string(), file=sys.stderr)
        for line in failed_sources:
            print(f"  {line}", file=sys.stderr)
        print(
            "  the previous tables and the previous serving snapshot are unchanged", file=sys.stderr
        )
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
    from pipelines.status import collect_status, mart_rows

    status = collect_status(settings)
    print(f"warehouse: {settings.warehouse}")
    for source in status["sources"]:
        rows = ", ".join(f"{t} {n:,}" for t, n in source["rows"].items())
        print(
            f"  {source['source']:<22} {source['status']:<12} extract {str(source['extract_date'] or '-'):<10}"
            f"  {rows}  quarantined {source['quarantined']:,}"
        )
    for table, rows in status["marts"].items():
        print(f"  {table:<33} {mart_rows(rows)}")
    snapshot = status["snapshot"]
    if snapshot:
        state = "published" if published else "current (not republished by this run)"
        print(f"serving snapshot ({state}): {snapshot['path']}")
        print(f"  id {snapshot['snapshot_id']}, as of {snapshot['as_of']}")
    else:
        print("serving snapshot: none published yet")


# ---------------------------------------------------------------------------------- status


def cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.status import collect_status, render_status

    status = collect_status(settings, today=args.as_of or today_in_brisbane())
    if args.json:
        print(json.dumps(status, indent=2, default=str))
    else:
        print(render_status(status))
    return 0


# ---------------------------------------------------------------------------------- verify


def cmd_verify(args: argparse.Namespace, settings: Settings) -> int:
    """The verify response for one ABN as JSON, from the current serving snapshot; an ABN the
    register does not hold is the API's 404: its message, exit code 2."""
    from pipelines.serving.verify import verify

    checks = [c.strip() for c in args.checks.split(",") if c.strip()] if args.checks else None
    if not args.live:
        return _print_from_snapshot(
            settings, lambda con: verify(con, args.abn, checks=checks, missing_ok=False)
        )
    from pipelines.live.checker import LiveChecker
    from pipelines.live.config import from_settings
    from pipelines.serving.live import refresh

    checker = LiveChecker(from_settings(settings))
    return _print_from_snapshot(
        settings,
        lambda con: refresh(con, verify(con, args.abn, checks=checks, missing_ok=False), checker),
    )


def cmd_live_check(args: argparse.Namespace, settings: Settings) -> int:
    """What each live-check client finds for one domain (for a person debugging a tile)."""
    from pipelines.live.checker import LiveChecker
    from pipelines.live.config import from_settings

    checker = LiveChecker(from_settings(settings))
    try:
        found = checker.check_domain(args.domain, fresh=args.fresh)
    except ValueError as exc:
        print(json.dumps({"message": str(exc)}))
        return 2
    print(json.dumps(found, indent=2, default=str))
    return 0


def _print_from_snapshot(settings: Settings, build: Any) -> int:
    """Print `build(connection)` as JSON from the current snapshot; errors as {"message"}:
    exit code 2 for what the API answers 4xx (a malformed or unknown ABN, ticker or id),
    1 when there is no snapshot to read."""
    from pipelines.serving.verify import VerifyError
    from pipelines.warehouse.snapshot import SnapshotError, open_snapshot

    try:
        con = open_snapshot(settings)
        try:
            response = build(con)
        finally:
            con.close()
    except VerifyError as exc:
        print(json.dumps({"message": exc.message}))
        return 2
    except SnapshotError as exc:
        print(json.dumps({"message": str(exc)}))
        return 1
    print(json.dumps(response, indent=2, default=str))
    return 0


def cmd_squeeze(args: argparse.Namespace, settings: Settings) -> int:
    """One instrument's Squeeze Score, or the list (SPEC 4.2), from the snapshot."""
    from pipelines.serving.market import squeeze_list, squeeze_ticker

    if args.ticker:
        return _print_from_snapshot(settings, lambda con: squeeze_ticker(con, args.ticker))
    return _print_from_snapshot(
        settings,
        lambda con: squeeze_list(con, market=args.market, tier=args.tier, limit=args.limit),
    )


def cmd_viper(args: argparse.Namespace, settings: Settings) -> int:
    """The activist pattern result by ticker, name or ABN (SPEC 4.3), from the snapshot."""
    from pipelines.serving.market import viper

    return _print_from_snapshot(
        settings, lambda con: viper(con, ticker=args.ticker, name=args.name, abn=args.abn)
    )


def cmd_activist(args: argparse.Namespace, settings: Settings) -> int:
    """An activist entity's profile (SPEC 2.7), from the snapshot."""
    from pipelines.serving.market import activist

    return _print_from_snapshot(settings, lambda con: activist(con, args.activist_id))


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    """The home-page search over legal, business and trading names (SPEC 4.4)."""
    from pipelines.serving.search import search

    return _print_from_snapshot(settings, lambda con: search(con, args.query, limit=args.limit))


def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    """Add, list or remove watches (SPEC 2.9), kept in the state database."""
    from pipelines.state.watches import WatchError, add_watch, list_watches, remove_watch, store

    with store(settings) as engine:
        try:
            if args.action == "add":
                kind = "activist" if args.activist else "squeeze"
                result: Any = add_watch(
                    engine,
                    args.owner,
                    kind,
                    ticker=args.ticker,
                    company_name=args.name,
                    threshold=args.threshold,
                )
            elif args.action == "list":
                result = list_watches(engine, args.owner)
            else:
                if args.watch_id is None:
                    raise WatchError("remove needs a watch id")
                remove_watch(engine, args.watch_id, args.owner)
                result = {"removed": args.watch_id}
        except WatchError as exc:
            print(json.dumps({"message": str(exc)}))
            return 2
    print(json.dumps(result, indent=2, default=str))
    return 0


def cmd_alerts(args: argparse.Namespace, settings: Settings) -> int:
    """Evaluate the watches against the current snapshot, or list the alerts raised."""
    from pipelines.state.watches import evaluate, list_alerts, store

    with store(settings) as engine:
        if args.action == "evaluate":
            return _print_from_snapshot(settings, lambda con: {"raised": evaluate(engine, con)})
        print(json.dumps(list_alerts(engine, args.owner, args.since), indent=2, default=str))
    return 0


# ---------------------------------------------------------------------------------- ledgers


def _ledger_error(exc: Exception) -> int:
    print(json.dumps({"message": str(exc)}), file=sys.stderr)
    return 2


def cmd_ledger(args: argparse.Namespace, settings: Settings) -> int:
    """Supplier ledgers: import, re-verify, show, changes (CONTRACT.md, Ledgers)."""
    from pipelines.ledgers import commands
    from pipelines.ledgers.intake import LedgerError

    try:
        if args.action == "import":
            if not args.customer:
                raise LedgerError("import needs --customer")
            if not args.file:
                raise LedgerError("import needs the ledger FILE")
            print(
                json.dumps(
                    commands.import_ledger(settings, Path(args.file), args.customer, args.name)
                )
            )
            return 0
        if args.action == "run":
            return _ledger_run(args, settings)
        if not args.customer:
            raise LedgerError(f"{args.action} needs --customer")
        if args.action == "show":
            pieces = commands.show(settings, args.customer, args.ledger, args.run)
            first = next(pieces)  # errors surface before anything is printed
            sys.stdout.write(first)
            for piece in pieces:
                sys.stdout.write(piece)
            sys.stdout.write("\n")
            return 0
        if args.action == "changes":
            for change in commands.changes(settings, args.customer, args.ledger, args.since):
                print(json.dumps(change))
            return 0
        if args.action in ("override", "revert"):
            return _ledger_override(args, settings)
        if args.action == "audit":
            return _ledger_audit(args, settings)
        if args.action == "report":
            from pipelines.ledgers.report import report

            if not args.month or not args.out:
                raise LedgerError("report needs --month YYYY-MM and --out PATH")
            result = report(
                settings, args.customer, args.month, args.format, Path(args.out), args.ledger
            )
            print(json.dumps(result))
            return 0
    except LedgerError as exc:
        return _ledger_error(exc)
    return 2


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
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


def run_log_path(settings: Settings, command: str) -> Path:
    """Where a quiet run's full output goes: ``<data_dir>/logs/bvs-<command>-<UTC time>.log``."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return settings.data_dir / "logs" / f"bvs-{command}-{stamp}.log"


@contextlib.contextmanager
def _output_to(log: Path | None) -> Iterator[None]:
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


def _ledger_override(args: argparse.Namespace, settings: Settings) -> int:
    """Record an override or a revert in the customer's audit trail (SPEC 2.2)."""
    from pipelines.ledgers import overrides
    from pipelines.ledgers.intake import LedgerError

    for name in ("ledger", "supplier", "field"):
        if not getattr(args, name):
            raise LedgerError(f"{args.action} needs --{name}")
    by = args.by or _user()
    if args.action == "override":
        if args.value is None or args.reason is None:
            raise LedgerError("override needs --value and --reason")
        entry = overrides.override(
            settings,
            args.customer,
            args.ledger,
            args.supplier,
            args.field,
            args.value,
            args.reason,
            by,
        )
    else:
        entry = overrides.revert(
            settings, args.customer, args.ledger, args.supplier, args.field, by, args.reason or ""
        )
    print(json.dumps(entry))
    return 0


def _ledger_audit(args: argparse.Namespace, settings: Settings) -> int:
    """The audit trail as JSON lines; with --verify, exit 1 when it was altered."""
    from pipelines.ledgers import overrides
    from pipelines.ledgers.intake import check_customer_id

    check_customer_id(args.customer)
    if args.verify:
        problems = overrides.verify_trail(settings, args.customer)
        entries = len(overrides.read_trail(settings, args.customer))
        print(json.dumps({"customer": args.customer, "entries": entries, "verified": not problems,
                          "problems": problems}))  # fmt: skip
        return 1 if problems else 0
    for entry in overrides.read_trail(settings, args.customer):
        print(json.dumps(entry))
    return 0


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _ledger_run(args: argparse.Namespace, settings: Settings) -> int:
    """Materialise the ledger job's partition of each customer (the same assets the nightly
    schedule runs) and print one summary line per ledger."""
    from pipelines.dbt import apply_dbt_env, prepare_manifest
    from pipelines.ledgers import store
    from pipelines.ledgers.intake import LedgerError, check_customer_id
    from pipelines.ledgers.run import run_summary, up_to_date

    as_of = args.as_of or today_in_brisbane()
    if as_of > today_in_brisbane():
        raise LedgerError(
            f"the run date {as_of} is after today ({today_in_brisbane()} in Brisbane)"
        )
    if args.customer:
        customers = [check_customer_id(args.customer)]
        if not store.landed_ledgers(settings, args.customer):
            raise LedgerError(f"customer {args.customer} has no ledger landed")
    else:
        customers = store.customers_with_ledgers(settings)
    if not customers:
        raise LedgerError(f"no ledger is landed under {store.landing_root(settings)}")
    pending = []
    for customer in customers:
        if (latest := up_to_date(settings, customer, as_of)) is not None:
            # every ledger already ran on tonight's inputs: nothing to record, no run started
            for run in latest:
                print(json.dumps(run_summary({**run.summary, "recorded": False})), flush=True)
        else:
            pending.append(customer)
    if not pending:
        return 0
    ensure_dagster_home()
    apply_dbt_env(settings.for_ledger_runs())
    prepare_manifest(settings.for_ledger_runs())  # the ledger runs' profile: its own parse

    from pipelines.warehouse.lock import WarehouseBusy

    try:
        with _one_writer(settings, "bvs ledger run") as instance:
            failed = _ledger_materialize(args, settings, instance, pending, as_of)
    except WarehouseBusy as exc:
        print(f"bvs ledger run: {exc}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def _ledger_materialize(
    args: argparse.Namespace, settings: Settings, instance: Any, pending: list[str], as_of: Any
) -> int:
    """Materialise each pending customer's ledger partition; the number of failures."""
    import dagster as dg

    from pipelines.defs.instance import quick_event_log
    from pipelines.defs.ledgers.assets import ledger_assets
    from pipelines.defs.ledgers.partitions import CUSTOMERS, partition_key
    from pipelines.defs.resources import BvsResource
    from pipelines.defs.transform.project import dbt_resource
    from pipelines.defs.writer import process_tags
    from pipelines.ledgers.run import result_path, run_summary

    known = set(instance.get_dynamic_partitions(CUSTOMERS.name or ""))
    if new := [c for c in pending if c not in known]:
        instance.add_dynamic_partitions(CUSTOMERS.name or "", new)
    failed = 0
    log = None if args.verbose else run_log_path(settings, "ledger-run")
    if log is not None:
        print(f"bvs ledger run: the full output (Dagster, dbt) goes to {log}", file=sys.stderr)
    for customer in pending:
        result_file = result_path(settings, customer)
        result_file.unlink(missing_ok=True)
        # stdout carries the JSON lines alone
        with _stdout_to_stderr(), _output_to(log), quick_event_log():
            result = dg.materialize(
                ledger_assets,
                partition_key=partition_key(customer, as_of.isoformat()),
                instance=instance,
                resources={
                    "bvs": BvsResource(data_dir=str(settings.data_dir), as_of=as_of.isoformat()),
                    "dbt": dbt_resource(),
                },
                raise_on_error=False,
                run_config={"loggers": {"console": {"config": {"log_level": args.log_level}}}},
                tags={
                    "bvs/as_of": as_of.isoformat(),
                    "bvs/customer": customer,
                    "bvs/trigger": "cli",
                    **process_tags(),
                },
            )
        if result.success and result_file.exists():
            for summary in json.loads(result_file.read_text()):
                print(json.dumps(run_summary(summary)), flush=True)
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


# ---------------------------------------------------------------------------------- API


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """The read API over HTTP (uvicorn; each worker process opens the snapshot read-only)."""
    import uvicorn

    from pipelines.api.server import HTTP_PROTOCOL

    workers = args.workers or settings.api_workers
    print(f"serving the API on http://{args.host}:{args.port} ({workers} worker(s))", flush=True)
    uvicorn.run(
        "pipelines.api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=workers,
        log_level=args.log_level,
        access_log=args.access_log,
        http=HTTP_PROTOCOL,  # uvicorn's own parse errors answered in JSON too
    )
    return 0


def cmd_keys(args: argparse.Namespace, settings: Settings) -> int:
    """Create, list and revoke API keys (only a hash of each secret is stored)."""
    import datetime as _dt

    from pipelines.state.counters import usage_engines
    from pipelines.state.db import state_store
    from pipelines.state.keys import ApiKeyError, create_key, list_keys, revoke_key
    from pipelines.state.limits import daily_usage

    with state_store(settings) as engine:
        try:
            if args.action == "create":
                if not args.name:
                    raise ApiKeyError("create needs --name")
                secret, _record = create_key(
                    engine, args.name, args.plan, owner=args.owner, customer=args.customer
                )
                print(secret)  # shown once; stdout carries the key alone
                return 0
            if args.action == "revoke":
                if not args.key_id:
                    raise ApiKeyError("revoke needs a key id (see bvs keys list)")
                record = revoke_key(engine, args.key_id)
                print(json.dumps({"revoked": record.key_id, "name": record.name}))
                return 0
            usage = daily_usage(usage_engines(settings, engine), _dt.datetime.now(_dt.UTC))
            rows = [
                {
                    "key_id": k.key_id,
                    "name": k.name,
                    "owner": k.owner,
                    "plan": k.plan,
                    "customer": k.customer,
                    "created_at": k.created_at.isoformat(),
                    "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
                    "requests_today": usage.get(k.key_id, {}).get("today", 0),
                    "requests_total": usage.get(k.key_id, {}).get("total", 0),
                }
                for k in list_keys(engine)
            ]
        except ApiKeyError as exc:
            print(json.dumps({"message": str(exc)}), file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    header = ("KEY ID", "NAME", "OWNER", "PLAN", "STATE", "TODAY", "TOTAL")
    table = [
        (r["key_id"], r["name"], r["owner"], r["plan"],
         "revoked" if r["revoked_at"] else "active",
         str(r["requests_today"]), str(r["requests_total"]))
        for r in rows
    ]  # fmt: skip
    widths = [max(len(str(c)) for c in col) for col in zip(header, *table, strict=True)]
    for line in (header, *table):
        print("  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    return 0


# ---------------------------------------------------------------------------------- main


def _output_options(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """--log-level and --verbose of the commands that materialise assets."""
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help=f"{prefix}Dagster console log level (default WARNING; every event is in the UI)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=f"{prefix}Dagster's and dbt's output on stderr (default: a log file under <data_dir>/logs/)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bvs", description="BVS warehouse command line")
    sub = parser.add_subparsers(dest="command", required=True)

    sample = sub.add_parser("sample", help="write sample landing files in the real formats")
    sample.add_argument("--out", help="landing folder to write (default: $BVS_DATA_DIR/landing)")
    sample.add_argument("--scale", type=int, default=10_000, help="number of ABN records")
    sample.add_argument("--seed", type=int, default=1, help="same seed, same files")
    sample.add_argument(
        "--abr-format",
        choices=("zip", "xml"),
        default="zip",
        help="the ABR extract as the two download zips (default) or 20 XML files",
    )
    sample.add_argument(
        "--as-of",
        type=_as_of,
        help="date the sample for this as-of date (YYYY-MM-DD or 'today'): extracts two days"
        " older, fresh on that day; default: the fixed 2026-11-20 of the tests",
    )
    sample.add_argument(
        "--extract-date", type=_date, help="the extracts' date (the as-of date is 2 days later)"
    )
    sample.set_defaults(func=cmd_sample)

    run = sub.add_parser("run", help="materialise the pipeline in-process and publish a snapshot")
    run.add_argument("--as-of", type=_date, help="'today' for age rules (default: Brisbane date)")
    run.add_argument("--select", help="Dagster asset selection, e.g. 'group:ingest' or 'key:raw/*'")
    _output_options(run)
    run.set_defaults(func=cmd_run)

    status = sub.add_parser("status", help="sources loaded, the current snapshot, what is stale")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--as-of", type=_date, help="judge staleness as of this date")
    status.set_defaults(func=cmd_status)

    verify = sub.add_parser(
        "verify", help="the verification of one ABN, as JSON (from the snapshot)"
    )
    verify.add_argument("abn", help="11-digit ABN (spaces allowed)")
    verify.add_argument(
        "--checks", help="comma-separated check ids: narrow the tiles and the score"
    )
    verify.add_argument(
        "--live",
        action="store_true",
        help="check the live tiles (domain, e-mail, trust, web presence, ...) now, not from the snapshot",
    )
    verify.set_defaults(func=cmd_verify)

    live_check = sub.add_parser(
        "live-check", help="what each live-check client finds for one domain, as JSON"
    )
    live_check.add_argument("domain", help="a domain name (a URL is accepted)")
    live_check.add_argument(
        "--fresh", action="store_true", help="ask the providers again (skip the 24-hour cache)"
    )
    live_check.set_defaults(func=cmd_live_check)

    squeeze = sub.add_parser("squeeze", help="Squeeze Scores, as JSON (from the snapshot)")
    squeeze.add_argument("ticker", nargs="?", help="ASX ticker, crypto or forex symbol")
    squeeze.add_argument("--market", help="asx, crypto or forex (list form)")
    squeeze.add_argument("--tier", help="extreme, high, medium or low (list form)")
    squeeze.add_argument("--limit", type=int, help="how many signals (list form, default 50)")
    squeeze.set_defaults(func=cmd_squeeze)

    viper = sub.add_parser("viper", help="the activist pattern result, as JSON (from the snapshot)")
    viper.add_argument("ticker", nargs="?", help="ASX ticker")
    viper.add_argument("--name", help="company name (or part of it)")
    viper.add_argument("--abn", help="the target's ABN")
    viper.set_defaults(func=cmd_viper)

    profile = sub.add_parser("activist", help="an activist entity's profile, as JSON")
    profile.add_argument("activist_id", help="the activist's id (a viper answer's activist_id)")
    profile.set_defaults(func=cmd_activist)

    search = sub.add_parser("search", help="search legal, business and trading names, as JSON")
    search.add_argument("query", help="a name or some of its words")
    search.add_argument("--limit", type=int, default=20, help="how many results, 1-100 (20)")
    search.set_defaults(func=cmd_search)

    watch = sub.add_parser("watch", help="add, list or remove squeeze and activist watches")
    watch.add_argument("action", choices=("add", "list", "remove"))
    watch.add_argument("watch_id", nargs="?", type=int, help="remove: the watch id")
    watch.add_argument("--owner", default="local", help="whose watch (an API key's owner)")
    watch.add_argument("--ticker", help="instrument (squeeze) or ticker (activist)")
    watch.add_argument("--name", help="company name (activist watch)")
    watch.add_argument("--threshold", type=float, help="squeeze: alert when the score crosses it")
    watch.add_argument("--activist", action="store_true", help="an activist watch")
    watch.set_defaults(func=cmd_watch)

    alerts = sub.add_parser("alerts", help="evaluate watches against the snapshot, or list alerts")
    alerts.add_argument("action", choices=("evaluate", "list"))
    alerts.add_argument("--owner", help="list: one owner's alerts")
    alerts.add_argument("--since", type=int, default=0, help="list: after this alert id")
    alerts.set_defaults(func=cmd_alerts)

    serve = sub.add_parser("serve", help="the read API over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, help="worker processes (default BVS_API_WORKERS)")
    serve.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.set_defaults(func=cmd_serve)

    ledger = sub.add_parser(
        "ledger", help="supplier ledgers: import, re-verify, show, changes, overrides, reports"
    )
    ledger.add_argument(
        "action",
        choices=("import", "run", "show", "changes", "override", "revert", "audit", "report"),
    )
    ledger.add_argument("file", nargs="?", help="import: the ledger file (.csv or .xlsx)")
    ledger.add_argument("--customer", help="customer id (lower-case letters, digits, '-')")
    ledger.add_argument("--name", help="import: the ledger's name (default: the file's stem)")
    ledger.add_argument("--ledger", help="show, changes: one ledger of the customer")
    ledger.add_argument("--run", type=_date, help="show: the run of this date (default: latest)")
    ledger.add_argument("--since", type=_date, help="changes: runs on or after this date")
    ledger.add_argument("--as-of", type=_date, help="run: the run date (default: Brisbane today)")
    ledger.add_argument("--supplier", help="override, revert: the supplier_ref")
    ledger.add_argument("--field", choices=("domain", "address", "phone"), help="override, revert")
    ledger.add_argument("--value", help="override: the value to use")
    ledger.add_argument("--reason", help="override, revert: why (kept in the audit trail)")
    ledger.add_argument("--by", help="override, revert: who (default: the login name)")
    ledger.add_argument("--verify", action="store_true", help="audit: check the trail's hash chain")
    ledger.add_argument("--month", help="report: YYYY-MM")
    ledger.add_argument("--format", choices=("csv", "pdf"), default="pdf", help="report (pdf)")
    ledger.add_argument("--out", help="report: the file to write")
    _output_options(ledger, "run: ")
    ledger.set_defaults(func=cmd_ledger)

    keys = sub.add_parser("keys", help="create, list or revoke API keys")
    keys.add_argument("action", choices=("create", "list", "revoke"))
    keys.add_argument("key_id", nargs="?", help="revoke: the key id (bvs keys list)")
    keys.add_argument("--name", help="create: a name for the key")
    keys.add_argument("--plan", default="individual", choices=("free", "individual", "enterprise"))
    keys.add_argument("--owner", help="create: whose key (watches and alerts); default: the name")
    keys.add_argument("--json", action="store_true", help="list: machine-readable output")
    keys.add_argument(
        "--customer", help="create: bind an Enterprise key to a customer's supplier ledgers"
    )
    keys.set_defaults(func=cmd_keys)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = get_settings()
    try:
        code = int(args.func(args, settings))
        sys.stdout.flush()  # a closed pipe shows here rather than at exit
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `bvs ... | head`: the reader has what it wanted. Python would flush stdout again at
        # exit and print a traceback; point it at /dev/null and end as a pipe writer does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13  # SIGPIPE


if __name__ == "__main__":
    raise SystemExit(main())


if __name__ == "__main__":  # python -m pipelines.cli (the warm server runs bvs commands so)
    sys.exit(main())
