"""What a dbt build must rebuild: a version for every model, seed, snapshot, data test
and unit test, from what its table (or its verdict) is made of.

A node's version is a hash over everything its rows depend on:

* its own definition (dbt's checksum of its file, its config, columns and contract, a
  test's arguments, a unit test's fixtures) and the code of every macro it calls, through
  other macros and through `adapter.dispatch` (``duckdb__x``, ``default__x``);
* the project's settings (``dbt_project.yml``: vars, folder configs), dbt's version, the
  adapter's and DuckDB's;
* the as-of date, when it calls ``as_of_date()`` (ages and recency: the verification tiles,
  the current directors, the market signals), directly or through a macro;
* the project's Python package, for a Python model (its code lives in ``pipelines/``);
* the versions of its parents: other nodes, and the sources, whose version is the load that
  wrote the raw table (``meta.raw_tables.load_id``; a table that is not a loaded raw table,
  such as ``meta.loads`` or the live checks' table, has no version, and neither has anything
  built on it: it is rebuilt every time).

A build skips a node whose version is the one recorded when it was last built and whose
relation exists (:func:`up_to_date`) and everything it is built from is skipped too, and
records the versions of what it built once the whole build has passed (:func:`record`). A
build that fails part-way (a model's error, a test's failure, DuckDB out of memory) records
the part it finished (:func:`finished_part`): the nodes it built whose tests all passed, and
those tests. The next build resumes after them; what failed, what was not reached and what
was built but not yet checked is built and tested again. The weekly run whose only new file is one register's
rebuilds that register's descendants and what reads the as-of date; the rest of the
warehouse, and its tests, stand (docs/weekly-refresh.md).

A view whose parents' rows changed but whose definition did not (its code, everything
upstream's code, the as-of date written into it: :func:`view_definitions`) is kept as it is:
it reads its parents when queried, so creating it again would change nothing; its new
version is recorded and its tests run (:func:`kept_views`).

The plan also says which models' tests may check only the rows written since they last
passed (:func:`scoped_test_models`: their tests' code is the code recorded when they passed;
docs/decisions/34-a-weeks-tests-check-the-rows-it-wrote.md).

Kept free of Dagster and of dbt-core: the manifest is JSON and the records a DuckDB table.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import duckdb

AS_OF_MACRO = "macro.bvs.as_of_date"
BUILT_TYPES = ("model", "seed", "snapshot")  # have a relation
VERSIONED_TYPES = (*BUILT_TYPES, "test", "unit_test")
PACKAGE_DIR = Path(__file__).resolve().parent  # pipelines/: the Python models' code

VERSIONS_DDL = """
create table if not exists meta.dbt_versions (
    unique_id varchar primary key,   -- model.bvs.entities
    version varchar not null,        -- what its table was built from ('': nothing known)
    built_at timestamptz not null,
    test_code varchar,               -- a data test's own code (test_code_versions)
    definition varchar               -- a view's definition (view_definitions)
)
"""
# a warehouse whose table was created before the columns
VERSIONS_NEW_COLUMNS = (
    "alter table meta.dbt_versions add column if not exists test_code varchar",
    "alter table meta.dbt_versions add column if not exists definition varchar",
)
SCOPED_TESTS_ENV = "BVS_TESTS_SCOPED"  # macros/materializations/written_keys.sql


def _sha(*parts: object) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(json.dumps(part, sort_keys=True, default=str).encode())
        digest.update(b"\x00")
    return digest.hexdigest()


@cache
def package_code_version(root: Path = PACKAGE_DIR) -> str:
    """A hash of the Python package's sources (``*.py``, ``*.c``), for Python models."""
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".c") and p.is_file())
    return _sha(
        *[(str(p.relative_to(root)), hashlib.sha256(p.read_bytes()).hexdigest()) for p in files]
    )


def _engine_versions() -> list[str]:
    """The adapter's and the engine's versions: a new one may compute a function anew."""
    out = []
    for package in ("dbt-duckdb", "duckdb"):
        try:
            out.append(f"{package}=={importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover - another adapter
            out.append(package)
    return out


def _macro_closure(manifest: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    """Every macro each macro calls, itself included, through dispatch too."""
    macros = manifest["macros"]
    # adapter.dispatch('x') runs <adapter>__x or default__x of the same package: a macro's
    # implementations count as what it calls
    implementations: dict[tuple[str, str], set[str]] = {}
    for uid, macro in macros.items():
        prefix, sep, name = macro["name"].partition("__")
        if sep and prefix and name:
            implementations.setdefault((macro["package_name"], name), set()).add(uid)

    def direct(uid: str) -> set[str]:
        macro = macros[uid]
        called = set(macro.get("depends_on", {}).get("macros", []))
        return called | implementations.get((macro["package_name"], macro["name"]), set())

    closure: dict[str, frozenset[str]] = {}
    for start in macros:
        seen, stack = {start}, [start]
        while stack:
            for called in direct(stack.pop()):
                if called in macros and called not in seen:
                    seen.add(called)
                    stack.append(called)
        closure[start] = frozenset(seen)
    return closure


def _macros_used(node: Mapping[str, Any], closure: Mapping[str, frozenset[str]]) -> set[str]:
    used: set[str] = set()
    for macro in node.get("depends_on", {}).get("macros", []):
        used |= closure.get(macro, {macro})
    return used


def _definition(node: Mapping[str, Any]) -> list[Any]:
    """The parts of a node's own definition that shape its rows or its verdict."""
    return [
        node.get("checksum"),  # {"name", "checksum"}; a unit test's is the text itself
        node.get("config"),
        node.get("columns"),  # data types, constraints, descriptions (persisted as comments)
        node.get("contract"),
        node.get("test_metadata"),  # a generic test's arguments
        node.get("given"),  # a unit test's fixtures and expectation
        node.get("expect"),
        node.get("overrides"),
    ]


def _macro_code(manifest: Mapping[str, Any]) -> dict[str, str]:
    return {
        uid: hashlib.sha256(m.get("macro_sql", "").encode()).hexdigest()
        for uid, m in manifest["macros"].items()
    }


def _common(manifest: Mapping[str, Any], project_settings: str) -> str:
    """What every node is built with: the project's settings, dbt's and the engine's versions."""
    return _sha(
        project_settings, manifest.get("metadata", {}).get("dbt_version"), _engine_versions()
    )


def _code_versions(
    nodes: Mapping[str, Any],
    closure: Mapping[str, frozenset[str]],
    macro_code: Mapping[str, str],
) -> Callable[[str], str]:
    """A node's code and that of everything upstream of it, without any data's version."""
    memo: dict[str, str] = {}

    def code_version(uid: str, path: tuple[str, ...] = ()) -> str:
        if uid in memo:
            return memo[uid]
        node = nodes.get(uid)
        if node is None or uid in path:  # a source (its columns are the loaders' code)
            return uid
        used = _macros_used(node, closure)
        parent_ids = sorted(node.get("depends_on", {}).get("nodes", []))
        result = _sha(
            _definition(node),
            sorted((m, macro_code.get(m)) for m in used),
            AS_OF_MACRO in used,
            [code_version(p, (*path, uid)) for p in parent_ids],
        )
        memo[uid] = result
        return result

    return code_version


def node_versions(
    manifest: Mapping[str, Any],
    *,
    source_versions: Mapping[str, str | None],
    as_of: dt.date,
    project_settings: str,
    python_code: str | None = None,
) -> dict[str, str | None]:
    """The version of every model, seed, snapshot, data test and unit test of ``manifest``
    (None: run every time).

    ``source_versions`` maps a source's unique id to its version (None or absent: none);
    ``project_settings`` is the text of ``dbt_project.yml``. A data test's version covers its
    parents', so it runs again whenever what it tests was rebuilt. A unit test's verdict
    depends on code alone (its fixtures replace every input): its version covers the code
    of its model and of everything upstream (whose columns type the fixtures), the project's
    Python package, and the as-of date only when the model reads it and the unit test does
    not set it (its `vars`), so a new load does not run it again."""
    nodes = {**manifest["nodes"], **manifest.get("unit_tests", {})}
    closure = _macro_closure(manifest)
    macro_code = _macro_code(manifest)
    common = _common(manifest, project_settings)
    versions: dict[str, str | None] = {}
    code_version = _code_versions(nodes, closure, macro_code)

    def unit_test_version(uid: str, node: Mapping[str, Any]) -> str:
        parent_ids = sorted(node.get("depends_on", {}).get("nodes", []))
        reads_as_of = any(
            AS_OF_MACRO in _macros_used(nodes[p], closure) for p in parent_ids if p in nodes
        ) or AS_OF_MACRO in _macros_used(node, closure)
        overrides = node.get("overrides") or {}
        sets_as_of = "as_of" in (overrides.get("vars") or {}) or "BVS_AS_OF" in (
            overrides.get("env_vars") or {}
        )
        return _sha(
            common,
            python_code,
            code_version(uid),
            as_of.isoformat() if reads_as_of and not sets_as_of else None,
        )

    def version(uid: str, path: tuple[str, ...] = ()) -> str | None:
        if uid in versions:
            return versions[uid]
        if uid.startswith("source."):
            return source_versions.get(uid)
        node = nodes.get(uid)
        if node is None or uid in path:  # not a node of this manifest (or a cycle): unknown
            return None
        if node["resource_type"] == "unit_test":
            versions[uid] = unit_test_version(uid, node)
            return versions[uid]
        used = _macros_used(node, closure)
        parent_ids = sorted(node.get("depends_on", {}).get("nodes", []))
        parents = [version(p, (*path, uid)) for p in parent_ids]
        result: str | None
        if any(p is None for p in parents):
            result = None
        else:
            result = _sha(
                common,
                _definition(node),
                sorted((m, macro_code.get(m)) for m in used),
                as_of.isoformat() if AS_OF_MACRO in used else None,
                python_code if node.get("language") == "python" else None,
                list(zip(parent_ids, parents, strict=True)),
            )
        versions[uid] = result
        return result

    for uid, node in nodes.items():
        if node["resource_type"] in VERSIONED_TYPES:
            version(uid)
    return {uid: v for uid, v in versions.items() if nodes[uid]["resource_type"] in VERSIONED_TYPES}


def test_code_versions(manifest: Mapping[str, Any]) -> dict[str, str]:
    """Each data test's own code: its definition and the macros it calls, without what it
    tests. A test whose code is the one recorded when it last passed has checked every row
    of its models then, so a week's build may check only the rows written since
    (macros/materializations/written_keys.sql); a new or changed test checks them all."""
    closure = _macro_closure(manifest)
    macro_code = _macro_code(manifest)
    return {
        uid: _sha(
            _definition(node),
            sorted((m, macro_code.get(m)) for m in _macros_used(node, closure)),
        )
        for uid, node in manifest["nodes"].items()
        if node["resource_type"] == "test"
    }


def view_definitions(
    manifest: Mapping[str, Any],
    *,
    as_of: dt.date,
    project_settings: str,
    python_code: str | None = None,
) -> dict[str, str]:
    """Each view's definition: what the statement that creates it is made of, without its
    parents' data. Its code and that of everything upstream (a parent's columns are its
    code's), the project's settings and engine, the project's Python package (the loaders
    shape the raw tables' columns), and the as-of date when the view's SQL, or an ephemeral
    model's inlined into it, calls ``as_of_date()`` (the date is written into the view).

    A view reads its parents when queried: one whose definition is the one it was created
    with stays as it is when only its parents' rows changed (``BuildPlan.kept``)."""
    nodes = manifest["nodes"]
    closure = _macro_closure(manifest)
    code_version = _code_versions(nodes, closure, _macro_code(manifest))
    common = _common(manifest, project_settings)
    python_code = python_code if python_code is not None else package_code_version()

    def writes_as_of(uid: str, path: tuple[str, ...] = ()) -> bool:
        node = nodes.get(uid)
        if node is None or uid in path:
            return False
        if AS_OF_MACRO in _macros_used(node, closure):
            return True
        return any(
            writes_as_of(parent, (*path, uid))
            for parent in node.get("depends_on", {}).get("nodes", [])
            if nodes.get(parent, {}).get("config", {}).get("materialized") == "ephemeral"
        )

    return {
        uid: _sha(
            common,
            python_code,
            code_version(uid),
            as_of.isoformat() if writes_as_of(uid) else None,
        )
        for uid, node in nodes.items()
        if node["resource_type"] == "model"
        and node.get("config", {}).get("materialized") == "view"
    }


def as_of_readers(manifest: Mapping[str, Any]) -> set[str]:
    """The nodes that call ``as_of_date()``, directly or through macros."""
    closure = _macro_closure(manifest)
    return {
        uid for uid, node in manifest["nodes"].items() if AS_OF_MACRO in _macros_used(node, closure)
    }


def source_versions(
    con: duckdb.DuckDBPyConnection, manifest: Mapping[str, Any]
) -> dict[str, str | None]:
    """Each source's version: the load that wrote its raw table; None for anything else."""
    try:
        loads = dict(con.execute("select table_name, load_id from meta.raw_tables").fetchall())
    except duckdb.CatalogException:  # a warehouse nothing was ever loaded into
        loads = {}
    out: dict[str, str | None] = {}
    for uid, source in manifest["sources"].items():
        table = f"{source['schema']}.{source.get('identifier') or source['name']}"
        out[uid] = loads.get(table) if source["schema"] == "raw" else None
    return out


def _existing_relations(con: duckdb.DuckDBPyConnection) -> set[tuple[str, str]]:
    rows = con.execute("select table_schema, table_name from information_schema.tables").fetchall()
    return {(schema.lower(), name.lower()) for schema, name in rows}


def recorded(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    try:
        return dict(con.execute("select unique_id, version from meta.dbt_versions").fetchall())
    except duckdb.CatalogException:
        return {}


def _recorded_column(con: duckdb.DuckDBPyConnection, column: str) -> dict[str, str]:
    try:
        rows = con.execute(
            f"select unique_id, {column} from meta.dbt_versions where {column} is not null"
        ).fetchall()
    except duckdb.Error:  # no table, or one without the column
        return {}
    return dict(rows)


def recorded_test_code(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The code of each data test when it last passed (none before the column existed)."""
    return _recorded_column(con, "test_code")


def recorded_definitions(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The definition of each view when a passed build last created or kept it."""
    return _recorded_column(con, "definition")


def _identifier(node: Mapping[str, Any]) -> str:
    """A model's table name."""
    return str(node.get("alias") or node["name"])


def _relation(node: Mapping[str, Any]) -> tuple[str, str]:
    """A node's (schema, table), as ``_existing_relations`` lists them."""
    return (str(node["schema"]).lower(), _identifier(node).lower())


def up_to_date(
    con: duckdb.DuckDBPyConnection,
    manifest: Mapping[str, Any],
    versions: Mapping[str, str | None],
    candidates: Iterable[str],
    previous: Mapping[str, str],
) -> set[str]:
    """The ``candidates`` a build may skip: version known, equal to the ``previous`` one
    recorded, and the relation is there (an ephemeral model has none and is never skipped:
    it is SQL inlined into its children, which are decided on their own)."""
    existing = _existing_relations(con)
    skip = set()
    for uid in candidates:
        node = manifest["nodes"].get(uid)
        if node is None or node["resource_type"] not in BUILT_TYPES:
            continue
        if node.get("config", {}).get("materialized") == "ephemeral":
            continue
        version = versions.get(uid)
        if version is not None and previous.get(uid) == version and _relation(node) in existing:
            skip.add(uid)
    return skip


def kept_views(
    con: duckdb.DuckDBPyConnection,
    manifest: Mapping[str, Any],
    definitions: Mapping[str, str],
    candidates: Iterable[str],
    previous: Mapping[str, str],
) -> set[str]:
    """The views among ``candidates`` (nodes to build) a build may leave as they are: the
    view is there and its definition is the one ``previous``ly recorded, so creating it again
    would write the same statement (``view_definitions``)."""
    existing = _existing_relations(con)
    kept = set()
    for uid in candidates:
        node = manifest["nodes"].get(uid)
        if node is None or uid not in definitions:
            continue
        if previous.get(uid) == definitions[uid] and _relation(node) in existing:
            kept.add(uid)
    return kept


def record(
    con: duckdb.DuckDBPyConnection,
    versions: Mapping[str, str | None],
    built: Iterable[str],
    test_code: Mapping[str, str] | None = None,
    definitions: Mapping[str, str] | None = None,
) -> int:
    """Record the versions of the nodes a passed build built (or kept: a view), the code of
    its data tests (``test_code``: ``test_code_versions``) and its views' definitions
    (``definitions``: ``view_definitions``); the number recorded.

    One statement: the warehouse's connections checkpoint at every commit
    (``connection.CHECKPOINT_THRESHOLD``), and ``executemany`` commits a row at a time, which
    took 5.6 s for a week's 220 nodes on a 2 GB warehouse against 0.05 s."""
    # a view without a version (built on a table that is not a load) is recorded for its
    # definition, its version empty: it is never up to date, but it may be kept
    rows = [
        (uid, versions.get(uid) or "")
        for uid in sorted(set(built))
        if versions.get(uid) is not None or uid in (definitions or {})
    ]
    con.execute("create schema if not exists meta")
    con.execute(VERSIONS_DDL)
    for statement in VERSIONS_NEW_COLUMNS:
        con.execute(statement)
    if rows:
        con.execute(
            "insert or replace into meta.dbt_versions"
            " (unique_id, version, built_at, test_code, definition)"
            " select unnest($ids), unnest($versions), now(), unnest($codes), unnest($definitions)",
            {
                "ids": [uid for uid, _ in rows],
                "versions": [version for _, version in rows],
                "codes": [(test_code or {}).get(uid) for uid, _ in rows],
                "definitions": [(definitions or {}).get(uid) for uid, _ in rows],
            },
        )
    return len(rows)


def finished_part(
    manifest: Mapping[str, Any],
    plan: BuildPlan,
    built: Iterable[str],
    passed: Iterable[str],
) -> frozenset[str]:
    """What a build that failed part-way may record (:func:`record`), so that the next
    build resumes after it: the nodes of its ``plan`` it ``built`` (models, seeds,
    snapshots, kept views) whose data tests in the build all ``passed``, the tests that
    passed, and the unit tests of the models it built (dbt builds a model only once its
    unit tests have passed). A data test belongs to the model it is declared on, a singular
    test to every model it reads: a model built but not yet checked when the build stopped
    is not recorded, and is built and tested again."""
    nodes = {**manifest["nodes"], **manifest.get("unit_tests", {})}
    scope = plan.run | plan.kept
    passed_tests = set(passed) & plan.run
    checks: dict[str, set[str]] = {}
    unit_tests: dict[str, set[str]] = {}
    for uid in plan.run:
        node = nodes.get(uid)
        if node is None or node["resource_type"] not in ("test", "unit_test"):
            continue
        parents = node.get("depends_on", {}).get("nodes", [])
        if node["resource_type"] == "unit_test":
            for parent in parents:
                unit_tests.setdefault(parent, set()).add(uid)
            continue
        attached = node.get("attached_node")
        for parent in [attached] if attached else parents:
            checks.setdefault(parent, set()).add(uid)
    finished = {uid for uid in set(built) & scope if checks.get(uid, set()) <= passed_tests}
    implied = {test for uid in finished for test in unit_tests.get(uid, ())}
    return frozenset(finished | passed_tests | implied)


def clear_written_keys(
    con: duckdb.DuckDBPyConnection, manifest: Mapping[str, Any], built: Iterable[str]
) -> int:
    """Once their tests have passed (in a passed build, or in the finished part of a failed
    one: :func:`finished_part`), forget what the models' builds wrote (meta.<model>__written_keys, macros/materializations/written_keys.sql): their
    tests have checked those rows. The number of records dropped."""
    names = {
        _identifier(manifest["nodes"][uid]) + "__written_keys"
        for uid in built
        if uid in manifest["nodes"] and manifest["nodes"][uid]["resource_type"] == "model"
    }
    found = [
        name
        for (name,) in con.execute(
            "select table_name from duckdb_tables()"
            " where database_name = current_database() and schema_name = 'meta'"
        ).fetchall()
        if name in names
    ]
    for name in found:
        con.execute(f'drop table meta."{name}"')
    return len(found)


def scoped_test_models(
    manifest: Mapping[str, Any],
    tests_to_run: Iterable[str],
    test_code: Mapping[str, str],
    previous_code: Mapping[str, str],
) -> frozenset[str]:
    """The models (by table name) whose tests to run all have the code they last passed
    with: their tests may check only the rows written since (SCOPED_TESTS_ENV). A model read
    by a new or changed test is checked whole, by every test."""
    clean: dict[str, bool] = {}
    for uid in tests_to_run:
        node = manifest["nodes"].get(uid)
        if node is None or node["resource_type"] != "test":
            continue
        same = uid in test_code and previous_code.get(uid) == test_code[uid]
        for parent in node.get("depends_on", {}).get("nodes", []):
            model = manifest["nodes"].get(parent)
            if model is not None and model["resource_type"] == "model":
                name = _identifier(model)
                clean[name] = clean.get(name, True) and same
    return frozenset(name for name, ok in clean.items() if ok)


def topological_order(manifest: Mapping[str, Any], uids: Iterable[str]) -> list[str]:
    """``uids`` with every node after the nodes it depends on."""
    nodes = manifest["nodes"]
    wanted, done, order = set(uids), set(), []

    def visit(uid: str) -> None:
        if uid in done or uid not in nodes:
            return
        done.add(uid)
        for parent in sorted(nodes[uid].get("depends_on", {}).get("nodes", [])):
            visit(parent)
        if uid in wanted:
            order.append(uid)

    for uid in sorted(wanted):
        visit(uid)
    return order


def _closed_upwards(manifest: Mapping[str, Any], skip: set[str]) -> set[str]:
    """Keep a node skipped only if everything it is built from is too (through ephemeral
    models, inlined SQL): a table rebuilt only because it was missing keeps its version,
    and so would its children, but Dagster needs a model's parents settled before it."""
    nodes = manifest["nodes"]
    clean: dict[str, bool] = {}

    def is_clean(uid: str) -> bool:
        if uid.startswith("source."):
            return True
        if uid not in clean:
            node = nodes.get(uid)
            if node is None:
                clean[uid] = False
            elif node.get("config", {}).get("materialized") == "ephemeral":
                clean[uid] = all(map(is_clean, node.get("depends_on", {}).get("nodes", [])))
            else:
                clean[uid] = uid in skip and all(
                    map(is_clean, node.get("depends_on", {}).get("nodes", []))
                )
        return clean[uid]

    return {uid for uid in skip if uid not in nodes or is_clean(uid)}


@dataclass(frozen=True)
class BuildPlan:
    """What one whole-project dbt build runs and skips, and the versions it records."""

    versions: Mapping[str, str | None]
    run: frozenset[str]  # unique ids the build runs (models, seeds, snapshots, tests)
    skip: frozenset[str]  # up to date: left as they are
    left_out: frozenset[str]  # tests of nodes outside this build (another job's)
    selectors: Mapping[str, str]  # unique id -> a selection naming it alone
    test_code: Mapping[str, str] = field(default_factory=dict)  # test_code_versions
    tests_scoped: frozenset[str] = frozenset()  # scoped_test_models
    # views whose parents' rows changed but not their definition: left as they are, their
    # new versions recorded and their tests run (view_definitions)
    kept: frozenset[str] = frozenset()
    definitions: Mapping[str, str] = field(default_factory=dict)  # view_definitions

    def exclude_args(self) -> list[str]:
        """dbt arguments that leave out the skipped nodes and tests and the kept views; with
        indirect selection `empty`, a test runs because it is selected, not because a model
        it reads is (the tests of a skipped model are skipped by their own version; a kept
        view's run)."""
        if not self.skip and not self.kept:  # dbt's own selection: the excluded tags' tests go with them
            return []
        excluded = sorted(self.selectors[uid] for uid in self.skip | self.left_out | self.kept)
        return ["--indirect-selection", "empty", "--exclude", " ".join(excluded)]

    def summary(self) -> str:
        def count(uids: frozenset[str], kind: str) -> int:
            return sum(1 for uid in uids if uid.split(".", 1)[0] == kind)

        return (
            f"{count(self.run, 'model')} models, {count(self.run, 'seed') + count(self.run, 'snapshot')}"
            f" seeds and snapshots, {count(self.run, 'test') + count(self.run, 'unit_test')} tests to build;"
            f" {count(self.skip, 'model')} models, {count(self.skip, 'seed') + count(self.skip, 'snapshot')}"
            f" seeds and snapshots, {count(self.skip, 'test') + count(self.skip, 'unit_test')} tests up to date;"
            f" {len(self.kept)} views kept as they are"
        )


def plan_build(
    con: duckdb.DuckDBPyConnection,
    manifest: Mapping[str, Any],
    *,
    as_of: dt.date,
    project_settings: str,
    excluded_tags: Iterable[str] = (),
    python_code: str | None = None,
    skip_unchanged: bool = True,
) -> BuildPlan:
    """Plan a build of every node but those tagged ``excluded_tags`` (and their tests):
    run what is not up to date, skip the rest (``skip_unchanged`` false: run everything,
    and record it all)."""
    nodes = {**manifest["nodes"], **manifest.get("unit_tests", {})}
    versions = node_versions(
        manifest,
        source_versions=source_versions(con, manifest),
        as_of=as_of,
        project_settings=project_settings,
        python_code=python_code if python_code is not None else package_code_version(),
    )
    out_tags = set(excluded_tags)
    outside = {
        uid
        for uid, node in nodes.items()
        if node["resource_type"] in BUILT_TYPES and out_tags & set(node.get("tags") or ())
    }
    candidates, left_out = set(), set()
    for uid in versions:
        node = nodes[uid]
        if uid in outside:
            continue
        if node["resource_type"] in ("test", "unit_test") and outside & set(
            node.get("depends_on", {}).get("nodes", [])
        ):
            left_out.add(uid)
        else:
            candidates.add(uid)
    previous = recorded(con) if skip_unchanged else {}
    skip = up_to_date(con, manifest, versions, candidates, previous) if skip_unchanged else set()
    skip = _closed_upwards(manifest, skip)
    definitions = view_definitions(
        manifest,
        as_of=as_of,
        project_settings=project_settings,
        python_code=python_code if python_code is not None else package_code_version(),
    )
    kept = (
        kept_views(con, manifest, definitions, candidates - skip, recorded_definitions(con))
        if skip_unchanged
        else set()
    )
    # tests: skipped when their version is the one that last passed
    skip |= {
        uid
        for uid in candidates
        if nodes[uid]["resource_type"] in ("test", "unit_test")
        and versions[uid] is not None
        and previous.get(uid) == versions[uid]
    }
    selectors = {uid: "fqn:" + ".".join(nodes[uid]["fqn"]) for uid in skip | left_out | kept}
    run = frozenset(candidates - skip - kept)
    test_code = test_code_versions(manifest)
    scoped = (
        scoped_test_models(manifest, run, test_code, recorded_test_code(con))
        if skip_unchanged
        else frozenset()
    )
    return BuildPlan(
        versions=versions,
        run=run,
        skip=frozenset(skip),
        left_out=frozenset(left_out),
        selectors=selectors,
        test_code=test_code,
        tests_scoped=scoped,
        kept=frozenset(kept),
        definitions=definitions,
    )
