"""No module of the package imports itself through others (issue 22, item 10): a circle makes
the import order matter and hides which part depends on which. Imports inside functions
count (they run); imports under ``if TYPE_CHECKING:`` do not."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pipelines"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found += [n for child in node.orelse for n in _runtime_imports(child)]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        found += _runtime_imports(node)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names if alias.name in modules}
                continue
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.add(full if full in modules else base)
        graph[name] = {t for t in targets if t in modules and t != name}
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
