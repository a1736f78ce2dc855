"""Nightly supplier-ledger re-verification: inputs, the ledger dbt models, the history.

The bodies call ``pipelines.ledgers.run``; the rules are dbt models (``models/ledgers``).
"""

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines.dbt import apply_dbt_env
from pipelines.ledgers.run import (
    INPUT_TABLES,
    RunPlan,
    commit_runs,
    plan_path,
    prepare_run,
    result_path,
    work_dir,
)
from pipelines.warehouse.connection import warehouse

from ..resources import POOL, BvsResource
from ..transform.project import dbt_project, stream_and_tidy, translator
from ..writer import writing
from .partitions import ledger_partitions

GROUP = "ledgers"
LEDGER_SELECTION = "tag:ledger"


def _partition(context: dg.AssetExecutionContext) -> tuple[str, dt.date]:
    key = context.partition_key
    assert isinstance(key, dg.MultiPartitionKey), key
    dims = key.keys_by_dimension
    return dims["customer"], dt.date.fromisoformat(dims["date"])


INPUT_DESCRIPTIONS = {
    "ledger__suppliers": "The customer's ledger rows, read, validated and resolved (polars).",
    "ledger__previous_states": "What the previous run of each ledger recorded, from the run history.",
}


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["raw", table],
            group_name=GROUP,
            kinds={"polars", "duckdb"},
            description=INPUT_DESCRIPTIONS.get(
                table,
                f"The serving snapshot's {table.removeprefix('ledger__snapshot_')} rows of the run's ABNs.",
            ),
        )
        for table in INPUT_TABLES
    ],
    name="ledger_inputs",
    partitions_def=ledger_partitions,
    pool=POOL,
    description=(
        "One customer's ledgers read and resolved, and the rows of the serving snapshot they"
        " are verified against, as Parquet behind the views raw.ledger__* (dbt source ledger_run)."
    ),
)
def ledger_inputs(
    context: dg.AssetExecutionContext, bvs: BvsResource
) -> Iterator[dg.MaterializeResult]:
    customer, run_date = _partition(context)
    settings = bvs.settings().for_ledger_runs()
    with writing(context, bvs), warehouse(settings) as con:
        plan = prepare_run(settings, con, customer, run_date)
    context.log.info(
        f"{customer} {run_date}: {len(plan.runs)} ledger(s) to run, {len(plan.unchanged)} unchanged,"
        f" {len(plan.failed)} unreadable"
    )
    for table in INPUT_TABLES:
        metadata: dict[str, Any] = {"snapshot_id": plan.snapshot_id}
        if table == "ledger__suppliers":
            metadata |= {
                "ledgers_to_run": dg.MetadataValue.json([r.ledger for r in plan.runs]),
                "unchanged": dg.MetadataValue.json(plan.unchanged),
                "unreadable": dg.MetadataValue.json(plan.failed),
                "suppliers": sum(int(r.intake.get("rows", 0)) for r in plan.runs),
            }
        yield dg.MaterializeResult(asset_key=["raw", table], metadata=metadata)


@dbt_assets(
    manifest=dbt_project.manifest_path,
    project=dbt_project,
    dagster_dbt_translator=translator,
    select=LEDGER_SELECTION,
    partitions_def=ledger_partitions,
    pool=POOL,
    name="ledger_dbt_models",
)
def ledger_dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, bvs: BvsResource
) -> Iterator[Any]:
    customer, run_date = _partition(context)
    settings = bvs.settings().for_ledger_runs()
    # the ledger rows are decided as of the run date, DuckDB within the ledger runs' memory;
    # the run's results are written into its work folder (run_parquet models)
    apply_dbt_env(settings, as_of=run_date, ledger_run_dir=work_dir(settings, customer))
    with writing(context, bvs):
        yield from stream_and_tidy(dbt.cli(["build"], context=context))


LEDGER_MART_KEYS = [key for key in ledger_dbt_models.keys if key.path[-1].startswith("ledger_")]


@dg.asset(
    key=["ledgers", "history"],
    deps=LEDGER_MART_KEYS,
    group_name=GROUP,
    partitions_def=ledger_partitions,
    pool=POOL,
    kinds={"parquet"},
    check_specs=[
        dg.AssetCheckSpec(
            "every_landed_ledger_was_read",
            asset=["ledgers", "history"],
            description="Every ledger file the customer landed could be read (else it names the file and why).",
        )
    ],
    description=(
        "Each ledger's run recorded in the run history (BVS_LEDGER_DIR: results, facts,"
        " changes, the file read) and its alerts raised in the state database."
    ),
)
def ledger_history(context: dg.AssetExecutionContext, bvs: BvsResource) -> Iterator[Any]:
    customer, run_date = _partition(context)
    settings = bvs.settings().for_ledger_runs()
    plan = RunPlan.from_json(plan_path(settings, customer).read_text())
    if plan.run_date != run_date.isoformat() or plan.customer != customer:
        raise dg.Failure(
            f"the prepared inputs are for {plan.customer} {plan.run_date}, not {customer}"
            f" {run_date}: materialize raw/ledger__inputs of this partition first"
        )
    with writing(context, bvs), warehouse(settings) as con:
        summaries = commit_runs(settings, con, plan)
    result_path(settings, customer).write_text(json.dumps(summaries, default=str, indent=1))
    yield dg.MaterializeResult(
        metadata={
            "runs_recorded": sum(1 for s in summaries if s.get("recorded")),
            "changes": sum(int(s["changes"]) for s in summaries if s.get("recorded")),
            "alerts": sum(int(s["alerts"]) for s in summaries if s.get("recorded")),
            "by_ledger": dg.MetadataValue.json(
                {
                    s["ledger"]: {"run_id": s["run_id"], "by_risk_level": s["by_risk_level"]}
                    for s in summaries
                }
            ),
        }
    )
    yield dg.AssetCheckResult(
        check_name="every_landed_ledger_was_read",
        passed=not plan.failed,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={"unreadable": dg.MetadataValue.json(plan.failed)},
        description="; ".join(f"{k}: {v}" for k, v in sorted(plan.failed.items())) or None,
    )


ledger_assets = [ledger_inputs, ledger_dbt_models, ledger_history]
