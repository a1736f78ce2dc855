"""dbt models as Dagster assets. Asset key = warehouse address: ["<schema>", "<model>"]."""

import json
from collections.abc import Iterator
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines import dbt_versions
from pipelines.dbt import apply_dbt_env, build_args
from pipelines.warehouse.connection import warehouse

from ..resources import POOL, BvsResource
from ..writer import writing
from .project import dbt_project, dbt_resource, stream_and_tidy, translator

__all__ = ["dbt_models", "dbt_project", "dbt_resource", "translator"]

LEDGER_TAG = "ledger"  # the supplier-ledger models run in their own job (defs/ledgers)


def _whole_selection(context: dg.AssetExecutionContext) -> bool:
    """Whether the run builds every model of this definition (the weekly run, `bvs run`),
    rather than assets picked by hand, which are built as picked."""
    assets_def = context.assets_def
    return set(context.selected_asset_keys) == set(assets_def.keys) and set(
        context.selected_asset_check_keys
    ) == set(assets_def.check_keys)


@dbt_assets(
    manifest=dbt_project.manifest_path,
    project=dbt_project,
    dagster_dbt_translator=translator,
    exclude=f"tag:{LEDGER_TAG}",
    pool=POOL,
)
def dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, bvs: BvsResource
) -> Iterator[Any]:
    settings = bvs.settings()
    as_of = bvs.as_of_date()
    apply_dbt_env(settings, as_of=as_of)
    with writing(context, bvs):
        plan = manifest = None
        # another process having the file open: one line, now
        with warehouse(settings) as con:
            if _whole_selection(context):
                manifest = json.loads(dbt_project.manifest_path.read_bytes())
                plan = dbt_versions.plan_build(
                    con,
                    manifest,
                    as_of=as_of,
                    project_settings=(settings.dbt_project_dir / "dbt_project.yml").read_text(),
                    excluded_tags=[LEDGER_TAG],
                    skip_unchanged=settings.dbt_skip_unchanged,
                )
        args = build_args()
        if plan is not None and manifest is not None:
            context.log.info(f"dbt build: {plan.summary()}")
            args += plan.exclude_args()
            # first: a model's parents are settled before it (Dagster's order)
            yield from _unchanged_outputs(context, manifest, plan)
        yield from stream_and_tidy(dbt.cli(args, context=context))
        if plan is not None:  # the build passed: what it ran is now up to date
            with warehouse(settings) as con:
                dbt_versions.record(con, plan.versions, plan.run)


def _unchanged_outputs(
    context: dg.AssetExecutionContext, manifest: dict[str, Any], plan: dbt_versions.BuildPlan
) -> Iterator[dg.Output]:
    """An output for each model the build leaves out, with its version as the data version:
    its table is current and unchanged, and what depends on it in the run (the publish)
    goes on, as it would not after an output never yielded. Everything a left-out model is
    built from is left out too (``plan_build``), so these come first, in dependency order."""
    for uid in dbt_versions.topological_order(manifest, plan.skip):
        node = manifest["nodes"].get(uid)
        if node is None or node["resource_type"] not in dbt_versions.BUILT_TYPES:
            continue
        key = translator.get_asset_key(node)
        if key not in context.selected_asset_keys:
            continue
        yield dg.Output(
            None,
            output_name=key.to_python_identifier(),
            data_version=dg.DataVersion(str(plan.versions[uid])),
            metadata={"unique_id": uid, "status": "up to date (not rebuilt)"},
        )
