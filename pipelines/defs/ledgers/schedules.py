"""When ledgers are re-verified: every night, and after each publish. Both run out of the box
(the Dagster daemon of `make dev` or a deployment evaluates them): a customer hears of a
change for the worse within a day with no operator (docs/decisions/16-changes-between-runs.md). Stop either in the UI
(Automation), or with `dagster schedule stop nightly_ledger_reverification` / `dagster sensor
stop ledgers_after_publish`; a stopped state is kept in the instance."""

from __future__ import annotations

import datetime as dt

import dagster as dg

from pipelines.ledgers.store import customers_with_ledgers
from pipelines.settings import BRISBANE, get_settings

from ..jobs import ledger_nightly
from .partitions import CUSTOMERS, partition_key


def _run_requests(
    instance: dg.DagsterInstance, day: dt.date, run_key_prefix: str
) -> list[dg.RunRequest]:
    """One run per customer with landed ledgers; their partitions are added if new."""
    names = customers_with_ledgers(get_settings())
    known = set(instance.get_dynamic_partitions(CUSTOMERS.name or ""))
    new = [name for name in names if name not in known]
    if new:
        instance.add_dynamic_partitions(CUSTOMERS.name or "", new)
    return [
        dg.RunRequest(
            run_key=f"{run_key_prefix}:{name}:{day.isoformat()}",
            partition_key=partition_key(name, day.isoformat()),
            tags={"bvs/as_of": day.isoformat(), "bvs/customer": name},
        )
        for name in names
    ]


@dg.schedule(
    name="nightly_ledger_reverification",
    job=ledger_nightly,
    cron_schedule="30 2 * * *",  # 02:30 Brisbane, every night
    execution_timezone=str(BRISBANE),
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every night: re-verify every customer's supplier ledgers as of that day.",
)
def nightly_ledger_reverification(
    context: dg.ScheduleEvaluationContext,
) -> list[dg.RunRequest] | dg.SkipReason:
    day = context.scheduled_execution_time.astimezone(BRISBANE).date()
    requests = _run_requests(context.instance, day, "nightly")
    return requests or dg.SkipReason("no customer has landed a ledger")


@dg.asset_sensor(
    name="ledgers_after_publish",
    asset_key=dg.AssetKey(["serving", "snapshot"]),
    job=ledger_nightly,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After each new serving snapshot: re-verify every customer's ledgers against it.",
)
def ledgers_after_publish(
    context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry
) -> list[dg.RunRequest] | dg.SkipReason:
    day = dt.datetime.now(BRISBANE).date()
    requests = _run_requests(context.instance, day, f"publish:{asset_event.run_id}")
    return requests or dg.SkipReason("no customer has landed a ledger")
