"""``bvs-dbt`` (pipelines/dbt_command.py), the dbt Dagster runs: this environment's dbt,
which dies with the process that started it.

Real executables on a tiny dbt project of the test's own in ``tmp_path``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb

from pipelines import processes

BIN = Path(sys.executable).parent


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[call-overload,no-any-return]


def _tiny_project(root: Path, sql: str) -> Path:
    project = root / "project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: tiny\nversion: '1.0'\nprofile: tiny\nconfig-version: 2\n"
    )
    (project / "profiles.yml").write_text(
        "tiny:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        "      path: \"{{ env_var('TINY_WAREHOUSE') }}\"\n      threads: 1\n"
    )
    (project / "models" / "numbers.sql").write_text(sql)
    return project


def test_bvs_dbt_answers_as_dbt_with_dbts_exit_code() -> None:
    for args in (["--version"], ["no-such-command"]):
        direct = _run([str(BIN / "dbt"), *args])
        wrapped = _run([str(BIN / "bvs-dbt"), *args])
        assert (wrapped.returncode, wrapped.stdout) == (direct.returncode, direct.stdout)
    assert direct.returncode != 0


def test_a_project_runs_through_bvs_dbt_and_its_warehouse_is_free_after(tmp_path: Path) -> None:
    project = _tiny_project(
        tmp_path, "{{ config(materialized='table') }}\nselect range as n from range(5)\n"
    )
    warehouse = tmp_path / "tiny.duckdb"
    env = {
        **os.environ,
        "TINY_WAREHOUSE": str(warehouse),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    done = _run([str(BIN / "bvs-dbt"), "run", "--profiles-dir", str(project)], env=env, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    with duckdb.connect(str(warehouse)) as con:  # read-write: nobody holds it any more
        assert con.execute("select sum(n) from numbers").fetchone() == (10,)


def test_the_dbt_of_a_run_killed_outright_stops_writing(tmp_path: Path) -> None:
    """A run (here a Python process, as Dagster's) starts ``bvs-dbt run`` on an endless model
    and is killed with SIGKILL: its dbt dies too and lets go of the warehouse, where a plain
    ``dbt`` would go on writing it."""
    project = _tiny_project(
        tmp_path,
        "{{ config(materialized='table') }}\n"
        "select count(*) as n from range(1000000000000) t(i) where i % 7 = 3\n",
    )
    warehouse = tmp_path / "tiny.duckdb"
    pid_file = tmp_path / "dbt.pid"
    env = {
        **os.environ,
        "TINY_WAREHOUSE": str(warehouse),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    run = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import subprocess, time
                dbt = subprocess.Popen(
                    [{str(BIN / "bvs-dbt")!r}, "run", "--profiles-dir", {str(project)!r}],
                    cwd={str(project)!r}, stdout=subprocess.PIPE, text=True,
                )
                for line in dbt.stdout:  # dbt is running the endless model
                    if "START sql table model" in line:
                        break
                open({str(pid_file)!r}, "w").write(str(dbt.pid))
                time.sleep(600)
                """
            ),
        ],
        env=env,
    )
    deadline = time.monotonic() + 120
    while not (pid_file.exists() and pid_file.read_text()):
        assert run.poll() is None and time.monotonic() < deadline, "dbt never started the model"
        time.sleep(0.1)
    dbt = int(pid_file.read_text())
    assert processes.alive(dbt)
    run.kill()
    run.wait()
    deadline = time.monotonic() + 30  # a loaded machine schedules the dying dbt late
    while processes.alive(dbt) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not processes.alive(dbt), "the dbt of a killed run went on"
    while True:  # its last threads end after the process shows as gone
        try:
            with duckdb.connect(str(warehouse)) as con:  # read-write: dbt let go of it
                con.execute("select 1")
            break
        except duckdb.IOException:
            assert time.monotonic() < deadline, "the dbt of a killed run held the warehouse"
            time.sleep(0.1)
