"""Finding a source's landed files: plain files and members of zips, newest snapshot only.

Rules (LANDING.md): several files of one source may be present; the newest snapshot wins
for snapshot sources (:func:`dated_name_key`), and every file is read for accumulating
sources (:func:`every_file_key`). A zipped download may land as the ``.zip`` itself. When the same
part of a snapshot is present both plain and inside a zip, the plain file is read.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import zipfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pipelines.ingest.base import LandingFile, SourceFileError


@dataclass(frozen=True)
class SnapshotKey:
    """Where a file sits in a source's history: which snapshot, and which part of it."""

    snapshot: str  # sortable: the newest snapshot has the greatest value
    part: str  # distinguishes files of one snapshot (e.g. Public01..Public20)


def matches(name: str, patterns: Iterable[str]) -> bool:
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, p.lower()) for p in patterns)


def discover(
    folder: Path,
    patterns: tuple[str, ...],
    snapshot_key: Callable[[str], SnapshotKey],
    *,
    passed_over: list[str] | None = None,
) -> list[LandingFile]:
    """The files of the newest snapshot in ``folder`` (sorted by part), or [] if none.

    A zip that cannot be opened (truncated, corrupt) may hold any part of any snapshot, so it
    fails the discovery (SourceFileError naming it), unless its own name dates it before the
    newest snapshot found: then it would not be read anyway, and it is passed over, the reason
    appended to ``passed_over``. A source whose every file is read (``every_file_key``) has
    one snapshot, so a corrupt zip there always fails.
    """
    if not folder.is_dir():
        return []
    candidates: list[LandingFile] = []
    broken: list[tuple[Path, SourceFileError]] = []
    for path in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        if path.suffix.lower() == ".zip":
            try:
                with zipfile.ZipFile(path) as archive:
                    members = [m for m in archive.namelist() if not m.endswith("/")]
            except (zipfile.BadZipFile, OSError) as exc:
                error = SourceFileError(path.name, f"cannot open zip: {exc}")
                error.__cause__ = exc
                broken.append((path, error))
                continue
            for member in members:
                if matches(Path(member).name, patterns):
                    candidates.append(LandingFile(path, member))
        elif matches(path.name, patterns):
            candidates.append(LandingFile(path))
    keyed = [(snapshot_key(c.inner_name), c) for c in candidates]
    newest = max((k.snapshot for k, _ in keyed), default=None)
    for path, error in broken:
        if newest is None or not _dated_before(path.name, snapshot_key, newest):
            raise error
        if passed_over is not None:
            passed_over.append(
                f"{error}; passed over: its name dates it before the newest snapshot, the one read"
            )
    chosen: dict[str, LandingFile] = {}
    for key, candidate in keyed:
        if key.snapshot != newest:
            continue
        previous = chosen.get(key.part)
        # a plain file beats the same part inside a zip; otherwise the first by name wins
        if previous is None or (previous.member is not None and candidate.member is None):
            chosen[key.part] = candidate
    return [chosen[part] for part in sorted(chosen)]


def _dated_before(name: str, snapshot_key: Callable[[str], SnapshotKey], newest: str) -> bool:
    """Whether a file's own name carries a date (6-8 digits) placing it in a snapshot older
    than ``newest``. A name without a date says nothing about what the file holds."""
    return _DIGITS.search(name) is not None and snapshot_key(name).snapshot < newest


_DIGITS = re.compile(r"(\d{6,8})")


def dated_name_key(name: str) -> SnapshotKey:
    """Snapshot = the first 6-8 digit date in the name (YYYYMMDD or YYYYMM); part = the rest."""
    found = _DIGITS.search(name)
    snapshot = found[1] if found else ""
    part = (name[: found.start()] + name[found.end() :]).lower() if found else name.lower()
    return SnapshotKey(snapshot, part)


def every_file_key(name: str) -> SnapshotKey:
    """One snapshot holding every file, each its own part (accumulating sources).

    For the project-format folders (LANDING.md B) files add up rather than replace each
    other: ``adverse/ACCC.csv`` and ``adverse/QBCC.csv`` are both read.
    """
    return SnapshotKey("", name.lower())


def latest_file_key(name: str) -> SnapshotKey:
    """One file per snapshot, the newest winning (registers republished whole, any name).

    The ASIC/ACNC registers and the ASX list land as ``*.csv`` with no date in the name, and
    each file is a whole register: reading two would double every row. So every file is its
    own snapshot and only the newest is read: by the 6-8 digit date in the name if there is
    one (a dated name beats an undated one), else by name.
    """
    found = _DIGITS.search(name)
    date = found[1].ljust(8, "0") if found else "00000000"
    return SnapshotKey(f"{date}|{name.lower()}", "")


def sha256_of(path: Path, block: int = 8 * 1024 * 1024) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(block):
            digest.update(chunk)  # releases the GIL: files hash in parallel threads
    return digest.hexdigest()


def checksums(paths: Iterable[Path], workers: int = 4) -> dict[Path, str]:
    unique = sorted(set(paths))
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(unique)))) as pool:
        return dict(zip(unique, pool.map(sha256_of, unique), strict=True))
