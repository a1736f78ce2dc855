"""dbt source tables are keyed by the translator from their warehouse address, and the raw
sources are exactly the raw tables declared in ``pipelines.ingest.sources``."""

from __future__ import annotations

import json

import dagster as dg

from pipelines.definitions import defs
from pipelines.defs.ledgers.assets import ledger_assets
from pipelines.defs.transform.dbt import dbt_models
from pipelines.defs.transform.project import dbt_project, translator
from pipelines.ingest.sources import SOURCES


def _dbt_sources() -> list[dict]:
    manifest = json.loads(dbt_project.manifest_path.read_text())
    return list(manifest["sources"].values())


def test_a_source_table_is_keyed_by_schema_and_identifier() -> None:
    props = {"resource_type": "source", "schema": "raw", "name": "companies"}
    assert translator.get_asset_key({**props, "identifier": "asic__companies"}) == dg.AssetKey(
        ["raw", "asic__companies"]
    )
    assert translator.get_asset_key({**props, "identifier": None}) == dg.AssetKey(
        ["raw", "companies"]
    )


def test_raw_sources_are_the_declared_raw_tables() -> None:
    ledger_inputs = {key.path[-1] for a in ledger_assets for key in a.keys if key.path[0] == "raw"}
    declared = {table.name for source in SOURCES.values() for table in source.tables.values()}
    in_yaml = {s["identifier"] for s in _dbt_sources() if s["schema"] == "raw"}
    assert in_yaml - ledger_inputs == declared


def test_every_source_key_is_an_asset_the_python_side_writes() -> None:
    """No dbt source falls back to a key nothing defines (a typo in a YAML identifier would
    leave a dangling key and cut lineage)."""
    python_side: set[dg.AssetKey] = set()
    for item in defs.assets or []:
        if isinstance(item, dg.AssetSpec):
            python_side.add(item.key)
        elif isinstance(item, dg.AssetsDefinition) and item is not dbt_models:
            python_side.update(item.keys)
    keys = {translator.get_asset_key(s) for s in _dbt_sources()}
    assert keys and keys <= python_side, sorted(k.to_user_string() for k in keys - python_side)
