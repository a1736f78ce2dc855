"""dbt models as Dagster assets. Asset key = warehouse address: ["<schema>", "<model>"]."""

from collections.abc import Iterator
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines.dbt import apply_dbt_env, build_args
from pipelines.warehouse.connection import warehouse

from ..resources import POOL, BvsResource
from ..writer import writing
from .project import dbt_project, dbt_resource, stream_and_tidy, translator

__all__ = ["dbt_models", "dbt_project", "dbt_resource", "translator"]


@dbt_assets(
    manifest=dbt_project.manifest_path,
    project=dbt_project,
    dagster_dbt_translator=translator,
    exclude="tag:ledger",  # the supplier-ledger models run in their own job (defs/ledgers)
    pool=POOL,
)
def dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, bvs: BvsResource
) -> Iterator[Any]:
    settings = bvs.settings()
    apply_dbt_env(settings, as_of=bvs.as_of_date())
    with writing(context, bvs):
        with warehouse(settings):  # another process having the file open: one line, now
            pass
        yield from stream_and_tidy(dbt.cli(build_args(), context=context))
