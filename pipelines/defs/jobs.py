"""Jobs: the whole pipeline, and ingest only."""

from __future__ import annotations

import dagster as dg

everything = dg.define_asset_job(
    "bvs_everything",
    selection=dg.AssetSelection.all(),
    description="Ingest every landed source, build the dbt models, publish the serving snapshot.",
    executor_def=dg.in_process_executor,  # one warehouse writer at a time
)
