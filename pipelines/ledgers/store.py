"""Where supplier ledgers live: the landed files and the run history.

Landed ledgers (LANDING.md, section B) are ``<landing>/ledgers/<customer_id>/<ledger>.csv``
or ``.xlsx``; files in subfolders are not ledgers (``bvs ledger import`` keeps the file it
replaces in ``replaced/``).

The run history is not rebuildable from landing files (a ledger is re-verified against the
snapshot of the night it ran, and the snapshot rotates), so it lives in its own folder,
``settings.ledgers_dir`` (``BVS_LEDGER_DIR``, default ``<data_dir>/ledgers``), outside the
warehouse and the serving snapshots::

    <ledgers_dir>/<customer>/_slices/<snapshot id>-<digest>/   the serving snapshot's rows
                                     of the customer's ABNs a run read (its tiles' evidence)
    <ledgers_dir>/<customer>/_imports/<ledger>.<UTC time>.json  what one ``bvs ledger import``
                                     found, every row needing review and every ignored row
    <ledgers_dir>/<customer>/<ledger>/
        files/<sha256>.csv|.xlsx     every ledger file a run read, once
        runs/<run_date>.<nn>/        one committed run, never written again:
            run.json                 its summary and inputs (snapshot, file, as-of date)
            suppliers.parquet        one row per supplier: resolution, tile statuses and rules,
                                     the ledger rows' evidence, score, flags
            states.parquet           one row per fact compared between runs (tile, flag, ...)
            changes.parquet          the changes since the previous run (decision 16)
            checks.json              the check catalogue of its snapshot (weights, sources)

A run is written into ``runs/.tmp-<random>/`` and renamed into place when complete, so a
run killed half-way leaves no run behind (its temporary folder is removed by the next).
Runs of one ledger are kept in date order: a run never goes before the latest one. Parquet
and JSON keep the history readable by any engine; point ``BVS_LEDGER_DIR`` at shared
storage (and back it up) in a deployment with several machines.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.ledgers.intake import (
    CUSTOMER_ID,
    EXTENSIONS,
    LEDGER_NAME,
    LedgerError,
    ParsedLedger,
    read_ledger,
)
from pipelines.settings import Settings

LANDING_FOLDER = "ledgers"
REPLACED_FOLDER = "replaced"
RUN_FILES = ("suppliers.parquet", "states.parquet", "changes.parquet", "checks.json")
_RUN_ID = re.compile(r"^(\d{4}-\d{2}-\d{2})\.(\d{2,})$")
_TMP_PREFIX = ".tmp-"


@dataclass(frozen=True)
class LandedLedger:
    customer: str
    ledger: str
    path: Path


@dataclass(frozen=True)
class Run:
    customer: str
    ledger: str
    run_id: str
    path: Path
    summary: dict[str, Any]

    @property
    def run_date(self) -> str:
        return self.run_id.split(".")[0]

    def file(self, name: str) -> Path:
        return self.path / name


def landing_root(settings: Settings) -> Path:
    return settings.landing_dir / LANDING_FOLDER


def slice_dir(settings: Settings, customer: str, snapshot_id: str, digest: str) -> Path:
    """The rows of one serving snapshot a customer's runs read (``pipelines.ledgers.run``)."""
    return settings.ledgers_dir / customer / "_slices" / f"{snapshot_id}-{digest}"


def import_details_path(settings: Settings, customer: str, ledger: str, stamp: str) -> Path:
    """Where ``bvs ledger import`` writes everything it found (its output is a summary)."""
    return settings.ledgers_dir / customer / "_imports" / f"{ledger}.{stamp}.json"


def customer_landing(settings: Settings, customer: str) -> Path:
    return landing_root(settings) / customer


def ledger_root(settings: Settings, customer: str, ledger: str) -> Path:
    return settings.ledgers_dir / customer / ledger


def customers(settings: Settings) -> list[str]:
    """Every customer with a landed ledger or a run history, sorted."""
    found: set[str] = set()
    for root in (landing_root(settings), settings.ledgers_dir):
        if root.is_dir():
            found.update(p.name for p in root.iterdir() if p.is_dir() and CUSTOMER_ID.match(p.name))
    return sorted(found)


def customers_with_ledgers(settings: Settings) -> list[str]:
    """Customers with at least one ledger file landed now, sorted."""
    root = landing_root(settings)
    if not root.is_dir():
        return []
    return sorted(
        p.name
        for p in root.iterdir()
        if p.is_dir()
        and CUSTOMER_ID.match(p.name)
        and any(f.is_file() and f.suffix.lower() in EXTENSIONS for f in p.iterdir())
    )


def landed_ledgers(settings: Settings, customer: str) -> list[LandedLedger]:
    """The customer's current ledger files, by ledger name."""
    folder = customer_landing(settings, customer)
    if not folder.is_dir():
        return []
    by_name: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith(".") or path.suffix.lower() not in EXTENSIONS:
            continue
        if not LEDGER_NAME.match(path.stem):
            raise LedgerError(f"{path}: not a usable ledger name (letters, digits, '_', '-', '.')")
        if path.stem in by_name:
            raise LedgerError(
                f"{folder}: two files for ledger {path.stem!r} ({by_name[path.stem].name},"
                f" {path.name}); keep one"
            )
        by_name[path.stem] = path
    return [LandedLedger(customer, name, path) for name, path in sorted(by_name.items())]


def ledger_names(settings: Settings, customer: str) -> list[str]:
    """Ledgers landed now or with a history."""
    names = {ledger.ledger for ledger in landed_ledgers(settings, customer)}
    root = settings.ledgers_dir / customer
    if root.is_dir():
        names.update(p.name for p in root.iterdir() if p.is_dir() and (p / "runs").is_dir())
    return sorted(names)


# ----------------------------------------------------------------------------------- runs


def runs(settings: Settings, customer: str, ledger: str) -> list[Run]:
    """The committed runs of one ledger, oldest first."""
    folder = ledger_root(settings, customer, ledger) / "runs"
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        if path.is_dir() and _RUN_ID.match(path.name) and (path / "run.json").is_file():
            summary = json.loads((path / "run.json").read_text())
            found.append(Run(customer, ledger, path.name, path, summary))
    return sorted(found, key=lambda run: _sort_key(run.run_id))


def _sort_key(run_id: str) -> tuple[str, int]:
    match = _RUN_ID.match(run_id)
    assert match is not None
    return match.group(1), int(match.group(2))


def latest_run(settings: Settings, customer: str, ledger: str) -> Run | None:
    found = runs(settings, customer, ledger)
    return found[-1] if found else None


def next_run_id(previous: Run | None, run_date: str) -> str:
    """``<run_date>.<nn>``: the next run of that date. Runs go in date order."""
    if previous is None:
        return f"{run_date}.01"
    if previous.run_date > run_date:
        raise LedgerError(
            f"ledger {previous.ledger!r} of {previous.customer!r} already has a run on"
            f" {previous.run_date}, after {run_date}: runs are recorded in date order"
        )
    n = _sort_key(previous.run_id)[1] + 1 if previous.run_date == run_date else 1
    return f"{run_date}.{n:02d}"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit_run(
    settings: Settings,
    customer: str,
    ledger: str,
    run_id: str,
    write: Callable[[Path], dict[str, Any]],
) -> Run:
    """Write a run: ``write(folder)`` fills a temporary folder with the run files and
    returns the summary; the summary becomes ``run.json`` and the folder is renamed into
    place. A run id is never reused."""
    folder = ledger_root(settings, customer, ledger) / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / run_id
    if final.exists():
        raise LedgerError(f"run {run_id} of ledger {ledger!r} ({customer}) is already recorded")
    remove_partial_runs(settings, customer, ledger)
    tmp = folder / f"{_TMP_PREFIX}{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        summary = write(tmp)
        (tmp / "run.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
        for path in tmp.iterdir():
            _fsync(path)
        _fsync(tmp)
        os.rename(tmp, final)
        _fsync(folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Run(customer, ledger, run_id, final, summary)


def remove_partial_runs(settings: Settings, customer: str, ledger: str) -> list[Path]:
    """Temporary folders of runs that never finished (a run killed half-way)."""
    folder = ledger_root(settings, customer, ledger) / "runs"
    removed = []
    if folder.is_dir():
        for path in folder.iterdir():
            if path.name.startswith(_TMP_PREFIX):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


def sha256_of_file(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# Bump when pipelines/ledgers/intake.py reads a file differently: cached reads are redone.
PARSER_VERSION = 2


def read_ledger_cached(settings: Settings, customer: str, ledger: str, path: Path) -> ParsedLedger:
    """``read_ledger``, once per file content: a nightly run of an unchanged ledger reads the
    rows it parsed the first time (``files/<sha256>.v<n>.parquet`` and ``.json``) instead of
    parsing the spreadsheet again."""
    import hashlib

    import polars as pl

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LedgerError(f"{path}: cannot be read ({exc.strerror})") from exc
    sha = hashlib.sha256(data).hexdigest()
    folder = ledger_root(settings, customer, ledger) / "files"
    rows_file = folder / f"{sha}.v{PARSER_VERSION}.parquet"
    meta_file = folder / f"{sha}.v{PARSER_VERSION}.json"
    if rows_file.exists() and meta_file.exists():
        meta = json.loads(meta_file.read_text())
        return ParsedLedger(
            path=path, sha256=sha, encoding=meta["encoding"], rows=pl.read_parquet(rows_file),
            ignored=meta["ignored"], blank_lines=meta["blank_lines"],
            columns_found=meta["columns_found"], columns=meta["columns"],
            header_line=meta["header_line"],
        )  # fmt: skip
    parsed = read_ledger(path)
    if parsed.sha256 == sha:  # the file did not change while it was read
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{_TMP_PREFIX}{secrets.token_hex(4)}"
        parsed.rows.write_parquet(tmp, compression="zstd")
        os.replace(tmp, rows_file)
        meta_file.write_text(
            json.dumps(
                {
                    "encoding": parsed.encoding,
                    "ignored": parsed.ignored,
                    "blank_lines": parsed.blank_lines,
                    "columns_found": parsed.columns_found,
                    "columns": parsed.columns,
                    "header_line": parsed.header_line,
                }
            )
        )
    return parsed


def archive_file(settings: Settings, customer: str, ledger: str, path: Path, sha256: str) -> Path:
    """Keep the ledger file a run read (once per content), so every run can be traced to
    the exact bytes the customer sent."""
    folder = ledger_root(settings, customer, ledger) / "files"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{sha256}{path.suffix.lower()}"
    if not target.exists():
        tmp = folder / f"{_TMP_PREFIX}{secrets.token_hex(4)}"
        shutil.copyfile(path, tmp)
        _fsync(tmp)
        os.replace(tmp, target)
    return target
