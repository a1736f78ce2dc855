"""Plain helpers around the dbt project: where it is, its environment, its arguments.

Kept free of Dagster so they are unit-tested without running dbt.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

from pipelines.dbt_server import dbt_executable
from pipelines.settings import Settings

AS_OF_ENV = "BVS_AS_OF"  # "today" for dbt's age and recency rules (macros/as_of_date.sql)


def manifest_path(settings: Settings) -> Path:
    return settings.dbt_project_dir / "target" / "manifest.json"


def dbt_env(settings: Settings) -> dict[str, str]:
    """Variables profiles.yml reads; identical at parse and run so partial parsing holds."""
    return {
        "BVS_WAREHOUSE": str(settings.warehouse),
        "BVS_DUCKDB_MEMORY_LIMIT": settings.duckdb_memory_limit,
        "BVS_DUCKDB_TEMP_LIMIT": settings.duckdb_temp_limit,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }


def apply_dbt_env(settings: Settings, as_of: dt.date | None = None) -> None:
    """Export the dbt variables to this process (dagster-dbt starts dbt as a child process),
    with ``as_of`` as BVS_AS_OF: the `as_of_date()` macro reads it when dbt executes, not
    when it parses, so a new date keeps dbt's partial parse (a `--vars` change would not)."""
    os.environ.update(dbt_env(settings))
    if as_of is not None:
        os.environ[AS_OF_ENV] = as_of.isoformat()


def build_args(*, select: str | None = None) -> list[str]:
    args = ["build"]
    if select:
        args += ["--select", select]
    return args


def prepare_manifest(settings: Settings, *, force: bool = False) -> Path:
    """Run ``dbt parse`` when the manifest is missing or older than the project's files."""
    manifest = manifest_path(settings)
    if not force and manifest.exists():
        newest = max(
            p.stat().st_mtime
            for p in settings.dbt_project_dir.rglob("*")
            if p.is_file()
            and p.suffix in {".sql", ".yml", ".yaml", ".csv"}
            and "target" not in p.parts
            and "logs" not in p.parts
        )
        if manifest.stat().st_mtime >= newest:
            return manifest
    env = {**os.environ, **dbt_env(settings)}
    completed = subprocess.run(
        [
            dbt_executable(),
            "parse",
            "--project-dir",
            str(settings.dbt_project_dir),
            "--profiles-dir",
            str(settings.dbt_project_dir),
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"dbt parse failed:\n{completed.stdout}\n{completed.stderr}")
    return manifest
