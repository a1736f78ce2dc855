"""A dbt build that fails part-way records what it finished (pipelines/defs/transform/dbt.py,
``dbt_versions.finished_part``): the dbt step reads what was built and checked from the
build's own Dagster events."""

import dagster as dg

from pipelines.defs.transform.dbt import _Results


def test_a_builds_events_say_what_it_built_and_which_tests_passed() -> None:
    results = _Results()
    for event in [
        dg.Output(
            None, output_name="marts__entities", metadata={"unique_id": "model.bvs.entities"}
        ),
        dg.AssetCheckResult(
            asset_key=dg.AssetKey(["marts", "entities"]),
            check_name="unique_entities_abn",
            passed=True,
            metadata={"unique_id": "test.bvs.unique_entities_abn", "status": "pass"},
        ),
        dg.AssetCheckResult(
            asset_key=dg.AssetKey(["marts", "entities"]),
            check_name="not_null_entities_abn",
            passed=False,
            metadata={"unique_id": "test.bvs.not_null_entities_abn", "status": "fail"},
        ),
        # a singular test on several models: an observation, with a warning that still passes
        dg.AssetObservation(
            asset_key=dg.AssetKey(["marts", "entity_names"]),
            metadata={"unique_id": "test.bvs.assert_one_legal_name", "status": "warn"},
        ),
        dg.AssetObservation(
            asset_key=dg.AssetKey(["marts", "entity_names"]),
            metadata={"unique_id": "test.bvs.assert_tidy", "status": "error"},
        ),
        dg.AssetMaterialization(asset_key=dg.AssetKey(["raw", "x"])),  # no unique id
    ]:
        results.add(event)
    assert results.built == {"model.bvs.entities"}
    assert results.passed == {"test.bvs.unique_entities_abn", "test.bvs.assert_one_legal_name"}
