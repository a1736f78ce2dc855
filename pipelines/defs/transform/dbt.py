"""dbt models as Dagster assets. Asset key = warehouse address: ["<schema>", "<model>"]."""

import json
import os
import signal
import subprocess
import warnings
from collections.abc import Collection, Iterator
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines import dbt_versions
from pipelines.dbt import apply_dbt_env, build_args
from pipelines.settings import Settings
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
        # whose tests may check only the rows written since they last passed: none but
        # what this build's plan says (macros/materializations/written_keys.sql)
        os.environ[dbt_versions.SCOPED_TESTS_ENV] = ",".join(
            sorted(plan.tests_scoped) if plan is not None else ()
        )
        if plan is not None:
            context.log.info(f"dbt build: {plan.summary()}")
            args += plan.exclude_args()
        # dbt starts now: its start-up (importing dbt, reading the project: about 7 s)
        # overlaps the unchanged models' outputs (about 3 s for 120 in a realistic week),
        # whose events still come first, as dbt's are read only after them
        invocation = dbt.cli(args, context=context)
        if plan is not None and manifest is not None:
            try:
                # first: a model's parents are settled before it (Dagster's order)
                yield from _unchanged_outputs(context, manifest, plan)
            except BaseException:
                _stop(invocation.process)
                raise
        events = stream_and_tidy(invocation)
        if plan is not None and manifest is not None and plan.kept:
            events = _with_kept_views(context, events, manifest, plan)
        if plan is None or manifest is None:
            yield from events
            return
        results = _Results()
        try:
            for event in events:
                results.add(event)
                yield event
        except Exception:
            # the build failed part-way: what it built and checked stays recorded, so the
            # run's retry (or the next week's) resumes after it; dbt has ended first (it
            # holds the warehouse while it runs)
            _stop(invocation.process)
            _record_finished_part(context, settings, manifest, plan, results)
            raise
        # the build passed: what it ran (and the views it kept) is now up to date, and its
        # tests have checked what the models wrote
        _record(settings, manifest, plan, plan.run | plan.kept)


def _record(
    settings: Settings,
    manifest: dict[str, Any],
    plan: dbt_versions.BuildPlan,
    nodes: Collection[str],
) -> int:
    """Record ``nodes`` of ``plan`` as built and checked, and forget the keys their models
    wrote (their tests have checked them); the number recorded."""
    with warehouse(settings) as con:
        recorded = dbt_versions.record(con, plan.versions, nodes, plan.test_code, plan.definitions)
        dbt_versions.clear_written_keys(con, manifest, nodes)
    return recorded


class _Results:
    """The unique ids a dbt build's events say it built (an output) and checked (a test's
    result or observation whose status is pass or warn)."""

    def __init__(self) -> None:
        self.built: set[str] = set()
        self.passed: set[str] = set()

    def add(self, event: Any) -> None:
        metadata = getattr(event, "metadata", None) or {}
        uid = _text(metadata.get("unique_id"))
        if uid is None:
            return
        if isinstance(event, dg.Output):
            self.built.add(uid)
        elif _text(metadata.get("status")) in ("pass", "warn"):
            self.passed.add(uid)


def _text(value: Any) -> str | None:
    value = getattr(value, "value", value)
    return None if value is None else str(value)


def _record_finished_part(
    context: dg.AssetExecutionContext,
    settings: Settings,
    manifest: dict[str, Any],
    plan: dbt_versions.BuildPlan,
    results: _Results,
) -> None:
    """Record the part of a failed build that it finished (``dbt_versions.finished_part``).
    A failure to record is logged, never raised over the build's own error."""
    try:
        finished = dbt_versions.finished_part(manifest, plan, results.built, results.passed)
        recorded = _record(settings, manifest, plan, finished)
        context.log.warning(
            f"dbt build failed: {recorded} of its {len(plan.run | plan.kept)} nodes were built"
            " and checked before it stopped and are recorded; the next build resumes after them"
        )
    except Exception as error:  # the build's error is the one to see
        context.log.warning(
            f"dbt build failed, and what it finished could not be recorded: {error}"
        )


def _stop(process: subprocess.Popen, timeout: float = 30.0) -> None:
    """Interrupt a dbt command that is no longer wanted, as dagster-dbt does (SIGINT: dbt
    stops its queries and rolls back), and kill it if it has not ended within ``timeout``."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


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
        yield from _output_of(context, node, uid, plan.versions[uid], "up to date (not rebuilt)")


def _output_of(
    context: dg.AssetExecutionContext,
    node: dict[str, Any],
    uid: str,
    version: str | None,
    status: str,
) -> Iterator[dg.Output]:
    """The output of a model dbt does not run, if the run selected it; its version is its
    data version (none known, built on a table that is not a load: Dagster's own)."""
    key = translator.get_asset_key(node)
    if key in context.selected_asset_keys:
        # Dagster marks an output's data_version beta and warns at every one: a week's
        # log would repeat it for each model the build leaves out.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dg.BetaWarning)
            output = dg.Output(
                None,
                output_name=key.to_python_identifier(),
                data_version=dg.DataVersion(version) if version else None,
                metadata={"unique_id": uid, "status": status},
            )
        yield output


def _built_parents(manifest: dict[str, Any], uid: str) -> set[str]:
    """The models, seeds and snapshots a node reads, through ephemeral models (inlined SQL)."""
    nodes, out = manifest["nodes"], set()
    for parent in manifest["nodes"][uid].get("depends_on", {}).get("nodes", []):
        node = nodes.get(parent)
        if node is None or node["resource_type"] not in dbt_versions.BUILT_TYPES:
            continue  # a source: a load outside this step, settled before it
        if node.get("config", {}).get("materialized") == "ephemeral":
            out |= _built_parents(manifest, parent)
        else:
            out.add(parent)
    return out


def _with_kept_views(
    context: dg.AssetExecutionContext,
    events: Iterator[Any],
    manifest: dict[str, Any],
    plan: dbt_versions.BuildPlan,
) -> Iterator[Any]:
    """dbt's events, with an output for each view the build keeps (``plan.kept``: its
    definition unchanged, its parents' rows new) as soon as the last of its parents has
    its own: after its parents and before its children, whose runs wait for those parents,
    so Dagster records each child as built from the view's new data version."""
    waiting = {
        uid: _built_parents(manifest, uid)
        for uid in dbt_versions.topological_order(manifest, plan.kept)
    }
    settled = set(plan.skip)  # their outputs came first (_unchanged_outputs)

    def ready() -> Iterator[dg.Output]:
        for uid in list(waiting):  # in dependency order: a kept view may read another
            if waiting[uid] <= settled:
                del waiting[uid]
                settled.add(uid)
                yield from _output_of(
                    context,
                    manifest["nodes"][uid],
                    uid,
                    plan.versions.get(uid),
                    "view kept (its definition unchanged)",
                )

    yield from ready()
    for event in events:
        yield event
        if isinstance(event, dg.Output) and waiting:
            uid = event.metadata.get("unique_id")
            settled.add(str(getattr(uid, "value", uid)))
            yield from ready()
    # the build passed (a failed one raises above): a parent that gave no output of its
    # own (not among the selected assets) was built all the same
    settled |= {parent for parents in waiting.values() for parent in parents}
    yield from ready()
