"""Shared by the ledger end-to-end tests: a private copy of the pipeline world, and the `bvs
ledger` commands run as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

BVS = str(Path(sys.executable).with_name("bvs"))


def copy_world(world: dict, root: Path) -> dict[str, Any]:
    """The world's data folder copied under ``root`` (its landing, warehouse, snapshots),
    with an environment of its own."""
    data = root / "data"
    shutil.copytree(world["data"], data, symlinks=True)
    env = {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(root / "dagster_home"),
        "CI": "true",
    }
    return {"root": root, "data": data, "env": env, "planted": world["planted"]}


def bvs(
    args: list[str], env: dict[str, str], *, timeout: int = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BVS, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def ledger_run(env: dict[str, str], as_of: str, *more: str) -> list[dict[str, Any]]:
    result = bvs(["ledger", "run", "--as-of", as_of, *more], env)
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    return [json.loads(line) for line in result.stdout.splitlines()]


def show(env: dict[str, str], customer: str, *more: str) -> dict[str, Any]:
    result = bvs(["ledger", "show", "--customer", customer, *more], env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def changes(env: dict[str, str], customer: str, *more: str) -> list[dict[str, Any]]:
    result = bvs(["ledger", "changes", "--customer", customer, *more], env)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]
