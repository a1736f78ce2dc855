"""The pointer ``<serving_dir>/CURRENT`` and reading snapshots.

The pointer is a small JSON file naming the current snapshot file, its sidecars and its
metadata; it is switched by writing a temp file, fsyncing it and ``os.replace``. Readers
(the API) read only the pointer, then open the file it names read-only.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from .core import (
    SnapshotError,
    SnapshotInfo,
    fsync_dir,
    pointer_path,
    snapshot_files,
    snapshots_dir,
)

if TYPE_CHECKING:
    from pipelines.settings import Settings

log = logging.getLogger(__name__)


def read_snapshot_info(path: Path) -> SnapshotInfo:
    """The metadata of one snapshot file (opened read-only)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        cursor = con.execute("select * from meta.snapshot")
        names = [column[0] for column in cursor.description or ()]
        row = cursor.fetchone()
    except duckdb.Error as exc:
        raise SnapshotError(f"{path.name} has no readable meta.snapshot: {exc}") from exc
    finally:
        con.close()
    if row is None:
        raise SnapshotError(f"{path.name} has an empty meta.snapshot")
    meta = dict(zip(names, row, strict=True))
    return SnapshotInfo(
        snapshot_id=str(meta["snapshot_id"]),
        path=path,
        built_at=meta["built_at"].astimezone(dt.UTC),
        as_of=meta["as_of"],
        tables={str(k): int(v) for k, v in json.loads(meta["row_counts"]).items()},
        # a snapshot published before views were listed apart has no `views` column
        views=tuple(str(view) for view in json.loads(meta.get("views") or "[]")),
    )


def _pointer_payload(info: SnapshotInfo, settings: Settings) -> str:
    payload = {
        "snapshot_id": info.snapshot_id,
        "file": info.path.relative_to(settings.serving_dir).as_posix(),
        "built_at": info.built_at.isoformat(),
        "as_of": info.as_of.isoformat(),
        "tables": info.tables,
        "views": list(info.views),
        "sidecars": {
            name: path.relative_to(settings.serving_dir).as_posix()
            for name, path in info.sidecars.items()
        },
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def current_snapshot(settings: Settings) -> SnapshotInfo | None:
    """The snapshot ``CURRENT`` points to, or None before the first publish.

    Reads only the small pointer file, so a server can call it on every request (or poll it)
    and reopen when ``snapshot_id`` changes.
    """
    pointer = pointer_path(settings)
    try:
        text = pointer.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        payload = json.loads(text)
        return SnapshotInfo(
            snapshot_id=str(payload["snapshot_id"]),
            path=settings.serving_dir / str(payload["file"]),
            built_at=dt.datetime.fromisoformat(payload["built_at"]).astimezone(dt.UTC),
            as_of=dt.date.fromisoformat(payload["as_of"]),
            tables={str(k): int(v) for k, v in payload["tables"].items()},
            views=tuple(str(view) for view in payload.get("views", [])),
            sidecars={
                str(name): settings.serving_dir / str(file)
                for name, file in payload.get("sidecars", {}).items()
            },
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SnapshotError(f"serving pointer {pointer} is unreadable: {exc}") from exc


def open_snapshot(settings: Settings) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the current snapshot. Raises SnapshotError if there is none."""
    config: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": settings.duckdb_memory_limit
    }
    if settings.duckdb_threads:
        config["threads"] = settings.duckdb_threads
    # Retention deletes a file between reading the pointer and opening it only if several
    # publishes happen in that instant; read the pointer again rather than fail at once.
    missing: Path | None = None
    for _attempt in range(3):
        info = current_snapshot(settings)
        if info is None:
            raise SnapshotError(
                f"no serving snapshot published yet ({pointer_path(settings)} does not exist); "
                "run the pipeline first"
            )
        try:
            return duckdb.connect(str(info.path), read_only=True, config=config)
        except duckdb.IOException:
            if info.path.is_file():
                raise
            missing = info.path
    raise SnapshotError(f"the serving pointer names {missing}, which does not exist")


def list_snapshots(settings: Settings) -> list[SnapshotInfo]:
    """Every published snapshot file, oldest first (unreadable files are logged and skipped)."""
    infos = []
    for path in snapshot_files(snapshots_dir(settings)):
        try:
            infos.append(read_snapshot_info(path))
        except (SnapshotError, duckdb.Error) as exc:
            log.warning("skipping unreadable snapshot %s: %s", path.name, exc)
    return infos


def switch_pointer(info: SnapshotInfo, settings: Settings) -> None:
    """Make ``info`` the current snapshot: write ``CURRENT`` atomically and durably."""
    write_atomically(pointer_path(settings), _pointer_payload(info, settings))


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)
