"""What the Dagster side derives from a source's declaration (pipelines.ingest.sources):
its raw-table assets, their tags, and so the jobs that select them."""

from __future__ import annotations

import dataclasses

import dagster as dg

from pipelines.defs.ingest.assets import build_ingest_asset
from pipelines.defs.jobs import everything, market_daily
from pipelines.defs.resources import BvsResource
from pipelines.ingest.sources import AREA_TAG, MARKET, REGISTERS, SOURCES


def _selected(sources: list, job: dg.UnresolvedAssetJobDefinition) -> set[str]:
    assets = [build_ingest_asset(source) for source in sources]
    resolved = dg.Definitions(
        assets=assets, jobs=[job], resources={"bvs": BvsResource()}
    ).resolve_job_def(job.name)
    return {key.path[-1] for key in resolved.asset_layer.selected_asset_keys}


def test_the_market_job_selects_the_sources_declared_market() -> None:
    market = [s for s in SOURCES.values() if s.area == MARKET]
    registers = [s for s in SOURCES.values() if s.area == REGISTERS]
    assert market and registers and len(market) + len(registers) == len(SOURCES)
    tables = {t.name for s in market for t in s.tables.values()}
    assert _selected(list(SOURCES.values()), market_daily) == tables
    assert _selected(list(SOURCES.values()), everything) == {
        t.name for s in SOURCES.values() for t in s.tables.values()
    }


def test_a_source_declared_market_joins_the_market_job() -> None:
    abr = SOURCES["abr"]
    moved = dataclasses.replace(abr, area=MARKET)
    tags = build_ingest_asset(moved).tags_by_key[dg.AssetKey(["raw", "abr__abns"])]
    assert tags[AREA_TAG] == MARKET
    assert {"abr__abns", "abr__other_names"} <= _selected([moved], market_daily)
    assert _selected([abr], market_daily) == set()
