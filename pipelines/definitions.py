"""The only module Dagster loads (workspace.yaml): every area's definitions, merged."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.ingest.assets import ingest_assets
from pipelines.defs.ingest.schedules import daily_market_refresh, weekly_refresh
from pipelines.defs.ingest.sensors import new_landing_files
from pipelines.defs.jobs import everything, ledger_nightly, market_daily
from pipelines.defs.ledgers.assets import ledger_assets
from pipelines.defs.ledgers.schedules import ledgers_after_publish, nightly_ledger_reverification
from pipelines.defs.live.assets import live_tiles
from pipelines.defs.publish.assets import serving_snapshot, watch_alerts
from pipelines.defs.resources import BvsResource
from pipelines.defs.transform.dbt import dbt_models, dbt_resource
from pipelines.defs.writer import free_slots_of_dead_runs
from pipelines.permissions import owner_only

owner_only()  # the code location's runs write customer data: owner-only files and folders

# The loader's bookkeeping table: every ingest asset writes it; verification reads which
# sources have loaded and their extract dates from it (dbt source `meta.loads`).
load_log = dg.AssetSpec(
    key=["meta", "loads"],
    group_name="ingest",
    description="One row per load attempt of a source, written by the ingest assets.",
)

# The files each load read (dbt source `meta.manifest`) and the load each raw table shows
# (`meta.raw_tables`): the incremental market models compare them between builds.
load_manifest = dg.AssetSpec(
    key=["meta", "manifest"],
    group_name="ingest",
    description="One row per file a successful load read, with its SHA-256; written by the ingest assets.",
)
raw_tables = dg.AssetSpec(
    key=["meta", "raw_tables"],
    group_name="ingest",
    description="The load each raw table shows now; written by the ingest assets.",
)

defs = dg.Definitions(
    assets=[
        *ingest_assets,
        load_log,
        load_manifest,
        raw_tables,
        live_tiles,
        dbt_models,
        serving_snapshot,
        watch_alerts,
        *ledger_assets,
    ],
    jobs=[everything, market_daily, ledger_nightly],
    schedules=[weekly_refresh, daily_market_refresh, nightly_ledger_reverification],
    sensors=[new_landing_files, ledgers_after_publish, free_slots_of_dead_runs],
    resources={"bvs": BvsResource(), "dbt": dbt_resource()},
    executor=dg.in_process_executor,
)
