"""No module of the package imports itself through others (issue 22, item 10): a circle makes
the import order matter and hides which part depends on which. Imports inside functions
count (they run); imports under ``if TYPE_CHECKING:`` do not.

The sample generator (``bvs_sample``, issue 22 item 5) is a package of its own that the
product never imports: only the ``bvs sample`` command reaches it, through an import inside
the command, and the generator reaches neither the API, the Dagster definitions, serving nor
the CLI. ``make lint`` holds the same boundaries with import-linter; these tests hold them
where CI runs only the tests."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (ROOT / "pipelines", ROOT / "bvs_sample")
GENERATOR = "bvs_sample"
# what the generator must never reach, directly or through other modules
GENERATOR_FORBIDDEN = (
    "pipelines.api", "pipelines.defs", "pipelines.definitions", "pipelines.serving",
    "pipelines.cli", "dagster", "dagster_dbt", "dagster_webserver", "fastapi",
)  # fmt: skip


@cache
def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in package.rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _runtime_imports(tree: ast.AST, typing: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree``; those under ``if TYPE_CHECKING:`` only with
    ``typing``."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in ast.iter_child_nodes(tree):
        if not typing and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found += [n for child in node.orelse for n in _runtime_imports(child)]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        found += _runtime_imports(node, typing)
    return found


def _within(name: str, prefixes: tuple[str, ...] | str) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def import_graph(
    *, external: bool = False, top_level: bool = False, typing: bool = False
) -> dict[str, set[str]]:
    """module -> the modules of the two packages it imports (``external``: every imported
    name, third-party ones too; ``top_level``: only the imports that run at import time,
    not those inside functions; ``typing``: the imports under ``if TYPE_CHECKING:`` too)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        tree = _parse(path)
        nodes = (
            [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
            if top_level
            else _runtime_imports(tree, typing)
        )
        for node in nodes:
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if external or a.name in modules}
                continue
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.add(full if full in modules else base)
        graph[name] = {t for t in targets if (external or t in modules) and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_finder_sees_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_package_has_no_import_circle() -> None:
    graph = import_graph()
    assert "pipelines.state.tables" in graph["pipelines.state.db"]  # the graph is read
    assert circles(graph) == []


def test_the_live_package_has_no_import_circle_not_even_for_types() -> None:
    """The live checks (issue 37, item 5): the clients' findings are a module of their own
    that the checker fills and the outcome rules read, so neither the rules (tiles) nor the
    checker needs the other's module to be read, not even by a type checker."""
    graph = import_graph(typing=True)
    live = {m: {t for t in ts if _within(t, "pipelines.live")} for m, ts in graph.items()
            if _within(m, "pipelines.live")}  # fmt: skip
    assert "pipelines.live.tiles" in live["pipelines.live.checker"]  # the graph is read
    assert circles(live) == []


def test_the_generator_has_no_import_circle() -> None:
    graph = import_graph()
    assert "bvs_sample.families.core" in graph["bvs_sample.families.names"]  # the graph is read
    assert [c for c in circles(graph) if any(_within(m, GENERATOR) for m in c)] == []


def test_the_product_never_imports_the_generator() -> None:
    graph = import_graph()
    importers = {
        m
        for m, ts in graph.items()
        if not _within(m, GENERATOR) and any(_within(t, GENERATOR) for t in ts)
    }
    assert importers == {"pipelines.cli"}  # `bvs sample`, and no other module
    # ... and only inside the command, so `bvs` itself (and whatever imports the CLI) never loads it
    top = import_graph(top_level=True)
    assert not any(_within(t, GENERATOR) for t in top["pipelines.cli"])


def test_the_generator_never_reaches_the_api_dagster_serving_or_the_cli() -> None:
    graph = import_graph(external=True)
    reached: set[str] = set()
    todo = [m for m in graph if _within(m, GENERATOR)]
    while todo:
        module = todo.pop()
        if module in reached:
            continue
        reached.add(module)
        todo += [t for t in graph.get(module, ()) if t in graph]
        reached |= {t for t in graph.get(module, ()) if t not in graph}
    assert "pipelines.matching" in reached  # the graph is followed into the product
    assert sorted(m for m in reached if _within(m, GENERATOR_FORBIDDEN)) == []
