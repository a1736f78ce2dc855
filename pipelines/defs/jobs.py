"""Jobs: the whole pipeline, and ingest only."""

from __future__ import annotations

import dagster as dg

everything = dg.define_asset_job(
    "bvs_everything",
    selection=dg.AssetSelection.all(),
    description="Ingest every landed source, build the dbt models, publish the serving snapshot.",
    executor_def=dg.in_process_executor,  # one warehouse writer at a time
)

# The market sources (daily files) and everything built from them: squeeze scores, activist
# campaigns, the verification tiles that read them, the snapshot and the alerts.

market_daily = dg.define_asset_job(
    "bvs_market_daily",
    selection=dg.AssetSelection.assets(
        *[
            dg.AssetKey(["raw", table])
            for table in (
                "asic__short_positions",
                "prices__asx",
                "prices__crypto",
                "prices__forex",
                "positioning__short_interest",
                "activist__campaigns",
                "activist__amplification",
            )
        ]
    ).downstream(),
    description="Load the new day's market files, rebuild scores and tiles, publish, alert.",
    executor_def=dg.in_process_executor,
)
