"""What `bvs run` says a failed run left behind (pipelines/materialize.py)."""

from __future__ import annotations

from pipelines.materialize import _after_failure


def test_a_run_that_failed_in_dbt_says_the_warehouse_keeps_what_it_wrote() -> None:
    # dbt commits each model as it builds it: a failed test stops the rest, not what was built
    lines = _after_failure({"raw/abr__abns", "marts/entities", "marts/search_names"})
    assert lines == [
        "the serving snapshot is unchanged (the API serves the last one published)",
        "the warehouse keeps the 3 tables this run wrote or confirmed before the failure;"
        " a source whose load failed keeps its last good data",
    ]


def test_a_run_that_failed_after_its_publish_says_the_snapshot_is_new() -> None:
    lines = _after_failure({"marts/entities", "serving/snapshot"})
    assert lines[0] == "the serving snapshot is the one this run published"


def test_a_run_that_failed_before_writing_anything_says_nothing_changed() -> None:
    assert _after_failure(set()) == [
        "the serving snapshot is unchanged (the API serves the last one published)",
        "the warehouse is unchanged",
    ]
