"""Reading a snapshot's files into memory before they serve (pipelines/serving/preload.py)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from pipelines.serving.preload import CHUNK_BYTES, Pinned, preload, resident_bytes

PAGE = os.sysconf("SC_PAGE_SIZE")
Evict = Callable[..., None]  # tests/conftest.py::evict


def _written(path: Path, size: int) -> Path:
    path.write_bytes(os.urandom(size))
    return path


def test_files_are_read_in_order_within_the_budget(tmp_path: Path, evict: Evict) -> None:
    hot = _written(tmp_path / "lookup.sqlite", 3 * CHUNK_BYTES // 2)
    cold = _written(tmp_path / "snapshot.duckdb", 2 * CHUNK_BYTES)
    evict(hot, cold)
    budget = hot.stat().st_size + CHUNK_BYTES // 2

    done = preload([tmp_path / "missing.sqlite", hot, cold], budget)

    assert done.bytes == budget and done.wanted == hot.stat().st_size + cold.stat().st_size
    assert not done.complete
    assert resident_bytes(hot) == hot.stat().st_size
    # the second file only as far as the budget reached (the kernel may read ahead a little)
    assert CHUNK_BYTES // 2 <= resident_bytes(cold) < cold.stat().st_size


def test_a_whole_snapshot_within_budget_is_complete(tmp_path: Path, evict: Evict) -> None:
    files = [_written(tmp_path / f"f{i}", PAGE * 10 + i) for i in range(3)]
    evict(*files)
    done = preload(files, 10**12)
    assert done.complete and done.bytes == sum(f.stat().st_size for f in files)
    assert all(resident_bytes(f) == f.stat().st_size for f in files)


def test_a_zero_budget_reads_nothing(tmp_path: Path, evict: Evict) -> None:
    file = _written(tmp_path / "f", 4 * PAGE)
    evict(file)
    done = preload([file], 0)
    assert done.bytes == 0 and done.wanted == 4 * PAGE
    assert resident_bytes(file) == 0


def test_stop_ends_the_read(tmp_path: Path) -> None:
    file = _written(tmp_path / "f", 2 * CHUNK_BYTES)
    stop = threading.Event()
    stop.set()
    assert preload([file], 10**12, stop=stop).bytes == 0


def test_an_empty_file_has_nothing_resident(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.touch()
    assert resident_bytes(empty) == 0
    assert preload([empty], 100).complete


def test_a_pinned_file_stays_in_memory_until_closed(tmp_path: Path, evict: Evict) -> None:
    file = _written(tmp_path / "lookup.sqlite", 64 * PAGE)
    evict(file)
    try:
        pinned = Pinned(file)
    except OSError as exc:  # no CAP_IPC_LOCK and a small memlock limit
        pytest.skip(f"this environment cannot lock memory: {exc}")
    assert pinned.bytes == file.stat().st_size == resident_bytes(file)
    _drop(file)  # what memory pressure does to pages that are not locked
    assert resident_bytes(file) == file.stat().st_size
    pinned.close()
    _drop(file)
    assert resident_bytes(file) == 0


def test_pinning_an_empty_file_locks_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.touch()
    assert Pinned(empty).bytes == 0


def _drop(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
