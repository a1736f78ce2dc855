"""The real `dbt` of this environment, run on a benchmark's own warehouse and target folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "dbt_project"
AS_OF = "2026-11-20"


def run_dbt(warehouse: Path, work: Path, *args: str, as_of: str = AS_OF, dbt: str = "dbt") -> float:
    """Run `dbt <args>` against `warehouse` (output under `work`) as of `as_of` (BVS_AS_OF, as
    the pipeline passes it: a new date keeps dbt's partial parse); the wall seconds.

    ``dbt="bvs-dbt"``: the command Dagster runs (``pipelines/dbt_command.py``)."""
    env = os.environ | {
        "BVS_WAREHOUSE": str(warehouse),
        "BVS_AS_OF": as_of,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    started = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).parent / dbt), *args,
            "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT),
            "--target-path", str(work / "target"), "--log-path", str(work / "logs"),
            "--quiet",
        ],
        env=env, cwd=work, check=True,
    )  # fmt: skip
    return time.perf_counter() - started


def model_seconds(work: Path) -> dict[str, float]:
    """Seconds per node of the last dbt command in `work`, slowest first."""
    results = json.loads((work / "target" / "run_results.json").read_text())["results"]
    return {
        r["unique_id"].split(".")[-1]: round(r["execution_time"], 1)
        for r in sorted(results, key=lambda r: -r["execution_time"])
    }
