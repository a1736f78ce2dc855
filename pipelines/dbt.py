"""Plain helpers around the dbt project: where it is, its environment, its arguments.

Kept free of Dagster so they are unit-tested without running dbt.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from pipelines.dbt_command import dbt_executable
from pipelines.settings import Settings

LEDGER_RUN_DIR_ENV = "BVS_LEDGER_RUN_DIR"  # macros/materializations/run_parquet.sql
AS_OF_ENV = "BVS_AS_OF"  # "today" for dbt's age and recency rules (macros/as_of_date.sql)
# dbt reads its partial parse from here (dbt's own flag): one file per profile, below
PARTIAL_PARSE_ENV = "DBT_PARTIAL_PARSE_FILE_PATH"


def manifest_path(settings: Settings) -> Path:
    return settings.dbt_project_dir / "target" / "manifest.json"


def _profile_env(settings: Settings) -> dict[str, str]:
    """The variables profiles.yml reads."""
    return {
        "BVS_WAREHOUSE": str(settings.warehouse),
        "BVS_DUCKDB_MEMORY_LIMIT": settings.duckdb_memory_limit,
        "BVS_DUCKDB_TEMP_LIMIT": settings.duckdb_temp_limit,
        "BVS_DBT_THREADS": str(settings.dbt_threads),
    }


def partial_parse_path(settings: Settings) -> Path:
    """The partial parse dbt reuses for this profile.

    dbt throws its partial parse away when the profile's connection differs from the one it
    was parsed with (a warehouse path, a memory limit), and parses the whole project again:
    about 5 s before each command. Every data folder (a deployment's, a test's, a benchmark's)
    has its own warehouse, so each profile keeps its own file, named by a hash of the
    profile's variables, and never spoils another's."""
    profile = json.dumps(_profile_env(settings), sort_keys=True).encode()
    key = hashlib.sha256(profile).hexdigest()[:16]
    return settings.dbt_project_dir / "target" / "partial_parse" / f"{key}.msgpack"


def dbt_env(settings: Settings) -> dict[str, str]:
    """Variables dbt reads; the profile's identical at parse and run so partial parsing
    holds, and this profile's partial parse once :func:`prepare_manifest` has written it
    (dbt refuses a flag naming a missing file)."""
    env = {**_profile_env(settings), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    partial = partial_parse_path(settings)
    if partial.exists():
        env[PARTIAL_PARSE_ENV] = str(partial)
    return env


def apply_dbt_env(
    settings: Settings, as_of: dt.date | None = None, *, ledger_run_dir: Path | None = None
) -> None:
    """Export the dbt variables to this process (dagster-dbt starts dbt as a child process),
    with ``as_of`` as BVS_AS_OF: the `as_of_date()` macro reads it when dbt executes, not
    when it parses, so a new date keeps dbt's partial parse (a `--vars` change would not).
    ``ledger_run_dir``: a ledger run's work folder, where its `run_parquet` models write
    (BVS_LEDGER_RUN_DIR, read the same way)."""
    os.environ.update(dbt_env(settings))
    if as_of is not None:
        os.environ[AS_OF_ENV] = as_of.isoformat()
    if ledger_run_dir is not None:
        os.environ[LEDGER_RUN_DIR_ENV] = str(ledger_run_dir)


def build_args(*, select: str | None = None) -> list[str]:
    args = ["build"]
    if select:
        args += ["--select", select]
    return args


def _newest_project_file(settings: Settings) -> float:
    """The newest change to the project's own files. dbt's output folders are not walked:
    ``target`` holds a folder per dbt command (a failed one's is kept to read), and walking
    them cost more than a second before every ledger run."""
    newest = 0.0
    for folder, subfolders, files in os.walk(settings.dbt_project_dir):
        if folder == str(settings.dbt_project_dir):
            subfolders[:] = [d for d in subfolders if d not in {"target", "logs"}]
        for name in files:
            if os.path.splitext(name)[1] in {".sql", ".yml", ".yaml", ".csv"}:
                newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime)
    return newest


def prepare_manifest(settings: Settings, *, force: bool = False) -> Path:
    """Run ``dbt parse`` when the manifest, or this profile's partial parse, is missing or
    older than the project's files.

    The parse writes to a scratch target and its results are moved into place by rename, so
    a process loading the manifest meanwhile (another run, Dagster's code server) never
    reads half a file."""
    manifest = manifest_path(settings)
    partial = partial_parse_path(settings)
    if not force and manifest.exists() and partial.exists():
        newest = _newest_project_file(settings)
        if min(manifest.stat().st_mtime, partial.stat().st_mtime) >= newest:
            return manifest
    target = manifest.parent
    scratch = target / f"parse-{os.getpid()}"
    env = {**os.environ, **dbt_env(settings)}
    if not partial.exists():
        env.pop(PARTIAL_PARSE_ENV, None)  # set by an earlier command of this process
    try:
        completed = subprocess.run(
            [
                dbt_executable(),
                "parse",
                "--project-dir",
                str(settings.dbt_project_dir),
                "--profiles-dir",
                str(settings.dbt_project_dir),
                "--target-path",
                str(scratch),
                "--quiet",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"dbt parse failed:\n{completed.stdout}\n{completed.stderr}")
        partial.parent.mkdir(parents=True, exist_ok=True)
        written = scratch / "partial_parse.msgpack"
        if written.exists():
            shutil.copyfile(written, scratch / "partial_parse.copy")
            os.replace(scratch / "partial_parse.copy", partial)
        else:
            # dbt writes no partial parse when it finds nothing changed: a project file was
            # only touched (a checkout, a stash), its content as the partial parse saw it.
            # The partial parse is current: mark it so, and hand dagster-dbt a copy of it.
            os.utime(partial)
            shutil.copyfile(partial, written)
        # dagster-dbt copies target/partial_parse.msgpack into each command's own target
        os.replace(written, target / "partial_parse.msgpack")
        os.replace(scratch / "manifest.json", manifest)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return manifest


def publish_keys(manifest: dict) -> dict[str, tuple[str, ...]]:
    """ "schema.table" -> key columns of every model whose config names its ``publish_key``
    (``meta: {publish_key: [abn]}``): the publish updates those tables in the snapshot by
    their changed keys' rows (pipelines/warehouse/snapshot/update.py)."""
    return _meta_columns(manifest, "publish_key")


def publish_orders(manifest: dict) -> dict[str, tuple[str, ...]]:
    """ "schema.table" -> the columns of ``meta: {publish_order: [...]}``: the snapshot copies
    the table whole in that order, and an update keeps one run in that order after the
    sorted one (the search index, whose lookups' zone maps prune a sorted run to a row
    group or two: docs/search.md)."""
    return _meta_columns(manifest, "publish_order")


def _meta_columns(manifest: dict, name: str) -> dict[str, tuple[str, ...]]:
    """ "schema.table" -> the columns a model's ``meta`` lists under ``name`` (one or a list)."""
    found: dict[str, tuple[str, ...]] = {}
    for node in manifest.get("nodes", {}).values():
        if node.get("resource_type") != "model":
            continue
        value = (node.get("config", {}).get("meta") or {}).get(name)
        if not value:
            continue
        columns = (value,) if isinstance(value, str) else tuple(str(column) for column in value)
        found[f"{node['schema']}.{node.get('alias') or node['name']}"] = columns
    return found
