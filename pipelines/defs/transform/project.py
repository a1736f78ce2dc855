"""The dbt project as Dagster sees it: paths, the naming policy, the CLI resource. Nothing
is parsed here, and no asset is built (the register models: ``dbt.py``; the supplier
ledgers': ``defs/ledgers``), so each area imports only what it needs."""

import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import (
    DagsterDbtTranslator,
    DagsterDbtTranslatorSettings,
    DbtCliInvocation,
    DbtCliResource,
    DbtProject,
)

from pipelines.settings import DBT_PROJECT_DIR

# Paths only: nothing is parsed here. The manifest is prepared before definitions load
# (`make prepare`, `bvs run`), or by `prepare_if_dev()` under `dagster dev`.
dbt_project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)
dbt_project.prepare_if_dev()


def _layer(dbt_resource_props: Mapping[str, Any]) -> str:
    """Models: their folder under models/ (= schema). Snapshots and seeds: their own schema."""
    if dbt_resource_props.get("resource_type") == "snapshot":
        return "snapshots"
    if dbt_resource_props.get("resource_type") == "seed":
        return "seeds"
    fqn = dbt_resource_props.get("fqn", [])
    return fqn[1] if len(fqn) > 2 else "marts"


class BvsTranslator(DagsterDbtTranslator):
    """The naming policy: models and snapshots keyed by schema and name, grouped by layer."""

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        if dbt_resource_props["resource_type"] == "source":
            return super().get_asset_key(
                dbt_resource_props
            )  # meta.dagster.asset_key: ["raw", table]
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


def dbt_resource() -> DbtCliResource:
    # this environment's bvs-dbt: dbt itself, or the warm dbt when BVS_DBT_SERVER names a
    # running one (pipelines/dbt_server.py). sys.executable may be a resolved symlink; the
    # prefix is not.
    executable = Path(sys.prefix) / "bin" / "bvs-dbt"
    if not executable.exists():
        executable = Path(sys.prefix) / "bin" / "dbt"
    return BvsDbtCliResource(
        # DbtCliResource's own __init__ takes a DbtProject; mypy sees the subclass's fields
        project_dir=dbt_project,  # type: ignore[arg-type]
        profiles_dir=str(DBT_PROJECT_DIR),
        dbt_executable=str(executable) if executable.exists() else "dbt",
    )


def stream_and_tidy(invocation: DbtCliInvocation) -> Iterator[Any]:
    """A dbt command's Dagster events; then its own target folder is removed.

    dagster-dbt gives every command a folder of its own under ``dbt_project/target``
    (manifest, compiled SQL, run results: about 8 MB), and leaves it: a nightly ledger run
    per customer filled gigabytes within weeks. Once the events are streamed nothing reads
    it again. A command that fails keeps its folder (dbt's log and compiled SQL, to see
    why)."""
    yield from invocation.stream()
    # dbt ran in the project folder: a relative target path is relative to it
    shutil.rmtree(Path(invocation.project_dir) / invocation.target_path, ignore_errors=True)
