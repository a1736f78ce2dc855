"""The reference pages name what exists (issue 22): every dbt model, snapshot and seed in
dbt_project/README.md, every landing source in docs/landing.md, every `bvs` command in the
README's command table. A new model, source or command without its line fails here."""

from __future__ import annotations

import re
from pathlib import Path

from pipelines.cli import build_parser
from pipelines.ingest.sources import SOURCES

ROOT = Path(__file__).resolve().parents[1]
DBT = ROOT / "dbt_project"


def test_dbt_readme_names_every_model_snapshot_and_seed() -> None:
    readme = (DBT / "README.md").read_text()
    nodes = [
        *(p for p in (DBT / "models").rglob("*") if p.suffix in {".sql", ".py"}),
        *(DBT / "snapshots").glob("*.sql"),
        *(DBT / "seeds").glob("*.csv"),
    ]
    assert len(nodes) > 100
    assert [p.stem for p in nodes if f"`{p.stem}`" not in readme] == []


def test_landing_page_names_every_source_folder_and_its_files() -> None:
    page = (ROOT / "docs" / "landing.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    missing = [
        name
        for name, source in SOURCES.items()
        if not any(
            row.startswith(f"| `{source.folder}/` |")
            and all(f"raw.{t.name}" in row for t in source.tables.values())
            for row in rows
        )
    ]
    assert missing == []


def test_readme_command_table_names_every_bvs_command() -> None:
    readme = (ROOT / "README.md").read_text()
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices  # noqa: SLF001
    assert [c for c in commands if f"`bvs {c}" not in readme] == []


def test_landing_page_says_which_files_each_folder_reads() -> None:
    """Issue 34: every file, the newest snapshot or the newest file, as the loader does."""
    from pipelines.ingest.files import dated_name_key, every_file_key, latest_file_key

    reads = {
        every_file_key: "every file",
        dated_name_key: "newest snapshot",
        latest_file_key: "newest file",
    }
    page = (ROOT / "docs" / "landing.md").read_text()
    header = next(line for line in page.splitlines() if line.startswith("| folder |"))
    column = [c.strip() for c in header.split("|")].index("a load reads")
    rows = [
        [c.strip() for c in line.split("|")] for line in page.splitlines() if line.startswith("| `")
    ]
    documented = {(cells[1].strip("`").rstrip("/"), cells[column]) for cells in rows}
    wrong = [
        name
        for name, source in SOURCES.items()
        if (source.folder, reads[source.snapshot_key]) not in documented
    ]
    assert wrong == []


def test_docs_say_what_is_true_now_not_when_it_was_measured() -> None:
    """Issue 37 item 2: no dated diary sections ("(27 November 2026, 03:20)", "the fifth
    day"); a figure carries the command that reproduces it, history belongs to git."""
    months = "January|February|March|April|May|June|July|August|September|October|November|December"
    dated = re.compile(
        rf"\b\d{{1,2}} ({months})(,? 20\d\d\b|, \d{{1,2}}:\d\d)"  # (27 November 2026, 03:20)
        rf"|\b({months}) 20\d\d:"  # "On 2 cores, November 2026:"
        r"|\b(first|second|third|fourth|fifth) day\b"
    )
    pages = [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md", DBT / "README.md"]
    found = [
        f"{page.relative_to(ROOT)}:{n}: {line.strip()}"
        for page in pages
        for n, line in enumerate(page.read_text().splitlines(), 1)
        if dated.search(line)
    ]
    assert found == []
