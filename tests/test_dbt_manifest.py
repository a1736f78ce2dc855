"""The dbt manifest and partial parse `bvs run` prepares (pipelines/dbt.py)."""

import json
import os
from pathlib import Path

from pipelines.dbt import partial_parse_path, prepare_manifest, publish_keys, publish_orders
from pipelines.settings import DBT_PROJECT_DIR, get_settings

MODEL = DBT_PROJECT_DIR / "models" / "marts" / "core" / "entities.sql"


def test_a_project_file_only_touched_keeps_the_partial_parse_and_the_next_run_starts(
    tmp_path: Path,
) -> None:
    # a data folder of its own: its own profile, so its own partial parse
    settings = get_settings(data_dir=tmp_path)
    manifest = prepare_manifest(settings)
    partial = partial_parse_path(settings)
    assert manifest.exists() and partial.exists()

    # a checkout or a stash gives a file a new time and the same content: dbt finds nothing
    # to parse again and writes no partial parse (this used to fail the run's start)
    before = MODEL.stat()
    try:
        os.utime(MODEL)  # now: newer than the partial parse just written
        touched = MODEL.stat().st_mtime
        assert touched > partial.stat().st_mtime
        assert prepare_manifest(settings) == manifest
        assert partial.stat().st_mtime >= touched  # marked current: no parse next time
    finally:
        os.utime(MODEL, ns=(before.st_atime_ns, before.st_mtime_ns))
        partial.unlink(missing_ok=True)


def test_the_publish_keys_are_the_models_publish_key_meta() -> None:
    manifest = {
        "nodes": {
            "model.bvs.a": {
                "resource_type": "model",
                "name": "a",
                "alias": "a",
                "schema": "marts",
                "config": {"meta": {"publish_key": ["abn", "name"]}},
            },
            "model.bvs.b": {
                "resource_type": "model",
                "name": "b",
                "alias": "b_table",
                "schema": "marts",
                "config": {"meta": {"publish_key": "abn"}},
            },
            "model.bvs.c": {"resource_type": "model", "name": "c", "schema": "marts"},
            "test.bvs.d": {
                "resource_type": "test",
                "name": "d",
                "schema": "marts",
                "config": {"meta": {"publish_key": ["x"]}},
            },
        }
    }
    assert publish_keys(manifest) == {"marts.a": ("abn", "name"), "marts.b_table": ("abn",)}
    # the project's: the tables with a row per ABN the publish updates by their changed rows
    project = publish_keys(json.loads(prepare_manifest(get_settings()).read_bytes()))
    assert project["marts.verifications"] == ("abn",)
    assert project["marts.entity_names"] == ("abn", "name")
    assert project["marts.match_business_names"] == ("abn", "business_name", "state_number")


def test_every_publish_key_is_its_tables_grain() -> None:
    """The publish pairs a key's rows across the warehouse and the snapshot
    (pipelines/warehouse/snapshot/update.py): a key two rows share could hide a change, so
    every model's publish_key is the columns of one of its uniqueness tests."""
    manifest = json.loads(prepare_manifest(get_settings()).read_bytes())
    nodes = manifest["nodes"]
    grains: dict[str, set[frozenset[str]]] = {}  # "schema.table" -> its uniqueness tests
    for node in nodes.values():
        test = node.get("test_metadata") or {}
        kwargs = test.get("kwargs", {})
        if test.get("name") == "unique":
            columns = frozenset([kwargs["column_name"]])
        elif test.get("name") == "unique_combination":
            columns = frozenset(kwargs["combination_of_columns"])
        else:
            continue
        model = nodes[node["attached_node"]]
        table = f"{model['schema']}.{model.get('alias') or model['name']}"
        grains.setdefault(table, set()).add(columns)
    keyed = publish_keys(manifest)
    assert len(keyed) >= 20  # the tables per ABN, the match tables, the flags and links
    for table, key in keyed.items():
        assert frozenset(key) in grains.get(table, set()), (table, key)


def test_the_tables_stored_in_an_order_are_the_models_publish_order_meta() -> None:
    def model(name: str, meta: dict) -> dict:
        config = {"meta": meta}
        return {"resource_type": "model", "name": name, "schema": "marts", "config": config}

    manifest = {
        "nodes": {
            "model.bvs.a": model("a", {"publish_order": ["id"]}),
            "model.bvs.b": model("b", {"publish_key": ["abn"]}),
            "model.bvs.c": model("c", {"publish_order": "word"}),
        }
    }
    assert publish_orders(manifest) == {"marts.a": ("id",), "marts.c": ("word",)}
    # the project's: the search index, stored in id order so that zone maps prune its
    # lookups, and updated in place by the same id (one sorted run after the sorted copy)
    manifest = json.loads(prepare_manifest(get_settings()).read_bytes())
    project = publish_orders(manifest)
    assert project == {"marts.search_names": ("name_id",), "marts.search_words": ("posting_id",)}
    keys = publish_keys(manifest)
    assert {table: keys.get(table) for table in project} == project
