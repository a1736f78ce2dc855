"""`dagster dev -w workspace.yaml` as a data engineer runs it: from an activated virtual
environment, with none of the Makefile's variables (BVS_WAREHOUSE, BVS_DATA_DIR), the code
location loads with every asset, check, schedule and sensor of ``pipelines.definitions``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import dagster as dg

from pipelines.definitions import defs

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)
STARTUP_SECONDS = 300  # about 25 s on 2 idle cores, 2 minutes on a machine busy with other tests

LOCATION_QUERY = """
{ workspaceOrError { __typename
    ... on Workspace { locationEntries { name loadStatus locationOrLoadError { __typename
      ... on PythonError { message stack }
      ... on RepositoryLocation { repositories { name
        assetNodes { assetKey { path }
          assetChecksOrError { __typename ... on AssetChecks { checks { name } } } }
        schedules { name }
        sensors { name } } } } } } } }
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _engineer_env(dagster_home: Path) -> dict[str, str]:
    """A shell after `source .venv/bin/activate`: the environment's bin first on PATH, no
    BVS_* or dbt variable exported (the Makefile's), its own DAGSTER_HOME."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BVS_", "DBT_", "DAGSTER_", "VIRTUAL_ENV"))
    }
    env["PATH"] = os.pathsep.join([str(VENV / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    env["VIRTUAL_ENV"] = str(VENV)
    env["DAGSTER_HOME"] = str(dagster_home)
    env["DAGSTER_DISABLE_TELEMETRY"] = "1"
    return env


def _query(url: str) -> dict | None:
    request = urllib.request.Request(
        url,
        data=json.dumps({"query": LOCATION_QUERY}).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None  # not serving yet


def _loaded_location(url: str, server: subprocess.Popen, log: Path) -> dict:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert server.poll() is None, f"dagster dev exited:\n{log.read_text()[-4000:]}"
        answer = _query(url)
        if answer is not None:
            entries = answer["data"]["workspaceOrError"]["locationEntries"]
            (entry,) = entries
            if entry["loadStatus"] == "LOADED":
                location = entry["locationOrLoadError"]
                assert location["__typename"] == "RepositoryLocation", location
                return location
        time.sleep(0.5)
    raise AssertionError(f"the code location did not load:\n{log.read_text()[-4000:]}")


def test_dagster_dev_loads_every_definition_without_the_makefile(tmp_path: Path) -> None:
    port = _free_port()
    (tmp_path / "dagster_home").mkdir()
    log = tmp_path / "dagster-dev.log"
    with log.open("w") as out:
        server = subprocess.Popen(  # noqa: S603  (this environment's dagster, fixed arguments)
            ["dagster", "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
            cwd=ROOT,
            env=_engineer_env(tmp_path / "dagster_home"),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its webserver and daemon in its group, to kill with it
        )
    try:
        location = _loaded_location(f"http://127.0.0.1:{port}/graphql", server, log)
    finally:
        server.send_signal(signal.SIGINT)  # how dagster dev stops cleanly (no orphans)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:  # a loaded machine: the webserver and daemon too
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()

    (repository,) = location["repositories"]
    served_assets = {"/".join(node["assetKey"]["path"]) for node in repository["assetNodes"]}
    served_checks = {
        ("/".join(node["assetKey"]["path"]), check["name"])
        for node in repository["assetNodes"]
        for check in node["assetChecksOrError"].get("checks", [])
    }
    graph = defs.resolve_asset_graph()
    assert served_assets == {key.to_user_string() for key in graph.get_all_asset_keys()}
    expected_checks = {(key.asset_key.to_user_string(), key.name) for key in graph.asset_check_keys}
    assert served_checks == expected_checks
    assert len(served_checks) > 100  # the dbt tests and the ingest checks, not an empty set
    assert {s["name"] for s in repository["schedules"]} == {
        s.name for s in defs.schedules or [] if isinstance(s, dg.ScheduleDefinition)
    }
    assert {s["name"] for s in repository["sensors"]} == {
        s.name for s in defs.sensors or [] if isinstance(s, dg.SensorDefinition)
    }
