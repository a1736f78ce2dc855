"""What a whole-project dbt build rebuilds (pipelines/dbt_versions.py): node versions from
code, sources' loads and the as-of date; the plan; the records of a passed build."""

import copy
import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

import duckdb
import pytest

from pipelines import dbt_versions
from pipelines.dbt_versions import as_of_readers, node_versions, plan_build
from pipelines.settings import DBT_PROJECT_DIR

AS_OF = dt.date(2026, 11, 26)


def _macro(name: str, sql: str, calls: list[str] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "package_name": "bvs",
        "macro_sql": sql,
        "depends_on": {"macros": [f"macro.bvs.{c}" for c in calls or []]},
    }


def _node(
    kind: str, name: str, parents: list[str], macros: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "resource_type": kind,
        "name": name,
        "schema": "marts",
        "alias": name,
        "fqn": ["bvs", name],
        "checksum": {"name": "sha256", "checksum": f"{name}-v1"},
        "config": {"materialized": "table"},
        "tags": [],
        "depends_on": {"nodes": parents, "macros": [f"macro.bvs.{m}" for m in macros or []]},
        **extra,
    }


@pytest.fixture
def manifest() -> dict[str, Any]:
    """raw.a -> stg_a -> both <- stg_b <- raw.b; aged reads the as-of date through a macro;
    live reads a table that is not a load; a test on both; a ledger model and its test."""
    return {
        "metadata": {"dbt_version": "1.11.0"},
        "sources": {
            "source.bvs.a.a": {"schema": "raw", "identifier": "a__rows", "name": "rows"},
            "source.bvs.b.b": {"schema": "raw", "identifier": "b__rows", "name": "rows"},
            "source.bvs.meta.loads": {"schema": "meta", "identifier": "loads", "name": "loads"},
        },
        "macros": {
            "macro.bvs.as_of_date": _macro("as_of_date", "cast('x' as date)"),
            "macro.bvs.months": _macro("months", "months since {{ as_of_date() }}", ["as_of_date"]),
            "macro.bvs.clean": _macro("clean", "{{ adapter.dispatch('clean') }}"),
            "macro.bvs.duckdb__clean": _macro("duckdb__clean", "trim(x)"),
        },
        "nodes": {
            "model.bvs.stg_a": _node("model", "stg_a", ["source.bvs.a.a"], ["clean"]),
            "model.bvs.stg_b": _node("model", "stg_b", ["source.bvs.b.b"]),
            "model.bvs.both": _node("model", "both", ["model.bvs.stg_a", "model.bvs.stg_b"]),
            "model.bvs.aged": _node("model", "aged", ["model.bvs.stg_b"], ["months"]),
            "model.bvs.live": _node("model", "live", ["source.bvs.meta.loads"]),
            "model.bvs.view_b": _node(
                "model", "view_b", ["model.bvs.stg_b"], config={"materialized": "view"}
            ),
            "model.bvs.eph": _node(
                "model", "eph", ["model.bvs.stg_a"], config={"materialized": "ephemeral"}
            ),
            "test.bvs.not_null_both": _node("test", "not_null_both", ["model.bvs.both"]),
            "model.bvs.ledger_x": _node("model", "ledger_x", ["model.bvs.both"], tags=["ledger"]),
            "test.bvs.not_null_ledger_x": _node(
                "test", "not_null_ledger_x", ["model.bvs.ledger_x"]
            ),
        },
        "unit_tests": {
            "unit_test.bvs.both.case": {
                **_node("unit_test", "case", ["model.bvs.both"]),
                "checksum": "case-v1",
                "given": [{"input": "ref('stg_a')", "rows": [{"x": 1}]}],
                "expect": {"rows": [{"x": 1}]},
            }
        },
    }


SOURCES = {"source.bvs.a.a": "load-a1", "source.bvs.b.b": "load-b1"}


def versions(
    manifest: dict[str, Any],
    sources: dict[str, str] = SOURCES,
    as_of: dt.date = AS_OF,
    settings: str = "vars: {}",
    code: str = "py1",
) -> dict[str, str | None]:
    return node_versions(
        manifest, source_versions=sources, as_of=as_of, project_settings=settings, python_code=code
    )


def names(uids: Iterable[str]) -> set[str]:
    """Short names: a node's, `unit:case` for the unit test."""
    return {uid.split(".")[-1] if not uid.startswith("unit_test") else "unit:case" for uid in uids}


def changed(before: dict[str, str | None], after: dict[str, str | None]) -> set[str]:
    return names(uid for uid in before if before[uid] != after[uid])


def test_a_new_load_changes_its_descendants_and_their_tests_only(manifest: dict[str, Any]) -> None:
    before = versions(manifest)
    after = versions(manifest, sources={**SOURCES, "source.bvs.a.a": "load-a2"})
    # not the unit test of `both`: its fixtures replace the data
    assert changed(before, after) == {
        "stg_a",
        "both",
        "eph",
        "not_null_both",
        "ledger_x",
        "not_null_ledger_x",
    }
    assert versions(manifest) == before  # the same inputs: the same versions


def test_the_as_of_date_changes_what_reads_it_even_through_a_macro(
    manifest: dict[str, Any],
) -> None:
    before = versions(manifest)
    assert changed(before, versions(manifest, as_of=AS_OF + dt.timedelta(days=7))) == {"aged"}
    assert as_of_readers(manifest) == {"model.bvs.aged"}


def test_code_changes_a_node_and_its_descendants(manifest: dict[str, Any]) -> None:
    before = versions(manifest)
    edited = copy.deepcopy(manifest)
    edited["nodes"]["model.bvs.stg_b"]["checksum"]["checksum"] = "stg_b-v2"
    assert changed(before, versions(edited)) == {
        "stg_b",
        "both",
        "aged",
        "view_b",
        "not_null_both",
        "ledger_x",
        "not_null_ledger_x",
        "unit:case",
    }

    # a macro reached through adapter.dispatch: the dispatched implementation is code too
    edited = copy.deepcopy(manifest)
    edited["macros"]["macro.bvs.duckdb__clean"]["macro_sql"] = "upper(trim(x))"
    assert "stg_a" in changed(before, versions(edited))

    # a column's declared type or a test's arguments are definitions too
    edited = copy.deepcopy(manifest)
    edited["nodes"]["test.bvs.not_null_both"]["test_metadata"] = {"kwargs": {"column_name": "y"}}
    assert changed(before, versions(edited)) == {"not_null_both"}

    # the project's settings (vars, folder configs) and, for Python models, their package
    everything = names(before) - {"live"}  # live: never known
    assert changed(before, versions(manifest, settings="vars: {risk: 2}")) == everything
    edited = copy.deepcopy(manifest)
    edited["nodes"]["model.bvs.stg_b"]["language"] = "python"
    assert "stg_b" in changed(versions(edited), versions(edited, code="py2"))


def test_a_unit_test_runs_again_for_code_and_for_a_date_it_does_not_set(
    manifest: dict[str, Any],
) -> None:
    """Its verdict is its model's code on its fixtures: data never changes it; the code of
    anything upstream does (those columns type the fixtures); the as-of date does when the
    model reads it and the unit test does not set it."""
    edited = copy.deepcopy(manifest)
    edited["unit_tests"]["unit_test.bvs.aged.case"] = {
        **_node("unit_test", "case", ["model.bvs.aged"]),
        "checksum": "aged-case-v1",
        "given": [{"input": "ref('stg_b')", "rows": [{"x": 1}]}],
        "expect": {"rows": [{"x": 1}]},
    }
    aged, both = "unit_test.bvs.aged.case", "unit_test.bvs.both.case"
    before = versions(edited)
    later = versions(edited, as_of=AS_OF + dt.timedelta(days=7))
    assert later[aged] != before[aged] and later[both] == before[both]
    reloaded = versions(edited, sources={"source.bvs.a.a": "a2", "source.bvs.b.b": "b2"})
    assert reloaded["model.bvs.aged"] != before["model.bvs.aged"]
    assert (reloaded[aged], reloaded[both]) == (before[aged], before[both])
    edited["unit_tests"][aged]["overrides"] = {"vars": {"as_of": "2026-01-01"}}
    fixed = versions(edited)
    assert versions(edited, as_of=AS_OF + dt.timedelta(days=7))[aged] == fixed[aged]
    edited["nodes"]["model.bvs.stg_b"]["checksum"]["checksum"] = "stg_b-v2"
    assert versions(edited)[aged] != fixed[aged]
    assert versions(edited, code="py2")[both] != versions(edited)[both]


def test_what_reads_a_table_that_is_not_a_load_has_no_version(manifest: dict[str, Any]) -> None:
    v = versions(manifest)
    assert v["model.bvs.live"] is None
    assert v["model.bvs.both"] is not None


def _warehouse(
    manifest: dict[str, Any], *, missing: tuple[str, ...] = ()
) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema meta; create schema marts")
    con.execute(
        "create table meta.raw_tables (table_name varchar, location varchar, load_id varchar)"
    )
    con.execute(
        "insert into meta.raw_tables values ('raw.a__rows', '/a', 'load-a1'), ('raw.b__rows', '/b', 'load-b1')"
    )
    for node in manifest["nodes"].values():
        if (
            node["resource_type"] == "model"
            and node["config"]["materialized"] != "ephemeral"
            and node["name"] not in missing
        ):
            con.execute(f"create table marts.{node['name']} (x int)")
    return con


def plan(
    con: duckdb.DuckDBPyConnection, manifest: dict[str, Any], as_of: dt.date = AS_OF
) -> dbt_versions.BuildPlan:
    return plan_build(
        con,
        manifest,
        as_of=as_of,
        project_settings="vars: {}",
        excluded_tags=["ledger"],
        python_code="py1",
    )


def test_a_build_runs_everything_once_then_only_what_changed(manifest: dict[str, Any]) -> None:
    con = _warehouse(manifest)
    first = plan(con, manifest)
    # nothing recorded: everything of this build runs; the ledger model is another job's
    # (left out by its tag), and its test must be left out by name (indirect selection is off)
    assert names(first.run) == {
        "stg_a",
        "stg_b",
        "both",
        "aged",
        "live",
        "view_b",
        "eph",
        "not_null_both",
        "unit:case",
    }
    assert names(first.left_out) == {"not_null_ledger_x"} and not first.skip

    # nothing recorded (a failed build records only what it finished): the same plan again
    assert plan(con, manifest).run == first.run
    dbt_versions.record(con, first.versions, first.run)

    # nothing new: only what reads a table that is not a load (and an ephemeral model, SQL
    # inlined into its children, never built on its own)
    again = plan(con, manifest)
    assert names(again.run) == {"live", "eph"}
    assert names(again.skip) == {
        "stg_a",
        "stg_b",
        "both",
        "aged",
        "view_b",
        "not_null_both",
        "unit:case",
    }

    # a new week: what reads the as-of date; a new load of b: b's descendants and their tests
    assert names(plan(con, manifest, AS_OF + dt.timedelta(days=7)).run) == {"live", "eph", "aged"}
    con.execute("update meta.raw_tables set load_id = 'load-b2' where table_name = 'raw.b__rows'")
    assert names(plan(con, manifest).run) == {
        "live",
        "eph",
        "stg_b",
        "both",
        "aged",
        "view_b",
        "not_null_both",
    }


def test_a_failed_build_records_what_it_built_and_checked_and_the_next_resumes_after_it(
    manifest: dict[str, Any],
) -> None:
    con = _warehouse(manifest)
    first = plan(con, manifest)
    uid = {name: f"model.bvs.{name}" for name in ("stg_a", "stg_b", "both", "aged", "view_b")}
    check = "test.bvs.not_null_both"

    # stopped (out of memory, say) after building both, before its test ran: both is built
    # but not checked, so it is not recorded, nor is its unit test; view_b was never reached
    built = {uid["stg_a"], uid["stg_b"], uid["both"], uid["aged"]}
    assert names(dbt_versions.finished_part(manifest, first, built, passed=set())) == {
        "stg_a",
        "stg_b",
        "aged",
    }
    # both's test passed: both is finished, and so is its unit test (dbt built both after it)
    assert names(dbt_versions.finished_part(manifest, first, built, passed={check})) == {
        "stg_a",
        "stg_b",
        "aged",
        "both",
        "not_null_both",
        "unit:case",
    }
    # a failed test is not passed: what it checks is built and tested again
    assert names(
        dbt_versions.finished_part(manifest, first, built | {uid["view_b"]}, passed=set())
    ) == {"stg_a", "stg_b", "aged", "view_b"}
    # a test belongs to the model it is declared on, not to every model it reads
    declared = copy.deepcopy(manifest)
    declared["nodes"][check]["depends_on"]["nodes"].append(uid["stg_a"])
    declared["nodes"][check]["attached_node"] = uid["both"]
    assert "stg_a" in names(dbt_versions.finished_part(declared, first, built, passed=set()))
    # an output of a node outside the build (a model left out as up to date) is not its
    assert not dbt_versions.finished_part(manifest, first, {"model.bvs.ledger_x"}, passed=set())

    dbt_versions.record(
        con, first.versions, dbt_versions.finished_part(manifest, first, built, passed=set())
    )
    # the next build resumes: what the failed one finished is left as it is
    resumed = plan(con, manifest)
    assert names(resumed.skip) == {"stg_a", "stg_b", "aged"}
    assert names(resumed.run) == {"both", "not_null_both", "unit:case", "view_b", "live", "eph"}


def test_a_dropped_table_is_built_again(manifest: dict[str, Any]) -> None:
    con = _warehouse(manifest)
    first = plan(con, manifest)
    dbt_versions.record(con, first.versions, first.run)
    con.execute("drop table marts.both")
    assert "both" in names(plan(con, manifest).run)
    # what is built from a rebuilt table is not left out, though its version is the same:
    # Dagster settles a model's parents before it
    con.execute("drop table marts.stg_b")
    assert {"stg_b", "both", "aged", "view_b"} <= names(plan(con, manifest).run)
    assert dbt_versions.topological_order(manifest, ["model.bvs.both", "model.bvs.stg_a"]) == [
        "model.bvs.stg_a",
        "model.bvs.both",
    ]


def test_the_exclusions_name_each_skipped_node_and_turn_indirect_selection_off(
    manifest: dict[str, Any],
) -> None:
    con = _warehouse(manifest)
    first = plan(con, manifest)
    dbt_versions.record(con, first.versions, first.run)
    args = plan(con, manifest).exclude_args()
    assert args[:2] == ["--indirect-selection", "empty"]
    assert args[2] == "--exclude"
    assert set(args[3].split()) == {
        "fqn:bvs.stg_a", "fqn:bvs.stg_b", "fqn:bvs.both", "fqn:bvs.aged", "fqn:bvs.view_b",
        "fqn:bvs.not_null_both", "fqn:bvs.case", "fqn:bvs.not_null_ledger_x",
    }  # fmt: skip


def test_the_projects_as_of_readers_are_found_through_its_macros() -> None:
    """On the real manifest: every model whose SQL calls as_of_date() reads it, and so do
    those that reach it only through a macro (the current directors of persons.sql)."""
    manifest = json.loads((DBT_PROJECT_DIR / "target" / "manifest.json").read_text())
    models = {uid: n for uid, n in manifest["nodes"].items() if n["resource_type"] == "model"}
    direct = {uid for uid, n in models.items() if "as_of_date()" in n["raw_code"]}
    assert len(direct) >= 15
    readers = as_of_readers(manifest)
    assert direct <= readers
    assert "model.bvs.int_matching__people_keyed" in readers - direct  # is_current_director
    assert "model.bvs.entities" not in readers


def test_no_unit_test_of_the_project_runs_again_for_a_new_date_alone() -> None:
    """On the real manifest: a unit test whose model reads the as-of date sets it (its
    `vars`), so a week's build runs none of them: their verdicts depend on the code alone."""
    manifest = json.loads((DBT_PROJECT_DIR / "target" / "manifest.json").read_text())

    def unit_test_versions(as_of: dt.date) -> dict[str, str | None]:
        versions = node_versions(
            manifest, source_versions={}, as_of=as_of, project_settings="", python_code=""
        )
        return {uid: v for uid, v in versions.items() if uid.startswith("unit_test.")}

    week, next_week = unit_test_versions(AS_OF), unit_test_versions(AS_OF + dt.timedelta(7))
    assert len(week) >= 30
    assert [uid for uid in week if week[uid] != next_week[uid]] == []


def test_with_skipping_off_everything_runs_and_is_recorded(manifest: dict[str, Any]) -> None:
    con = _warehouse(manifest)
    first = plan(con, manifest)
    dbt_versions.record(con, first.versions, first.run)
    full = plan_build(
        con,
        manifest,
        as_of=AS_OF,
        project_settings="vars: {}",
        excluded_tags=["ledger"],
        python_code="py1",
        skip_unchanged=False,
    )
    assert full.run == first.run and not full.skip
    assert full.exclude_args() == []  # dbt's own selection leaves the ledger's tests out


def test_a_weeks_tests_check_only_the_rows_written_while_their_code_stands(
    manifest: dict[str, Any],
) -> None:
    """A model's tests may read only the rows written since they last passed (the models in
    `tests_scoped`) when every test of it to run has the code it last passed with: a new
    or changed test, or one recorded before test code was, reads every row."""
    con = _warehouse(manifest)
    first = plan(con, manifest)
    assert first.tests_scoped == frozenset()  # nothing has passed yet
    dbt_versions.record(con, first.versions, first.run, first.test_code)
    con.execute("update meta.raw_tables set load_id = 'load-b2' where table_name = 'raw.b__rows'")
    week = plan(con, manifest)
    assert "not_null_both" in names(week.run)
    assert week.tests_scoped == {"both"}

    changed_test = copy.deepcopy(manifest)
    changed_test["nodes"]["test.bvs.not_null_both"]["test_metadata"] = {"kwargs": {"c": "y"}}
    assert plan(con, changed_test).tests_scoped == frozenset()
    # the macro a test calls is its code too
    with_macro = copy.deepcopy(manifest)
    with_macro["nodes"]["test.bvs.not_null_both"]["depends_on"]["macros"] = ["macro.bvs.clean"]
    dbt_versions.record(con, week.versions, week.run, dbt_versions.test_code_versions(with_macro))
    assert plan(con, with_macro).tests_scoped == {"both"}
    with_macro["macros"]["macro.bvs.duckdb__clean"]["macro_sql"] = "lower(x)"
    assert plan(con, with_macro).tests_scoped == frozenset()

    # a warehouse whose record predates the test code: every row, then recorded
    con.execute("alter table meta.dbt_versions drop column test_code")
    assert plan(con, manifest).tests_scoped == frozenset()
    dbt_versions.record(con, week.versions, week.run, week.test_code)
    con.execute("update meta.raw_tables set load_id = 'load-b3' where table_name = 'raw.b__rows'")
    assert plan(con, manifest).tests_scoped == {"both"}


def test_a_passed_build_forgets_what_its_models_wrote(manifest: dict[str, Any]) -> None:
    con = _warehouse(manifest)
    con.execute("create schema if not exists meta")
    for model in ("both", "stg_a"):
        con.execute(f"create table meta.{model}__written_keys as select 'x' as key")
    built = ["model.bvs.both", "test.bvs.not_null_both"]
    assert dbt_versions.clear_written_keys(con, manifest, built) == 1
    left = con.execute(
        "select table_name from duckdb_tables() where schema_name = 'meta'"
        " and table_name like '%written_keys'"
    ).fetchall()
    assert left == [("stg_a__written_keys",)]  # not built: its rows are still to test


def test_a_view_whose_definition_stands_is_kept_when_its_parents_rows_change(
    manifest: dict[str, Any],
) -> None:
    """A view reads its parents when queried: a new load of what it reads changes its rows,
    not the statement that creates it, so the build leaves it as it is (and runs its
    tests); its code, anything upstream's code or the as-of date written into it (through
    an ephemeral model too) makes the build create it again."""
    manifest = copy.deepcopy(manifest)
    nodes = manifest["nodes"]
    nodes["test.bvs.not_null_view_b"] = _node("test", "not_null_view_b", ["model.bvs.view_b"])
    nodes["model.bvs.eph_aged"] = _node(
        "model", "eph_aged", ["model.bvs.stg_b"], ["months"], config={"materialized": "ephemeral"}
    )
    nodes["model.bvs.view_aged"] = _node(
        "model", "view_aged", ["model.bvs.eph_aged"], config={"materialized": "view"}
    )
    # on a table that is not a load: no version, built every time; as a view, kept
    nodes["model.bvs.view_live"] = _node(
        "model", "view_live", ["source.bvs.meta.loads"], config={"materialized": "view"}
    )
    con = _warehouse(manifest)
    first = plan(con, manifest)
    assert not first.kept  # nothing recorded: every view is created
    dbt_versions.record(con, first.versions, first.run | first.kept, first.test_code, first.definitions)

    def new_load_of_b(n: int) -> None:
        con.execute(
            f"update meta.raw_tables set load_id = 'load-b{n}' where table_name = 'raw.b__rows'"
        )

    assert names(plan(con, manifest).kept) == {"view_live"}
    new_load_of_b(2)
    week = plan(con, manifest)
    assert names(week.kept) == {"view_b", "view_aged", "view_live"}
    assert week.versions["model.bvs.view_live"] is None
    assert {"stg_b", "both", "aged", "not_null_view_b"} <= names(week.run)
    assert not names(week.run) & {"view_b", "view_aged"}
    excluded = set(week.exclude_args()[3].split())
    assert {"fqn:bvs.view_b", "fqn:bvs.view_aged"} <= excluded
    assert "fqn:bvs.not_null_view_b" not in excluded  # its tests read the new rows
    assert week.versions["model.bvs.view_b"] != first.versions["model.bvs.view_b"]
    dbt_versions.record(con, week.versions, week.run | week.kept, week.test_code, week.definitions)
    assert dbt_versions.recorded(con)["model.bvs.view_b"] == week.versions["model.bvs.view_b"]

    # the as-of date is written into view_aged (through its ephemeral parent), not view_b
    new_load_of_b(3)
    next_date = plan(con, manifest, AS_OF + dt.timedelta(days=7))
    assert names(next_date.kept) == {"view_b", "view_live"}
    assert "view_aged" in names(next_date.run)

    # code upstream (a parent's columns), the Python package, a dropped view: created again
    upstream = copy.deepcopy(manifest)
    upstream["nodes"]["model.bvs.stg_b"]["checksum"] = {"name": "sha256", "checksum": "stg_b-v2"}
    assert names(plan(con, upstream).kept) == {"view_live"}
    assert (
        plan_build(
            con,
            manifest,
            as_of=AS_OF,
            project_settings="vars: {}",
            excluded_tags=["ledger"],
            python_code="py2",
        ).kept
        == frozenset()
    )
    con.execute("drop table marts.view_b")
    assert names(plan(con, manifest).kept) == {"view_aged", "view_live"}
