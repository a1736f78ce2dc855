"""README's "What lives where" names only paths that exist (issue 37, item 3).

The map is a code block: each line is a path column, two or more spaces, then what it is. A
line indented under a folder (two spaces a level) names a path inside it; a path column may
list several names separated by ", "; `<register>` stands for any name; a name without a
suffix (`cli`, `snapshot`) is a module or a package, so both `cli.py` and `cli/` count.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def map_block(readme: str) -> list[str]:
    section = readme.split("## What lives where", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


def named_paths(block: list[str]) -> list[str]:
    """Every path the map names, relative to the repository's root, in the map's order."""
    paths: list[str] = []
    parents: list[tuple[int, str]] = []  # (indent, folder) of the enclosing entries
    for line in block:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        column = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        if indent and not any(indent > i for i, _ in parents):
            raise AssertionError(f"an indented line under no folder: {line!r}")
        while parents and parents[-1][0] >= indent:
            parents.pop()
        # a continuation line: the path column is words, not a path
        names = column.split(", ")
        if any(" " in name for name in names):
            continue
        prefix = parents[-1][1] if parents else ""
        for name in names:
            paths.append(prefix + name)
        if len(names) == 1 and names[0].endswith("/"):
            parents.append((indent, prefix + names[0]))
    return paths


def exists(path: str, root: Path = ROOT) -> bool:
    pattern = re.sub(r"<[^>]+>", "*", path.rstrip("/"))
    if "*" in pattern:
        return any(root.glob(pattern))
    target = root / pattern
    if path.endswith("/"):
        return target.is_dir()
    if target.suffix or target.name.startswith("."):
        return target.is_file()
    # a module named without `.py`: a file or a package folder
    return target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()


def test_every_path_the_readme_map_names_exists() -> None:
    paths = named_paths(map_block((ROOT / "README.md").read_text()))
    assert len(paths) > 80
    missing = [p for p in paths if p != "data/" and not exists(p)]
    assert missing == []


def test_the_map_names_every_top_level_folder_of_the_package_and_the_dbt_project() -> None:
    paths = set(named_paths(map_block((ROOT / "README.md").read_text())))
    folders = [
        *(
            f"pipelines/{p.name}/"
            for p in (ROOT / "pipelines").iterdir()
            if (p / "__init__.py").is_file()
        ),
        *(f"pipelines/{p.stem}" for p in (ROOT / "pipelines").glob("*.py") if p.stem != "__init__"),
        *(
            f"dbt_project/models/{p.name}/"
            for p in (ROOT / "dbt_project" / "models").iterdir()
            if p.is_dir()
        ),
    ]
    named = {p.removesuffix(".py") for p in paths}
    unnamed = [
        f
        for f in folders
        if f.rstrip("/") not in {p.rstrip("/") for p in named}
        and not any(p.startswith(f) for p in named)
    ]
    assert unnamed == []


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            ["a/   x", "  b.py, c   y", "  d/   z", "    e.py   w", "f/   v"],
            ["a/", "a/b.py", "a/c", "a/d/", "a/d/e.py", "f/"],
        ),  # fmt: skip
        (["a/   x", "                 more words", "  b.py   y"], ["a/", "a/b.py"]),
    ],
)
def test_the_map_is_read_as_a_tree(block: list[str], expected: list[str]) -> None:
    assert named_paths(block) == expected


def test_a_named_path_that_is_gone_is_reported(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "mod").mkdir(parents=True)
    (tmp_path / "pkg" / "mod" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "one.py").write_text("")
    assert exists("pkg/mod", tmp_path) and exists("pkg/one", tmp_path)
    assert exists("pkg/one.py", tmp_path) and exists("pkg/<x>.py", tmp_path)
    assert not exists("pkg/two.py", tmp_path) and not exists("pkg/two", tmp_path)
    assert not exists("pkg/one.py/", tmp_path)
