"""Jobs: the whole pipeline, the daily market refresh, the nightly ledger re-verification."""

from __future__ import annotations

import dagster as dg

from pipelines.ingest.sources import AREA_TAG, MARKET

# The register and market pipeline: every asset but the supplier ledgers', which run per
# customer and day (ledger_nightly).
PIPELINE = dg.AssetSelection.all() - dg.AssetSelection.groups("ledgers")

everything = dg.define_asset_job(
    "bvs_everything",
    selection=PIPELINE,
    description="Ingest every landed source, build the dbt models, publish the serving snapshot.",
    executor_def=dg.in_process_executor,  # one warehouse writer at a time
)

# The market sources (daily files) and everything built from them: squeeze scores, activist
# campaigns, the verification tiles that read them, the snapshot and the alerts. The market
# sources are those declared with area MARKET (pipelines.ingest.sources), whose raw tables
# carry that tag.
MARKET_SOURCES = dg.AssetSelection.tag(AREA_TAG, MARKET)

market_daily = dg.define_asset_job(
    "bvs_market_daily",
    selection=MARKET_SOURCES.downstream(),
    description="Load the new day's market files, rebuild scores and tiles, publish, alert.",
    executor_def=dg.in_process_executor,
)

ledger_nightly = dg.define_asset_job(
    "ledger_nightly",
    selection=dg.AssetSelection.groups("ledgers"),
    description=(
        "Re-verify one customer's supplier ledgers against the serving snapshot as of one day:"
        " record the run, its changes since the previous one, and raise alerts."
    ),
    executor_def=dg.in_process_executor,
)
