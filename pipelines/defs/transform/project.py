"""The dbt project as Dagster sees it: paths, the naming policy, the CLI resource. Nothing
is parsed here but under `dagster dev` or in a fresh clone, and no asset is built (the register models: ``dbt.py``; the supplier
ledgers': ``defs/ledgers``), so each area imports only what it needs."""

import fcntl
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import (
    DagsterDbtTranslator,
    DagsterDbtTranslatorSettings,
    DbtCliInvocation,
    DbtCliResource,
    DbtProject,
    DbtProjectPreparer,
)
from dagster_shared.record import replace
from packaging import version

from pipelines.dbt import prepare_manifest
from pipelines.dbt_server import dbt_executable
from pipelines.settings import DBT_PROJECT_DIR, get_settings


class BvsDbtProjectPreparer(DbtProjectPreparer):
    """Parses the project as `make prepare` and `bvs run` do (``pipelines.dbt.prepare_manifest``):
    with the settings' defaults for what profiles.yml reads (BVS_WAREHOUSE and the DuckDB
    bounds, as ``bvs`` sets them) and this environment's dbt, so `dagster dev`, `dagster
    definitions validate` and `dagster-dbt project prepare-and-package` need no exported
    variable and no activated environment. dagster-dbt's own preparer runs the ``dbt`` on
    PATH with the caller's environment, and fails on both counts."""

    def prepare_if_dev(self, project: DbtProject) -> None:
        # under `dagster dev` (DAGSTER_IS_DEV_CLI): when the project's files are newer than
        # the manifest; anywhere else: only when there is no manifest at all (a fresh clone),
        # so loading the definitions never re-parses a prepared project.
        if self.using_dagster_dev() or not project.manifest_path.exists():
            self.prepare(project)

    def prepare(self, project: DbtProject) -> None:
        settings = get_settings(dbt_project_dir=project.project_dir)
        project.manifest_path.parent.mkdir(parents=True, exist_ok=True)

        # several processes may load the definitions at once (`dagster dev`): one parses
        once(project.manifest_path, lambda: prepare_manifest(settings))


def once(target: Path, update: Callable[[], object]) -> None:
    """Run ``update``, which rewrites ``target``, in one process at a time; a process that
    waited while another rewrote it does not rewrite it again."""
    before = target.stat().st_mtime_ns if target.exists() else 0
    with open(target.with_suffix(".concurrent-update-lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if target.exists() and target.stat().st_mtime_ns > before:
                return
            update()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# Paths only; the manifest is prepared before definitions load (`make prepare`, `bvs run`),
# under `dagster dev`, or here once when a fresh clone has none (BvsDbtProjectPreparer).
dbt_project = replace(
    DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR),
    preparer=BvsDbtProjectPreparer(),
)
dbt_project.prepare_if_dev()


def _layer(dbt_resource_props: Mapping[str, Any]) -> str:
    """Models: their folder under models/ (= schema). Snapshots and seeds: their own schema."""
    if dbt_resource_props.get("resource_type") == "snapshot":
        return "snapshots"
    if dbt_resource_props.get("resource_type") == "seed":
        return "seeds"
    fqn = dbt_resource_props.get("fqn", [])
    return fqn[1] if len(fqn) > 2 else "marts"


def source_key(dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
    """A dbt source table's asset key: its warehouse address, ``[schema, identifier]`` (dbt
    sets the identifier to the table's name when the YAML gives none)."""
    return dg.AssetKey(
        [
            dbt_resource_props["schema"],
            dbt_resource_props.get("identifier") or dbt_resource_props["name"],
        ]
    )


class BvsTranslator(DagsterDbtTranslator):
    """The naming policy: an asset key is a warehouse address. Models and snapshots are
    keyed by schema and name, grouped by layer; a source table by its schema and identifier,
    the key of the Python asset that writes it (``raw.abr__abns`` is ``["raw", "abr__abns"]``,
    as the ingest assets key the tables declared in ``pipelines.ingest.sources``), so the
    sources' YAML needs no ``meta.dagster.asset_key``."""

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        if dbt_resource_props["resource_type"] == "source":
            return source_key(dbt_resource_props)
        return dg.AssetKey([_layer(dbt_resource_props), dbt_resource_props["name"]])

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        return _layer(dbt_resource_props)


translator = BvsTranslator(settings=DagsterDbtTranslatorSettings(enable_asset_checks=True))


class BvsDbtCliResource(DbtCliResource):
    """The dbt CLI resource without dagster-dbt's in-process handle on the dbt adapter.

    Before each dbt command dagster-dbt imports dbt-core into the run's own process, loads
    the profile and opens an adapter, about 2.5 s per step, only so that an asset may ask
    for its columns' metadata or row counts afterwards (`fetch_column_metadata`,
    `fetch_row_counts`). No asset of this project asks, and the dbt command itself runs in
    its own process (or the warm dbt) either way; a nightly ledger run is one such step.
    """

    def _initialize_dbt_core_adapter(self, args: Sequence[str]) -> Any:
        return None

    @cached_property
    def _cli_version(self) -> version.Version:
        """The dbt that runs is this environment's (``bvs-dbt``: the warm dbt or ``dbt``
        itself), so its version is the installed dbt-core's: dagster-dbt would otherwise
        start ``dbt --version`` before a run's first dbt command (0.3 s a night)."""
        return version.parse(metadata.version("dbt-core"))


def dbt_resource() -> DbtCliResource:
    # this environment's bvs-dbt: dbt itself, or the warm dbt when BVS_DBT_SERVER names a
    # running one (pipelines/dbt_server.py)
    return BvsDbtCliResource(
        # DbtCliResource's own __init__ takes a DbtProject; mypy sees the subclass's fields
        project_dir=dbt_project,  # type: ignore[arg-type]
        profiles_dir=str(DBT_PROJECT_DIR),
        dbt_executable=dbt_executable("bvs-dbt"),
        # dbt would write the whole manifest (2 MB of JSON) and its run results into each
        # command's folder, which nothing reads (Dagster takes dbt's events from its log
        # lines) and stream_and_tidy deletes: about 2 s of every command, a tenth of a
        # nightly ledger run. A failed command's folder keeps dbt's log and compiled SQL.
        global_config_flags=["--no-write-json"],
    )


# the folders of failed dbt commands kept to read (the newest; older ones are removed)
FAILED_COMMANDS_KEPT = 20
# dagster-dbt's name for a command's folder: <op name>-<run id[:7]>-<uuid[:7]>
_COMMAND_FOLDER = re.compile(r"^\w+-[0-9a-f]{7}-[0-9a-f]{7}$")


def stream_and_tidy(invocation: DbtCliInvocation) -> Iterator[Any]:
    """A dbt command's Dagster events; then its own target folder is removed.

    dagster-dbt gives every command a folder of its own under ``dbt_project/target``
    (manifest, compiled SQL, run results: about 8 MB), and leaves it: a nightly ledger run
    per customer filled gigabytes within weeks. Once the events are streamed nothing reads
    it again. A command that fails keeps its folder (dbt's log and compiled SQL, to see
    why), the newest :data:`FAILED_COMMANDS_KEPT` of them."""
    # dbt ran in the project folder: a relative target path is relative to it
    folder = Path(invocation.project_dir) / invocation.target_path
    succeeded = False
    try:
        yield from invocation.stream()
        succeeded = True
    finally:
        if succeeded:
            shutil.rmtree(folder, ignore_errors=True)
        prune_failed_commands(folder.parent, keep=FAILED_COMMANDS_KEPT, running=folder)


def prune_failed_commands(target: Path, *, keep: int, running: Path | None = None) -> list[Path]:
    """Remove all but the newest ``keep`` command folders under ``target`` (never
    ``running``, the command this process is streaming); returns what it removed. Another
    process's command still running is among the newest unless more than ``keep`` commands
    started or failed after it."""
    try:
        entries = [
            (entry.stat().st_mtime_ns, Path(entry.path))
            for entry in os.scandir(target)
            if entry.is_dir(follow_symlinks=False) and _COMMAND_FOLDER.match(entry.name)
        ]
    except OSError:
        return []
    old = [path for _, path in sorted(entries, reverse=True)[keep:] if path != running]
    for path in old:
        shutil.rmtree(path, ignore_errors=True)
    return old
