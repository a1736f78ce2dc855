"""The package uses Dagster's and dbt's public API only (issue 37, item 6): no module imports
a private module (a ``_`` part: ``dagster._core``, ``dagster._utils``) of Dagster, its
libraries or dbt, by an import statement or by name (``importlib``). A private method the
package overrides, and a module it names only to warm a process, are listed here with the
reason, and the overrides are checked to exist in the installed version: an upgrade that
renames one fails here instead of quietly turning the override off."""

from __future__ import annotations

import ast
import re

from tests.test_import_graph import _modules, _parse

VENDORS = ("dagster", "dagster_dbt", "dagster_webserver", "dagster_shared", "dagster_pipes",
           "dbt", "dbt_common")  # fmt: skip
# a dotted module name of one of them with a private part
PRIVATE = re.compile(rf"^(?:{'|'.join(VENDORS)})(?:\.\w+)*\._\w*")
# module -> why it may name private modules (as strings, never imported for use)
NAMED_BY_STRING_ALLOWED: dict[str, str] = {}
# private methods of public classes the package overrides, and why
OVERRIDDEN = {
    ("dagster_dbt", "DbtCliResource", "_initialize_dbt_core_adapter"):
        "no in-process dbt adapter per step (pipelines/defs/transform/project.py, 2.5 s a step)",
    ("dagster_dbt", "DbtCliResource", "_cli_version"):
        "no `dbt --version` before a run's first command (project.py)",
}  # fmt: skip


def _imported(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return names


def _strings(tree: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]  # fmt: skip


def test_the_pattern_sees_private_modules() -> None:
    assert PRIVATE.match("dagster._core.storage.dagster_run")
    assert PRIVATE.match("dagster._utils")
    assert PRIVATE.match("dbt_common._internal")
    assert not PRIVATE.match("dagster_dbt.dbt_project")
    assert not PRIVATE.match("dbt.cli.main")
    assert not PRIVATE.match("dagsterx._core")


def test_no_module_imports_a_private_module_of_dagster_or_dbt() -> None:
    found = {
        f"{module}: {name}"
        for module, path in _modules().items()
        for name in _imported(_parse(path))
        if PRIVATE.match(name)
    }
    assert sorted(found) == []


def test_no_module_names_one_to_import_it_but_the_warm_list() -> None:
    found = {
        module
        for module, path in _modules().items()
        if any(PRIVATE.match(s) for s in _strings(_parse(path)))
    }
    assert found <= set(NAMED_BY_STRING_ALLOWED), sorted(found - set(NAMED_BY_STRING_ALLOWED))


def test_the_private_methods_overridden_still_exist() -> None:
    import importlib

    for (module, cls, attr), why in OVERRIDDEN.items():
        owner = getattr(importlib.import_module(module), cls)
        assert hasattr(owner, attr), f"{module}.{cls}.{attr} is gone: the override ({why}) is dead"
