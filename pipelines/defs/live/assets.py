"""The live checks for the domains the warehouse knows, before the verification models."""

import dagster as dg

from pipelines.live.checker import LiveChecker
from pipelines.live.config import from_settings
from pipelines.live.run import check_and_store
from pipelines.live.targets import entity_facts
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.meta import ensure_meta

from ..resources import POOL, BvsResource


@dg.asset(
    key=["live", "tiles"],
    deps=[dg.AssetKey(["raw", "abr__abns"]), dg.AssetKey(["raw", "abr__other_names"])],
    group_name="live",
    pool=POOL,
    kinds={"duckdb", "python"},
    description=(
        "Live checks (domain age, e-mail, blocklists, web presence, certificate transparency,"
        " trust, reviews) for ledger suppliers, then every ABN with a known domain; resumable"
        " from its 24-hour cache. Offline, every tile is N/A with the reason."
    ),
)
def live_tiles(context: dg.AssetExecutionContext, bvs: BvsResource) -> dg.MaterializeResult:
    settings = bvs.settings()
    checker = LiveChecker(from_settings(settings))
    with warehouse(settings) as con:
        ensure_meta(con)
        facts = entity_facts(con, settings)
        summary = check_and_store(con, checker, facts, bvs.as_of_date())
    if summary.offline:
        context.log.warning(f"live checks not run: {summary.offline}")
    context.log.info(f"live checks: {summary.entities} ABN(s) in {summary.seconds} s")
    return dg.MaterializeResult(
        metadata={
            "abns": summary.entities,
            "seconds": summary.seconds,
            "not_run_reason": summary.offline or "",
            "by_status": dg.MetadataValue.json(summary.by_status),
        }
    )
