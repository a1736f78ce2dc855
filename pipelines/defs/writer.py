"""Warehouse writers in Dagster: the writer lock per step, and no dead run holding anything.

Every step that writes the warehouse runs inside ``writing(context, bvs)``: it records the
run's process in the run's tags (``bvs/pid``, ``bvs/host``, ``bvs/pid_started``) and takes
the warehouse's writer lock (pipelines/warehouse/lock.py), which the kernel releases when the
process dies. The Dagster pool ``duckdb`` still queues the steps of runs of one Dagster
home, as the UI shows; its slots are Dagster's bookkeeping, which a killed process cannot
release, so ``reap_dead_runs`` marks a run whose process is gone as failed and frees its
slots. ``bvs run`` and ``bvs ledger run`` call it before they start; the sensor
``free_slots_of_dead_runs`` does it for the Dagster UI and its daemon.

Only Dagster's public API is imported (``dagster``, never ``dagster._...``). Dagster's own
answer to a dead run, run monitoring, lives in its daemon, which ``bvs run`` does not start;
marking a run failed and freeing its pool slots from here take four instance methods Dagster
does not mark public. They are reached through ``Bookkeeping`` only, and
tests/defs/test_writer.py names the one an upgrade moved.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from typing import Any

import dagster as dg

from pipelines import processes
from pipelines.warehouse.lock import WarehouseBusy, writer_lock

from .resources import POOL, BvsResource

PID_TAG, HOST_TAG, STARTED_TAG = "bvs/pid", "bvs/host", "bvs/pid_started"
# a run in any other status has finished (SUCCESS, FAILURE, CANCELED); MANAGED runs are
# another system's to finish
UNFINISHED = (
    dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.SUSPENDED, dg.DagsterRunStatus.CANCELING,
)  # fmt: skip


class Bookkeeping:
    """The instance methods this module needs that Dagster does not mark public (its
    ``@public``): every use of them is here. ``INTERNAL`` names them for the test that fails
    when an upgrade moves one."""

    INTERNAL = (
        "DagsterInstance.add_run_tags",
        "DagsterInstance.report_run_failed",
        "DagsterInstance.event_log_storage.get_concurrency_info",
        "DagsterInstance.event_log_storage.free_concurrency_slots_for_run",
    )

    def __init__(self, instance: dg.DagsterInstance) -> None:
        self.instance = instance

    def tag_run(self, run_id: str, tags: dict[str, str]) -> None:
        self.instance.add_run_tags(run_id, tags)

    def mark_failed(self, run: dg.DagsterRun, why: str) -> None:
        self.instance.report_run_failed(run, why)

    def free_slots(self, run_id: str) -> None:
        self.instance.event_log_storage.free_concurrency_slots_for_run(run_id)

    def pool(self, pool: str) -> Any:
        """The pool's slots: ``active_run_ids``, ``claimed_slots`` (``run_id``, ``step_key``)."""
        return self.instance.event_log_storage.get_concurrency_info(pool)


def process_tags() -> dict[str, str]:
    """This process, as run tags: PID, host and start time (together: one process)."""
    return {
        PID_TAG: str(os.getpid()),
        HOST_TAG: socket.gethostname(),
        STARTED_TAG: processes.start_time(os.getpid()) or "",
    }


def _tag_run(context: dg.AssetExecutionContext) -> None:
    tags = process_tags()
    if context.run.tags.get(PID_TAG) != tags[PID_TAG]:
        Bookkeeping(context.instance).tag_run(context.run_id, tags)


@contextlib.contextmanager
def writing(context: dg.AssetExecutionContext, bvs: BvsResource) -> Iterator[None]:
    """Run a step that writes the warehouse: the run's process recorded, the writer lock
    held (re-entrant: under `bvs run` the command holds it already). A lock held elsewhere
    beyond the wait fails the step with one line naming the holder."""
    _tag_run(context)
    settings = bvs.settings()
    try:
        with writer_lock(
            settings,
            purpose=f"Dagster run {context.run_id[:8]} ({context.job_name})",
            step=context.op.name,
            on_wait=context.log.warning,
        ):
            yield
    except WarehouseBusy as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from None


def dead(tags: dict[str, str]) -> bool:
    """Whether the process a run's tags name is known to be gone (only on this host)."""
    pid, host = tags.get(PID_TAG), tags.get(HOST_TAG)
    if not pid or host != socket.gethostname():
        return False
    return not processes.alive(int(pid), tags.get(STARTED_TAG) or None)


def reap_dead_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark every unfinished run whose process is gone as failed and free its pool slots;
    free the slots a finished run still holds. Returns one line per run it cleared."""
    books = Bookkeeping(instance)
    cleared = []
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=list(UNFINISHED))):
        run = record.dagster_run
        if dead(dict(run.tags)):
            books.mark_failed(
                run,
                f"the run's process (PID {run.tags.get(PID_TAG)}) is gone: killed or crashed;"
                " marked failed and its pool slots freed",
            )
            books.free_slots(run.run_id)
            cleared.append(
                f"run {run.run_id[:8]} ({run.job_name}): process {run.tags.get(PID_TAG)} gone, marked failed"
            )
    for run_id in books.pool(POOL).active_run_ids:
        found = instance.get_run_by_id(run_id)
        if found is None or found.is_finished:
            books.free_slots(run_id)
            cleared.append(f"run {run_id[:8]}: finished, its pool slot freed")
    return cleared


def pool_holders(instance: dg.DagsterInstance) -> list[str]:
    """The live runs holding a slot of the pool, one line each."""
    lines = []
    for slot in Bookkeeping(instance).pool(POOL).claimed_slots:
        run = instance.get_run_by_id(slot.run_id)
        pid = run.tags.get(PID_TAG, "?") if run else "?"
        job = run.job_name if run else "?"
        lines.append(f"run {slot.run_id[:8]} ({job}, step {slot.step_key}, PID {pid})")
    return lines


@dg.sensor(
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "Marks a run whose process is gone (killed, crashed) as failed and frees its slots"
        " of the pool 'duckdb', so the next run does not wait for it forever."
    ),
)
def free_slots_of_dead_runs(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    cleared = reap_dead_runs(context.instance)
    for line in cleared:
        context.log.warning(line)
    return dg.SkipReason("; ".join(cleared) or "no dead run holds anything")
