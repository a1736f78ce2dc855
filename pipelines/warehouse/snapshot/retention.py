"""Retention: what a publish leaves behind. The newest ``settings.snapshots_kept`` files and
the current one are kept, the rest deleted with their sidecars; the leftovers of an
interrupted publish are removed before the next one starts.

A deleted file stays readable through an open connection (POSIX unlink semantics), so a
reader on an old snapshot keeps working until it reopens.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from .core import (
    SIDECAR_SUFFIX,
    SUFFIX,
    TMP_SUFFIX,
    fsync_dir,
    remove_database_file,
    snapshot_files,
    snapshots_dir,
)
from .pointer import current_snapshot

if TYPE_CHECKING:
    from pipelines.settings import Settings

log = logging.getLogger(__name__)


def clean_leftovers(settings: Settings) -> list[Path]:
    """Delete ``*.duckdb.tmp`` files (and their WALs) an interrupted publish left behind."""
    directory = snapshots_dir(settings)
    if not directory.is_dir():
        return []
    removed = []
    for path in sorted(directory.iterdir()):
        if path.name.endswith((TMP_SUFFIX, TMP_SUFFIX + ".wal", SIDECAR_SUFFIX + ".tmp")):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(path)
    if removed:
        log.info("removed %d leftover file(s) of an interrupted publish", len(removed))
    return removed


def retain_snapshots(settings: Settings) -> list[Path]:
    """Keep the newest ``snapshots_kept`` files and the current one; delete the rest.

    Readers that still hold a deleted file open keep reading it until they close it.
    """
    current = current_snapshot(settings)
    files = snapshot_files(snapshots_dir(settings))
    keep = set(files[-settings.snapshots_kept :])
    if current is not None:
        keep.add(current.path)
    removed = [path for path in files if path not in keep]
    for path in removed:
        remove_database_file(path)
        for sidecar in path.parent.glob(f"{path.name[: -len(SUFFIX)]}.*{SIDECAR_SUFFIX}"):
            sidecar.unlink(missing_ok=True)
    if removed:
        fsync_dir(snapshots_dir(settings))
        log.info("deleted %d old snapshot(s): %s", len(removed), ", ".join(p.name for p in removed))
    return removed
