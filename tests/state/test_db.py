"""The state database's files are its owner's alone."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pipelines.settings import Settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_state_database_is_readable_by_its_owner_only(settings: Settings) -> None:
    """It holds API key hashes, owners and customers: 0600 files in a 0700 folder, whatever
    the umask (here the usual 022, which leaves new files world-readable)."""
    previous = os.umask(0o022)
    try:
        with state_store(settings) as engine:
            create_key(engine, "someone", "individual")  # a write: the WAL exists now
            files = sorted(settings.state_dir.glob("bvs.sqlite*"))
            assert {f.name for f in files} >= {"bvs.sqlite", "bvs.sqlite-wal", "bvs.sqlite-shm"}
            assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert _mode(settings.state_dir) == 0o700
    finally:
        os.umask(previous)


def test_a_state_database_an_older_version_left_world_readable_is_closed_up(
    settings: Settings,
) -> None:
    with state_store(settings) as engine:
        create_key(engine, "someone", "individual")
    database = settings.state_dir / "bvs.sqlite"
    database.chmod(0o644)
    with state_store(settings):
        assert _mode(database) == 0o600
