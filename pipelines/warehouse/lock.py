"""The warehouse's writer lock: one writer at a time, whatever starts it.

The lock is a file beside the warehouse (``<warehouse>.lock``) held with ``flock``: it lives
where the warehouse is, so it holds across Dagster homes, checkouts and entry points
(``bvs run``, ``bvs ledger run``, a run from the Dagster UI, a schedule or a sensor), and the
kernel releases it when its holder exits, however it exits (``kill -9`` included): a dead
run never holds it. The file records who holds it (PID, command, start time, Dagster home),
so a second writer names the holder.

Within one process the lock is re-entrant: ``bvs run`` takes it for the whole run and each
step of the run takes it again at no cost. A run started elsewhere (the UI, a schedule)
takes it step by step.

DuckDB has its own lock on the warehouse file, which any process opening the file takes (an
analyst's read-only connection, a DuckDB shell): ``warehouse_busy`` turns DuckDB's error
into one line naming that process and what to do.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pipelines import processes
from pipelines.settings import Settings

POLL_SECONDS = 0.2
ANALYST_DOC = "docs/architecture.md, 'Querying the warehouse'"


class WarehouseBusy(Exception):
    """Another process holds the warehouse; the message is one line naming it."""


@dataclass
class _Held:
    fd: int
    depth: int
    record: dict


_held: dict[Path, _Held] = {}
_guard = threading.Lock()


def lock_path(settings: Settings) -> Path:
    warehouse = settings.warehouse
    return warehouse.with_name(warehouse.name + ".lock")


def holder(settings: Settings) -> dict | None:
    """Who holds the writer lock now (what the holder wrote), or None when nobody does."""
    path = lock_path(settings)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_record(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read_record(fd: int) -> dict:
    try:
        raw = os.pread(fd, 64 * 1024, 0)
        record = json.loads(raw.decode() or "{}")
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def describe(record: dict) -> str:
    """The holder in a few words: PID, command, since when, which Dagster home."""
    if not record:
        return "another process (it has not said which yet)"
    parts = [f"PID {record.get('pid', '?')}"]
    if record.get("host") and record.get("host") != socket.gethostname():
        parts[0] += f" on {record['host']}"
    if record.get("command"):
        parts.append(str(record["command"]))
    if record.get("step"):
        parts.append(f"now at {record['step']}")
    elif record.get("last_step"):
        parts.append(f"between steps, after {record['last_step']}")
    if record.get("since"):
        parts.append(f"since {record['since']}")
    if record.get("dagster_home"):
        parts.append(f"DAGSTER_HOME {record['dagster_home']}")
    return f"{parts[0]} ({', '.join(parts[1:])})" if len(parts) > 1 else parts[0]


def _my_record(purpose: str) -> dict:
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": purpose or processes.command_line(os.getpid()) or sys.argv[0],
        "since": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "dagster_home": os.environ.get("DAGSTER_HOME", ""),
    }


def busy_message(settings: Settings, record: dict, waited: float) -> str:
    return (
        f"the warehouse {settings.warehouse} is being written by {describe(record)}"
        f"{f'; waited {waited:.0f} s' if waited >= 1 else ''}. Let that run finish"
        f" (or stop it: kill {record.get('pid', 'PID')}), then run again."
    )


@contextlib.contextmanager
def writer_lock(
    settings: Settings,
    *,
    purpose: str = "",
    step: str | None = None,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the warehouse's writer lock meanwhile (re-entrant within this process).

    Held by another process, wait up to ``wait`` seconds (default: the setting
    ``writer_wait_seconds``), telling ``on_wait`` once whom it waits for, then raise
    WarehouseBusy naming the holder. Ctrl-C interrupts the wait. ``step`` is recorded for
    others to see while it runs (the step of a run that holds the lock already), and kept
    as the last step once it ends, so that a run between two steps still says where it is.
    """
    path = lock_path(settings)
    with _guard:
        held = _held.get(path)
        if held is not None:
            held.depth += 1
    if held is not None:
        outer = held.record.get("step")
        if step:
            _write_record(held, {**held.record, "step": step})
        try:
            yield
        finally:
            with _guard:
                held.depth -= 1
            if step:
                _write_record(held, {**held.record, "step": outer, "last_step": step})
        return
    limit = settings.writer_wait_seconds if wait is None else wait
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        started = time.monotonic()
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - started
                record = _read_record(fd)
                if waited >= limit:
                    raise WarehouseBusy(busy_message(settings, record, waited)) from None
                if not told and on_wait is not None:
                    on_wait(
                        f"waiting up to {limit:g} s for the warehouse writer lock, held by"
                        f" {describe(record)}"
                    )
                    told = True
                time.sleep(POLL_SECONDS)
        held = _Held(fd, 1, {})
        _write_record(held, {**_my_record(purpose), "step": step})
    except BaseException:
        os.close(fd)
        raise
    with _guard:
        _held[path] = held
    try:
        yield
    finally:
        with _guard:
            entry = _held[path]
            entry.depth -= 1
            release = entry.depth == 0
            if release:
                del _held[path]
        if release:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the only descriptor releases the lock


def _write_record(held: _Held, record: dict) -> None:
    held.record = record
    data = json.dumps(record).encode()
    os.pwrite(held.fd, data, 0)
    os.ftruncate(held.fd, len(data))


_DUCKDB_LOCK = re.compile(r"Conflicting lock is held in (?P<exe>.*?) \(PID (?P<pid>\d+)\)")


def warehouse_busy(settings: Settings, error: BaseException) -> WarehouseBusy | None:
    """DuckDB's "Could not set lock on file" as one line naming the process that has the
    warehouse open and what to do; None for any other error."""
    text = str(error)
    if "Could not set lock on file" not in text:
        return None
    match = _DUCKDB_LOCK.search(text)
    if match is None:
        who = "another process"
        pid = "PID"
    else:
        pid = match["pid"]
        command = processes.command_line(int(pid)) or Path(match["exe"]).name
        who = f"PID {pid} ({command})"
    return WarehouseBusy(
        f"the warehouse {settings.warehouse} is open in {who}, and DuckDB lets no other"
        f" process write it meanwhile. Close that connection (or stop it: kill {pid}) and run"
        f" again; to query while runs go on, open the serving snapshot instead ({ANALYST_DOC})."
    )
