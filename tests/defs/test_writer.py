"""No dead run holds anything: a killed run's pool slot is freed, its run marked failed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dagster as dg
from dagster import DagsterRunStatus
from dagster._core.test_utils import create_run_for_test  # tests only: Dagster's own helper

from pipelines.defs.resources import POOL
from pipelines.defs.writer import (
    PID_TAG,
    STARTED_TAG,
    UNFINISHED,
    Bookkeeping,
    free_slots_of_dead_runs,
    pool_holders,
    process_tags,
    reap_dead_runs,
)


def _instance(tmp_path: Path) -> dg.DagsterInstance:
    (tmp_path / "dagster_home").mkdir()
    instance = dg.DagsterInstance.local_temp(str(tmp_path / "dagster_home"))
    instance.event_log_storage.set_concurrency_slots(POOL, 1)  # as dagster.yaml's default_limit
    return instance


def _started_run(instance: dg.DagsterInstance, tags: dict[str, str]) -> str:
    run = create_run_for_test(
        instance, job_name="bvs_everything", tags=tags, status=DagsterRunStatus.STARTED
    )
    claim = instance.event_log_storage.claim_concurrency_slot(POOL, run.run_id, "ingest_abr")
    assert claim.is_claimed
    return run.run_id


def test_a_killed_runs_slot_is_freed_and_a_live_one_is_kept(tmp_path: Path) -> None:
    instance = _instance(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead_tags = {**process_tags(), PID_TAG: gone.stdout.strip(), STARTED_TAG: "1"}
    dead = _started_run(instance, dead_tags)
    assert instance.get_run_by_id(dead).status == DagsterRunStatus.STARTED  # type: ignore[union-attr]
    assert pool_holders(instance) and dead[:8] in pool_holders(instance)[0]
    # a second run of this home would wait for the slot forever: reaping frees it
    cleared = reap_dead_runs(instance)
    assert len(cleared) == 1 and "gone, marked failed" in cleared[0]
    assert instance.get_run_by_id(dead).status == DagsterRunStatus.FAILURE  # type: ignore[union-attr]
    assert pool_holders(instance) == []
    # a live run (this process) keeps its slot, whoever asks
    live = _started_run(instance, process_tags())
    assert reap_dead_runs(instance) == []
    assert live[:8] in pool_holders(instance)[0]
    # the sensor does the same for the Dagster UI's daemon
    with dg.build_sensor_context(instance=instance) as context:  # closed with the block
        skipped = free_slots_of_dead_runs(context)
    assert isinstance(skipped, dg.SkipReason)
    assert instance.get_run_by_id(live).status == DagsterRunStatus.STARTED  # type: ignore[union-attr]


def test_the_unfinished_statuses_are_dagsters() -> None:
    """``UNFINISHED`` is written out from the public status enum: an upgrade that adds a
    status, or moves one between finished and not, fails here."""
    from dagster._core.storage.dagster_run import NOT_FINISHED_STATUSES  # the check only

    assert set(UNFINISHED) == set(NOT_FINISHED_STATUSES)


def test_the_dagster_internals_the_writer_uses_are_where_it_reaches_them(tmp_path: Path) -> None:
    """Every instance method ``Bookkeeping`` reaches that Dagster does not mark public is
    still there under that name; and what the rest of the module calls is public."""
    from dagster._annotations import is_public  # the check only

    instance = _instance(tmp_path)
    for name in Bookkeeping.INTERNAL:
        found: object = instance
        for part in name.split(".")[1:]:
            assert hasattr(found, part), f"Dagster {dg.__version__} moved {name}: fix Bookkeeping"
            found = getattr(found, part)
        assert callable(found), name
    for method in (dg.DagsterInstance.get_run_records, dg.DagsterInstance.get_run_by_id):
        assert is_public(method), method
    assert is_public(dg.DagsterRun.is_finished)
