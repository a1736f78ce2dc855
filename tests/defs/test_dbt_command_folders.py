"""dbt command folders under dbt_project/target: a failed command's is kept to read, the
newest few of them only (pipelines/defs/transform/project.py)."""

import os
from pathlib import Path

import pytest

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


class _Invocation:
    """What stream_and_tidy reads of dagster-dbt's DbtCliInvocation."""

    def __init__(self, project_dir: Path, target_path: Path, fails: bool) -> None:
        self.project_dir, self.target_path, self.fails = project_dir, target_path, fails

    def stream(self):  # type: ignore[no-untyped-def]
        yield "event"
        if self.fails:
            raise RuntimeError("dbt failed")


def test_a_command_that_succeeds_leaves_no_folder_and_one_that_fails_keeps_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipelines.defs.transform import project

    old = [_folder(tmp_path, f"dbt_models-{i:07x}-0000000", 1_000_000 + i) for i in range(3)]
    done = _folder(tmp_path, "dbt_models-aaaaaaa-bbbbbbb", 2_000_000)
    events = list(project.stream_and_tidy(_Invocation(tmp_path, Path(done.name), False)))
    assert events == ["event"]
    assert not done.exists() and all(p.exists() for p in old)

    failed = _folder(tmp_path, "dbt_models-ccccccc-ddddddd", 3_000_000)
    monkeypatch.setattr(project, "FAILED_COMMANDS_KEPT", 2)
    with pytest.raises(RuntimeError, match="dbt failed"):
        list(project.stream_and_tidy(_Invocation(tmp_path, Path(failed.name), True)))
    assert failed.exists() and old[2].exists()
    assert not old[0].exists() and not old[1].exists()
