"""The warehouse's writer lock and DuckDB's own lock: one writer, a dead one holds nothing,
a conflict is one line naming the holder; a run's children die with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pipelines import processes
from pipelines.settings import Settings
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.lock import WarehouseBusy, describe, holder, writer_lock


def _holding(settings: Settings, dagster_home: str, code: str = "") -> subprocess.Popen[str]:
    """Another process holding the writer lock (as a run of another Dagster home would)."""
    script = textwrap.dedent(
        f"""
        import sys, time
        from pipelines.settings import get_settings
        from pipelines.warehouse.lock import writer_lock
        settings = get_settings(data_dir={str(settings.data_dir)!r})
        with writer_lock(settings, purpose="bvs run --as-of 2026-11-20", step="dbt_models"):
            {code or "pass"}
            print("held", flush=True)
            time.sleep(60)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "DAGSTER_HOME": dagster_home},
    )
    assert child.stdout is not None and child.stdout.readline() == "held\n"
    return child


def test_a_second_writer_is_refused_naming_the_holder_and_a_killed_one_holds_nothing(
    settings: Settings,
) -> None:
    other = _holding(settings, "/elsewhere/dagster_home")
    try:
        record = holder(settings)
        assert record is not None and record["pid"] == other.pid
        started = time.monotonic()
        waits: list[str] = []
        with (
            pytest.raises(WarehouseBusy) as refused,
            writer_lock(settings, wait=0.5, on_wait=waits.append),
        ):
            pass
        assert time.monotonic() - started < 5
        message = str(refused.value)
        assert "\n" not in message
        assert f"PID {other.pid} (bvs run --as-of 2026-11-20, now at dbt_models" in message
        assert "DAGSTER_HOME /elsewhere/dagster_home" in message
        assert f"kill {other.pid}" in message
        assert waits and f"held by PID {other.pid}" in waits[0]
    finally:
        other.send_signal(signal.SIGKILL)
        other.wait()
    # the kernel released the dead holder's lock: taken at once, re-entrant in-process
    assert holder(settings) is None
    with writer_lock(settings, wait=0, step="ingest_abr"):
        with writer_lock(settings, wait=0, step="dbt_models"):
            record = holder(settings)
            assert record is not None and record["pid"] == os.getpid()
            assert record["step"] == "dbt_models"
        assert _read(settings)["step"] == "ingest_abr"
    # between two steps the run says which it finished last
    with writer_lock(settings, wait=0, purpose="bvs run"):
        with writer_lock(settings, wait=0, step="dbt_models"):
            pass
        between = _read(settings)
        assert between["step"] is None and between["last_step"] == "dbt_models"
        assert "(bvs run, between steps, after dbt_models, since " in describe(between)


def _read(settings: Settings) -> dict:
    import json

    from pipelines.warehouse.lock import lock_path

    return json.loads(lock_path(settings).read_text())


def test_an_open_duckdb_connection_is_one_line_naming_its_process(settings: Settings) -> None:
    """An analyst's read-only connection holds DuckDB's own lock: the writer's error says
    which process and what to do, in one line."""
    with warehouse(settings) as con:
        con.execute("create table t as select 1 as a")
    analyst = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=True);"
            " print('open', flush=True); time.sleep(60)",
            str(settings.warehouse),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert analyst.stdout is not None and analyst.stdout.readline() == "open\n"
        quick = settings.model_copy(update={"writer_wait_seconds": 0.5})
        with pytest.raises(WarehouseBusy) as busy:
            warehouse(quick).__enter__()
        message = str(busy.value)
        assert "\n" not in message
        assert f"is open in PID {analyst.pid} (python" in message
        assert f"kill {analyst.pid}" in message and "serving snapshot" in message
    finally:
        analyst.kill()
        analyst.wait()
    with warehouse(settings) as con:  # gone: the writer opens it
        assert con.execute("select a from t").fetchone() == (1,)


def test_a_child_set_to_die_with_its_parent_dies_with_a_killed_parent(tmp_path: Path) -> None:
    """What bvs-dbt does first: the dbt of a run killed with -9 does not go on writing."""
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import subprocess, sys, time
                child = subprocess.Popen([sys.executable, "-c",
                    "import os, time; from pipelines.processes import die_with_parent;"
                    " die_with_parent(); open({str(pid_file)!r}, 'w').write(str(os.getpid()));"
                    " time.sleep(60)"])
                time.sleep(60)
                """
            ),
        ]
    )
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    assert processes.alive(child)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30  # a loaded CI machine schedules the child late
    while processes.alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    status = Path(f"/proc/{child}/status")
    assert not processes.alive(child), status.read_text() if status.exists() else "gone"


def test_the_death_signal_kills_a_child_that_inherited_it_ignored(tmp_path: Path) -> None:
    """A child started with SIGTERM ignored (inherited across exec) still dies with its
    parent: die_with_parent makes the signal deadly again."""
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import signal, subprocess, sys, time
                signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the child
                child = subprocess.Popen([sys.executable, "-c",
                    "import os, time; from pipelines.processes import die_with_parent;"
                    " die_with_parent(); open({str(pid_file)!r}, 'w').write(str(os.getpid()));"
                    " time.sleep(60)"])
                time.sleep(60)
                """
            ),
        ]
    )
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while processes.alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not processes.alive(child)


def test_exit_now_runs_the_exit_handlers_and_flushes_the_streams() -> None:
    """The `bvs` command ends with exit_now (no interpreter teardown): the exit code, what
    was buffered on stdout and stderr, and the exit handlers' output all still arrive."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import atexit, sys
                from pipelines.processes import exit_now
                atexit.register(lambda: print("handler ran"))
                sys.stdout.write("x" * 100_000)
                sys.stderr.write("to stderr")
                exit_now(3)
                print("not reached")
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3
    assert done.stdout == "x" * 100_000 + "handler ran\n"
    assert done.stderr == "to stderr"
