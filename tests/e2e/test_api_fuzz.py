"""schemathesis against the API's OpenAPI document, over HTTP on 127.0.0.1, as `st run` runs
it: its examples, coverage, fuzzing and stateful phases with every check, a fixed seed.

Every check must pass: no 5xx, no status, content type, header or body the document does
not declare, no input the document allows refused (the parameters declare what the
handlers accept: pipelines/api/params.py) and none it forbids accepted, 405 with `Allow`
for the methods it does not list, 401 without a key. The document's own string formats
(an ABN with valid check digits, a list of them) get strategies of their own
(tests/api/schemathesis_hooks.py), some of them ABNs the snapshot holds. The key is on the
Enterprise plan with raised limits, so the run exercises the endpoints, not 429s.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from api_server import Api, Clock, data_copy, serve

from pipelines.settings import PROJECT_ROOT, get_settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key
from pipelines.warehouse.snapshot import current_snapshot

pytestmark = pytest.mark.slow

ST = str(Path(sys.executable).with_name("st"))
SEED = 20261120
EXAMPLES = 10  # per operation and phase: about 740 cases, 20 s on two cores


@pytest.fixture(scope="module")
def fuzz_server(
    pipeline_world: dict, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Api, str]]:
    data = data_copy(pipeline_world["data"], tmp_path_factory.mktemp("fuzz") / "data")
    limits = json.dumps({"enterprise": {"per_minute": 10**6, "per_hour": 10**6, "per_day": 10**6}})
    config = get_settings(data_dir=data, plan_limits=limits)
    with state_store(config) as engine:
        key, _ = create_key(engine, "fuzz", "enterprise")
    for api in serve(config, Clock(dt.datetime.now(dt.UTC))):
        yield api, key


def _held_abns(api: Api) -> list[str]:
    info = current_snapshot(api.settings)
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        rows = con.execute(
            "(select abn from marts.verifications where flag_count > 0 order by abn limit 5)"
            " union all (select abn from marts.phoenix_links order by abn limit 5)"
            " union all (select abn from marts.verifications order by abn limit 5)"
        ).fetchall()
    finally:
        con.close()
    return sorted({r[0] for r in rows})


def test_schemathesis_finds_no_failure(fuzz_server: tuple[Api, str], tmp_path: Path) -> None:
    """Run in a folder of its own with no example database: st keeps the failures it found
    under the working folder and replays them first, which would make runs differ."""
    api, key = fuzz_server
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.api.schemathesis_hooks",
        "BVS_FUZZ_ABNS": ",".join(_held_abns(api)),
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    run = subprocess.run(
        [
            ST, "run", f"{api.url}/openapi.json",
            "--header", f"Authorization: Bearer {key}",
            "--checks", "all", "--seed", str(SEED), "--max-examples", str(EXAMPLES),
            "--generation-database", "none", "--no-color",
        ],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-20000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", report)
    assert cases is not None, report[-5000:]
    assert int(cases.group(1)) >= 300 and cases.group(1) == cases.group(2), report[-5000:]
    operations = re.search(r"Operations:\s+(\d+) selected / (\d+) total", report)
    assert operations is not None, report[-5000:]
    assert operations.group(1) == operations.group(2) and int(operations.group(1)) >= 14
