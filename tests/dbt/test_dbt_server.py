"""The warm dbt (``bvs dbt-server`` and its clients ``bvs-dbt`` and ``bvs ledger run``)
behaves as dbt, and the command, do on their own.

Each test starts a real server on a Unix socket in ``tmp_path`` and runs the real client
executable, comparing with the real ``dbt`` of this environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from pipelines.dbt_server import FINGERPRINTED, PACKAGE, SERVER_ENV, hand_over
from pipelines.settings import PROJECT_ROOT

BIN = Path(sys.executable).parent
DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"


@dataclass
class Server:
    socket: Path
    process: subprocess.Popen[str]

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, SERVER_ENV: str(self.socket), **extra}

    def commands(self) -> list[str]:
        """What the server has logged so far: one line per command it ran."""
        self.process.terminate()
        _, err = self.process.communicate(timeout=30)
        return [line for line in err.splitlines() if line.startswith(("dbt ", "bvs "))]


def _start(socket: Path) -> Server:
    process = subprocess.Popen(
        [str(BIN / "bvs"), "dbt-server", "--socket", str(socket), "--dbt-only"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready = process.stdout.readline()  # printed once dbt is imported and the socket listens
    assert ready.startswith("dbt server ready"), ready
    return Server(socket, process)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = _start(tmp_path / "dbt.sock")
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def _run(
    command: list[str], env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_command_runs_in_the_server_with_dbts_output_and_exit_code(server: Server) -> None:
    direct = _run([str(BIN / "dbt"), "--version"], dict(os.environ))
    warm = _run([str(BIN / "bvs-dbt"), "--version"], server.env())
    assert warm.returncode == direct.returncode == 0
    assert warm.stdout == direct.stdout
    bad_direct = _run([str(BIN / "dbt"), "no-such-command"], dict(os.environ))
    bad_warm = _run([str(BIN / "bvs-dbt"), "no-such-command"], server.env())
    assert bad_warm.returncode == bad_direct.returncode == 2  # click's usage error
    assert bad_warm.stderr == bad_direct.stderr
    ran = [line.rsplit(" (pid", 1)[0] for line in server.commands()]
    assert ran == ["dbt --version", "dbt no-such-command"]  # both ran in the server


def test_the_callers_environment_and_folder_are_dbts(server: Server, tmp_path: Path) -> None:
    """No --project-dir: dbt finds the project in the caller's folder; DBT_LOG_FORMAT and the
    profile's BVS_WAREHOUSE come from the caller's environment, not the server's."""
    env = server.env(
        BVS_WAREHOUSE=str(tmp_path / "w.duckdb"),
        DBT_LOG_FORMAT="json",
        DBT_PROFILES_DIR=str(DBT_PROJECT_DIR),
        DBT_SEND_ANONYMOUS_USAGE_STATS="false",
    )
    done = _run([str(BIN / "bvs-dbt"), "debug", "--connection"], env, cwd=DBT_PROJECT_DIR)
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events and all("info" in e for e in events)  # dbt's JSON log lines
    assert (tmp_path / "w.duckdb").exists()  # the connection test opened the caller's file
    # the client returned once dbt's process had exited: the warehouse's lock is free
    duckdb.connect(str(tmp_path / "w.duckdb")).close()
    assert "leaked" not in done.stderr  # exit handlers ran (multiprocessing's clean-up)


def test_commands_at_the_same_time_each_get_their_own_process(server: Server) -> None:
    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda _: _run([str(BIN / "bvs-dbt"), "--version"], server.env()), range(4))
        )
    assert [r.returncode for r in results] == [0] * 4
    assert len({r.stdout for r in results}) == 1
    pids = {line.rsplit("(pid ", 1)[1] for line in server.commands()}
    assert len(pids) == 4


def test_without_a_server_the_client_is_dbt(tmp_path: Path) -> None:
    direct = _run([str(BIN / "dbt"), "--version"], dict(os.environ))
    for env in (
        {k: v for k, v in os.environ.items() if k != SERVER_ENV},  # not configured
        {**os.environ, SERVER_ENV: str(tmp_path / "gone.sock")},  # configured, not running
    ):
        done = _run([str(BIN / "bvs-dbt"), "--version"], env)
        assert (done.returncode, done.stdout) == (0, direct.stdout)


def test_a_reinstalled_dbt_stops_the_server_and_the_command_still_runs(server: Server) -> None:
    from importlib import metadata

    folder = Path(str(metadata.distribution(FINGERPRINTED[0])._path))  # type: ignore[attr-defined]
    before = folder.stat()
    try:
        os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        done = _run([str(BIN / "bvs-dbt"), "--version"], server.env())
        assert done.returncode == 0 and "Core:" in done.stdout  # run by dbt itself
        deadline = time.monotonic() + 30
        while server.process.poll() is None:
            assert time.monotonic() < deadline, "the stale server did not stop"
            time.sleep(0.05)
        assert not server.socket.exists()
    finally:
        os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_project_parsed_and_run_in_the_server_builds_its_models(
    server: Server, tmp_path: Path
) -> None:
    """A project of its own, parsed from nothing in the child (dbt's static parser, which has
    threads of its own, runs there), then run: the table is in the caller's warehouse and its
    lock is free when the client returns."""
    project = _tiny_project(
        tmp_path, "{{ config(materialized='table') }}\nselect range as n from range(5)\n"
    )
    warehouse = tmp_path / "tiny.duckdb"
    env = server.env(TINY_WAREHOUSE=str(warehouse), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    for command in ("parse", "run"):
        done = _run(
            [str(BIN / "bvs-dbt"), command, "--profiles-dir", str(project)], env, cwd=project
        )
        assert done.returncode == 0, done.stdout + done.stderr
    with duckdb.connect(str(warehouse)) as con:  # read-write: nobody holds it any more
        assert con.execute("select sum(n) from numbers").fetchone() == (10,)
    ran = [line.rsplit(" (pid", 1)[0] for line in server.commands()]
    assert ran == [f"dbt parse --profiles-dir {project}", f"dbt run --profiles-dir {project}"]


def test_a_malformed_request_is_dropped_and_the_server_goes_on(server: Server) -> None:
    import socket

    for garbage in (b"", b"not a request", b"\x00" * 8 + b"{}"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            raw.connect(str(server.socket))
            raw.sendall(garbage)
    done = _run([str(BIN / "bvs-dbt"), "--version"], server.env())
    assert done.returncode == 0 and "Core:" in done.stdout
    assert [line.rsplit(" (pid", 1)[0] for line in server.commands()] == ["dbt --version"]


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


def test_a_killed_client_takes_its_command_with_it(server: Server, tmp_path: Path) -> None:
    """A client stopped by a signal relays it; one killed outright (SIGKILL) cannot, so the
    server kills the command when the client's connection closes: a killed run leaves no
    dbt writing the warehouse, as when dbt is its own child."""
    project = _tiny_project(
        tmp_path,
        "{{ config(materialized='table') }}\n"
        "select count(*) as n from range(1000000000000) t(i) where i % 7 = 3\n",
    )
    warehouse = tmp_path / "tiny.duckdb"
    env = server.env(TINY_WAREHOUSE=str(warehouse), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    client = subprocess.Popen(
        [str(BIN / "bvs-dbt"), "run", "--profiles-dir", str(project)],
        env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert client.stdout is not None
    for line in client.stdout:  # dbt is running the endless model
        if "START sql table model" in line:
            break
    client.kill()
    client.wait()
    deadline = time.monotonic() + 30
    while True:
        try:
            with duckdb.connect(str(warehouse)) as con:  # read-write: dbt let go of it
                con.execute("select 1")
            break
        except duckdb.IOException:
            assert time.monotonic() < deadline, "the command outlived its killed client"
            time.sleep(0.1)
    assert [line.rsplit(" (pid", 1)[0] for line in server.commands()] == [
        f"dbt run --profiles-dir {project}"
    ]


def test_bvs_ledger_run_runs_in_the_server_as_it_runs_alone(server: Server, tmp_path: Path) -> None:
    """`bvs ledger run` goes to the server (Dagster and dagster-dbt already imported there)
    and answers exactly as the command run alone does."""
    alone_env = {k: v for k, v in os.environ.items() if k != SERVER_ENV}
    alone_env |= {"BVS_DATA_DIR": str(tmp_path / "data"), "DAGSTER_HOME": str(tmp_path / "home")}
    command = [str(BIN / "bvs"), "ledger", "run", "--customer", "nobody"]
    alone = _run(command, alone_env)
    warm = _run(command, {**alone_env, SERVER_ENV: str(server.socket)})
    assert warm.returncode == alone.returncode != 0
    assert (warm.stdout, warm.stderr) == (alone.stdout, alone.stderr)
    assert "nobody" in warm.stderr
    ran = [line.rsplit(" (pid", 1)[0] for line in server.commands()]
    assert ran == ["bvs ledger run --customer nobody"]


def test_a_bvs_command_the_server_does_not_run_runs_itself(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another checkout's `bvs` (the server would run its own code), or a command that is
    not warmed: the client is told to run it itself (None), and the server goes on."""
    monkeypatch.setenv(SERVER_ENV, str(server.socket))
    assert hand_over("bvs", ["ledger", "run"], package="/another/checkout/pipelines") is None
    assert hand_over("bvs", ["keys", "list"], package=str(PACKAGE)) is None
    done = _run([str(BIN / "bvs-dbt"), "--version"], server.env())
    assert done.returncode == 0 and "Core:" in done.stdout
    assert [line.rsplit(" (pid", 1)[0] for line in server.commands()] == ["dbt --version"]
