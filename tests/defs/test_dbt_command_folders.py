"""dbt command folders under dbt_project/target: a failed command's is kept to read, the
newest few of them only (pipelines/defs/transform/project.py)."""

import os
from pathlib import Path

from pipelines.defs.transform.project import prune_failed_commands


def _folder(target: Path, name: str, mtime: int) -> Path:
    path = target / name
    (path / "compiled").mkdir(parents=True)
    (path / "dbt.log").write_text("failed\n")
    os.utime(path, (mtime, mtime))
    return path


def test_only_the_newest_failed_commands_are_kept_and_nothing_else_is_touched(
    tmp_path: Path,
) -> None:
    commands = [
        _folder(tmp_path, f"ledger_dbt_models-{i:07x}-abcdef{i % 10}", 1_000_000 + i)
        for i in range(8)
    ]
    # the command this process streams is the oldest here (a long build): never removed
    running = commands[0]
    # dbt's own files and folders, and the partial parses: not command folders
    for name in ("compiled", "run", "partial_parse"):
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (1, 1))
    (tmp_path / "manifest.json").write_text("{}")
    (tmp_path / "not-a-command").mkdir()

    removed = prune_failed_commands(tmp_path, keep=3, running=running)

    assert sorted(removed) == sorted(commands[1:5])
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(
        [c.name for c in (running, *commands[5:])]
        + ["compiled", "run", "partial_parse", "manifest.json", "not-a-command"]
    )


def test_a_missing_target_folder_is_nothing_to_prune(tmp_path: Path) -> None:
    assert prune_failed_commands(tmp_path / "absent", keep=3) == []
