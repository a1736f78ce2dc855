"""The serving snapshot: published after the marts build and every blocking check passes."""

import json

import dagster as dg

from pipelines.dbt import publish_keys, publish_orders
from pipelines.ingest.sources import SOURCES
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.snapshot import publish_snapshot
from pipelines.warehouse.verify_lookup import build_verify_lookup

from ..resources import POOL, BvsResource
from ..transform.dbt import dbt_models, dbt_project
from ..writer import writing

MART_KEYS = [key for key in dbt_models.keys if key.path[0] == "marts"]


@dg.asset(
    key=["serving", "snapshot"],
    deps=MART_KEYS,
    group_name="publish",
    pool=POOL,
    kinds={"duckdb"},
    description="Immutable DuckDB file of the marts plus build metadata; the API reads it.",
)
def serving_snapshot(context: dg.AssetExecutionContext, bvs: BvsResource) -> dg.MaterializeResult:
    settings = bvs.settings()
    manifest = json.loads(dbt_project.manifest_path.read_bytes())
    with writing(context, bvs), warehouse(settings) as con:
        info = publish_snapshot(
            con,
            settings,
            as_of=bvs.as_of_date(),
            sidecars={"verify": build_verify_lookup},
            cadences={name: source.refresh_days for name, source in SOURCES.items()},
            keys=publish_keys(manifest),
            orders=publish_orders(manifest),
        )
    context.log.info(f"published snapshot {info.snapshot_id} at {info.path}")
    return dg.MaterializeResult(
        metadata={
            "snapshot_id": info.snapshot_id,
            "path": dg.MetadataValue.path(str(info.path)),
            "as_of": info.as_of.isoformat(),
            "tables": dg.MetadataValue.json(info.tables),
            "views": dg.MetadataValue.json(list(info.views)),
            # the publish's stages: the file, its check, the verify lookup, making it current
            "seconds": dg.MetadataValue.json(info.seconds),
        }
    )


@dg.asset(
    key=["serving", "alerts"],
    deps=[serving_snapshot],
    group_name="publish",
    kinds={"sqlite"},
    description=(
        "Watches evaluated against the new snapshot: an alert per squeeze threshold crossed"
        " from below and per live activist campaign on a watched ticker or name."
    ),
)
def watch_alerts(context: dg.AssetExecutionContext, bvs: BvsResource) -> dg.MaterializeResult:
    from pipelines.state.watches import evaluate, store
    from pipelines.warehouse.snapshot import open_snapshot

    settings = bvs.settings()
    with store(settings) as engine:
        con = open_snapshot(settings)
        try:
            raised = evaluate(engine, con)
        finally:
            con.close()
    context.log.info(f"{len(raised)} new alert(s)")
    return dg.MaterializeResult(
        metadata={
            "new_alerts": len(raised),
            "by_kind": dg.MetadataValue.json(
                {k: sum(1 for a in raised if a["kind"] == k) for k in ("squeeze", "activist")}
            ),
        }
    )
