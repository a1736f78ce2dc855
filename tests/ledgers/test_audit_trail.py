"""The audit trail's verification names the file's lines (issue 36, item 4): a reordered,
shortened or copied trail says which lines, not "entry 2 has number 1, expected 3"."""

from __future__ import annotations

from pipelines.ledgers.overrides import _append, trail_path, verify_trail
from pipelines.settings import Settings


def _trail(settings: Settings, entries: int) -> list[str]:
    for n in range(entries):
        _append(settings, "acme", {"action": "override", "ledger": "suppliers",
                                   "supplier_ref": f"S{n}", "field": "phone", "new": "0755550000",
                                   "by": "test", "reason": "called them"})  # fmt: skip
    return trail_path(settings, "acme").read_text().splitlines()


def _rewrite(settings: Settings, lines: list[str]) -> None:
    trail_path(settings, "acme").write_text("\n".join(lines) + "\n")


def test_an_intact_trail_verifies(settings: Settings) -> None:
    _trail(settings, 3)
    assert verify_trail(settings, "acme") == []


def test_two_lines_swapped_are_named_and_nothing_else_is_blamed(settings: Settings) -> None:
    first, second, third = _trail(settings, 3)
    _rewrite(settings, [second, first, third])

    problems = verify_trail(settings, "acme")

    assert len(problems) == 1, problems
    assert problems[0].startswith(
        "lines 1 and 2 are out of order: entry 2 (line 1) comes before entry 1 (line 2)"
    )
    assert not any("expected" in p for p in problems)


def test_an_entry_moved_to_the_end_names_its_line(settings: Settings) -> None:
    lines = _trail(settings, 4)
    _rewrite(settings, [lines[0], lines[2], lines[3], lines[1]])

    problems = verify_trail(settings, "acme")

    assert any(
        p.startswith(
            "lines 3 and 4 are out of order: entry 4 (line 3) comes before entry 2 (line 4)"
        )
        for p in problems
    ), problems


def test_a_removed_and_a_copied_entry_are_named(settings: Settings) -> None:
    lines = _trail(settings, 4)
    _rewrite(settings, [lines[0], lines[2], lines[3]])
    assert "entry 2 is missing: removed from the trail" in verify_trail(settings, "acme")
    _rewrite(settings, [lines[0], lines[1], lines[1], lines[2], lines[3]])
    assert any(p.startswith("entry 2 is on 2 lines (2, 3)") for p in verify_trail(settings, "acme"))


def test_an_edited_entry_is_named_with_its_line(settings: Settings) -> None:
    lines = _trail(settings, 2)
    _rewrite(settings, [lines[0].replace("called them", "emailed them"), lines[1]])
    problems = verify_trail(settings, "acme")
    assert problems == ["entry 1 was altered (line 1: its content no longer matches its hash)"]
