"""One multi-asset per landing source: its raw tables, with their blocking checks.

The asset key of a raw table is its warehouse address, ``["raw", <table>]``; dbt sources
point at the same keys, so lineage runs from landing files to marts with no hand wiring.
"""

import time
from collections.abc import Iterator

import dagster as dg

from pipelines.ingest.sources import SOURCES, RawTable, Source
from pipelines.progress import Progress
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.loader import LoadError, LoadResult, ProgressFn, load_source
from pipelines.warehouse.quality import check_names

from ..resources import POOL, BvsResource
from ..writer import writing

GROUP = "ingest"


def raw_key(table: RawTable) -> dg.AssetKey:
    return dg.AssetKey(["raw", table.name])


def _check_specs(source: Source) -> list[dg.AssetCheckSpec]:
    return [
        dg.AssetCheckSpec(
            name, asset=raw_key(table), blocking=True, description=f"{name} ({table.name})"
        )
        for table in source.tables.values()
        for name in check_names(table.checks)
    ]


def _check_results(source: Source, result: LoadResult) -> dict[str, list[dg.AssetCheckResult]]:
    """Check results per raw table for a finished load (loaded, unchanged, not loaded or
    failed).

    A failed load's checks fail with severity WARN: they refused the new files, and the
    table keeps its last good data, which passed them when it was loaded; so the rest of
    the pipeline and the publish go on (CONTRACT: one bad file holds back only its source).
    """
    by_table: dict[str, list[dg.AssetCheckResult]] = {}
    failed = result.status == "failed"
    for table in source.tables.values():
        outcomes = {o.name: o for o in result.checks.get(table.name, [])}
        results = []
        for name in check_names(table.checks):
            outcome = outcomes.get(name)
            if failed and (outcome is None or outcome.passed):
                results.append(
                    dg.AssetCheckResult(
                        asset_key=raw_key(table),
                        check_name=name,
                        passed=outcome is not None,
                        severity=dg.AssetCheckSeverity.WARN,
                        description=(
                            f"passed on the new files, which the load refused: {result.message}"
                            if outcome is not None
                            else f"not run: the load failed: {result.message}"
                        ),
                        metadata={"load_id": result.load_id or ""},
                    )
                )
            elif outcome is not None:
                results.append(
                    dg.AssetCheckResult(
                        asset_key=raw_key(table),
                        check_name=name,
                        passed=outcome.passed,
                        severity=dg.AssetCheckSeverity.WARN
                        if failed
                        else dg.AssetCheckSeverity.ERROR,
                        description=f"the load failed, previous data kept: {result.message}"
                        if failed
                        else None,
                        metadata={
                            "observed": outcome.observed,
                            "expected": outcome.expected,
                            "engine": outcome.engine,
                            "detail": outcome.detail,
                        },
                    )
                )
            elif result.status == "not_loaded" and name == "not_empty":
                results.append(
                    dg.AssetCheckResult(
                        asset_key=raw_key(table),
                        check_name=name,
                        passed=False,
                        severity=dg.AssetCheckSeverity.WARN,
                        description="source not loaded: its landing folder is empty or missing",
                    )
                )
            else:
                results.append(
                    dg.AssetCheckResult(
                        asset_key=raw_key(table),
                        check_name=name,
                        passed=True,
                        description=f"{result.status}: {result.message}",
                        metadata={"checked_in_load": result.load_id or ""},
                    )
                )
        by_table[table.name] = results
    return by_table


def _progress_logger(context: dg.AssetExecutionContext, source: Source) -> ProgressFn:
    """Progress into the run's log every 10 s, and live on a terminal (silent in CI)."""
    started = time.monotonic()
    last = [0.0]
    terminal = Progress(f"ingest {source.name}")

    def report(file: str, records: int, files_done: int, files: int) -> None:
        terminal.update(file, records, files=f"{files_done}/{files}")
        if files_done == files:
            terminal.done()
        now = time.monotonic()
        if now - last[0] >= 10 or files_done == files:
            last[0] = now
            rate = records / max(now - started, 1e-9)
            context.log.info(
                f"{file}: {records:,} records ({rate:,.0f}/s), files {files_done}/{files}"
            )

    return report


def build_ingest_asset(source: Source) -> dg.AssetsDefinition:
    specs = [
        dg.AssetSpec(
            raw_key(table),
            group_name=GROUP,
            description=table.description,
            kinds={"duckdb"},
            tags=source.tags,
            metadata={"landing_folder": source.folder, "patterns": ", ".join(source.patterns)},
        )
        for table in source.tables.values()
    ]

    @dg.multi_asset(
        name=f"ingest_{source.name}",
        specs=specs,
        check_specs=_check_specs(source),
        pool=POOL,
        description=f"Load {source.description} from landing/{source.folder}/",
    )
    def _ingest(
        context: dg.AssetExecutionContext, bvs: BvsResource
    ) -> Iterator[dg.MaterializeResult]:
        settings = bvs.settings()
        with writing(context, bvs), warehouse(settings) as con:
            try:
                result = load_source(
                    con, source, settings, progress=_progress_logger(context, source)
                )
            except LoadError as exc:
                # the source keeps its last good data; the others and the publish go on
                result = exc.result or LoadResult(source.name, "failed", message=str(exc))
                context.log.error(f"{source.name} FAILED, previous data kept: {exc}")
        if result.status == "not_loaded":
            context.log.warning(f"{source.name} not loaded: {result.message}")
        for warning in result.warnings:
            context.log.warning(f"{source.name}: {warning}")
        checks = _check_results(source, result)
        for table in source.tables.values():
            yield dg.MaterializeResult(
                asset_key=raw_key(table),
                metadata={
                    "status": result.status,
                    "load_id": result.load_id or "",
                    "rows": dg.MetadataValue.int(result.rows.get(table.name, 0)),
                    "quarantined": dg.MetadataValue.int(result.quarantined),
                    "extract_date": str(result.extract_date or ""),
                    "files": dg.MetadataValue.int(len(result.files)),
                    "records_per_second": dg.MetadataValue.float(
                        round(result.records_per_second, 1)
                    ),
                    "message": result.message,
                    **(
                        {
                            "passed_over": dg.MetadataValue.text(
                                "\n".join(f"{source.name}: {w}" for w in result.warnings)
                            )
                        }
                        if result.warnings
                        else {}
                    ),
                },
                check_results=checks[table.name],
            )

    return _ingest


ingest_assets = [build_ingest_asset(source) for source in SOURCES.values()]
