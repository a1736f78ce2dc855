"""Keep the snapshot in service in memory: its files are read through the page cache before
they answer requests.

A request that reads a page of the snapshot which is not in the page cache waits for the
disk. That costs little on an idle disk and a great deal on a busy one: while a new snapshot
(several GB) is written to the same disk, one such read waited 0.1 to 1.9 s on this machine,
where the same lookup from a cached page took 0.2 ms (docs/api.md, "Snapshots"). A server
that has only just started, or a snapshot whose pages were never all read, has such pages
everywhere. So each worker reads the files of a snapshot once, sequentially, before that
snapshot goes into service (the verify lookup first, then the DuckDB file), within a byte
budget: ``BVS_API_PRELOAD_BYTES``, by default half the machine's memory, 0 to turn it off.
The pages are shared: the second worker's read is a copy from memory.

Read once, pages are kept only by the kernel's own policy, and a publish beside the server
(the warehouse read, a new snapshot written) still pushed a fifth of them out. So the verify
lookup, the file every verify reads, is locked in memory (``Pinned``: ``mmap`` and
``mlock``) while its snapshot serves, when it fits the budget. Locking needs the
``CAP_IPC_LOCK`` capability or a ``RLIMIT_MEMLOCK`` as large as the file (systemd
``LimitMEMLOCK=``, docker ``--ulimit memlock=-1``); without them the lookup is read like the
rest and a warning says so. ``resident_bytes`` says how much of a file is in memory now
(``mincore``), for the benchmark and for anyone checking a server.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CHUNK_BYTES = 8 * 1024 * 1024


def default_budget() -> int:
    """Half the machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


@dataclass(frozen=True)
class Preloaded:
    """What one preload read: bytes, of how many wanted, and how long it took."""

    bytes: int
    wanted: int
    seconds: float

    @property
    def complete(self) -> bool:
        return self.bytes >= self.wanted


def preload(
    paths: Sequence[Path], budget: int, *, stop: threading.Event | None = None
) -> Preloaded:
    """Read ``paths`` in order through the page cache, at most ``budget`` bytes in all.

    A file that does not exist is skipped (a snapshot without a lookup). ``stop`` ends the
    read early (a server shutting down)."""
    started = time.perf_counter()
    wanted = done = 0
    buffer = bytearray(CHUNK_BYTES)
    view = memoryview(buffer)
    for path in paths:
        try:
            handle = open(path, "rb", buffering=0)  # noqa: SIM115  (closed below)
        except FileNotFoundError:
            continue
        with handle:
            size = os.fstat(handle.fileno()).st_size
            wanted += size
            take = max(0, min(size, budget - done))
            if take and hasattr(os, "posix_fadvise"):  # start the kernel's read-ahead
                os.posix_fadvise(handle.fileno(), 0, take, os.POSIX_FADV_WILLNEED)
            read = 0
            while read < take and not (stop is not None and stop.is_set()):
                got = handle.readinto(view[: min(CHUNK_BYTES, take - read)])
                if not got:
                    break
                read += got
            done += read
    return Preloaded(bytes=done, wanted=wanted, seconds=round(time.perf_counter() - started, 2))


_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long
]  # fmt: skip
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_MAP_FAILED = ctypes.c_void_p(-1).value
_LOW_BIT = bytes(i & 1 for i in range(256))


def _map(path: Path) -> tuple[int, int]:
    """``path`` mapped read-only and shared: (address, size); size 0 maps nothing."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return 0, 0
        address = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, handle.fileno(), 0)
    if address in (None, _MAP_FAILED):
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), str(path))
    return int(address), size


def _unmap(address: int, size: int) -> None:
    if size:
        _libc.munmap(address, size)  # unlocks too


class Pinned:
    """A file's pages locked in memory until ``close()`` (or garbage collection): ``mlock`` on
    a shared read-only mapping reads the whole file in and keeps it there. The pages are the
    page cache's own, so every process reading the file (SQLite's ``pread``) is served from
    them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        address, self.bytes = _map(path)
        if self.bytes and _libc.mlock(address, self.bytes) != 0:
            errno = ctypes.get_errno()
            _unmap(address, self.bytes)
            raise OSError(errno, f"cannot lock in memory: {os.strerror(errno)}", str(path))
        self._release = weakref.finalize(self, _unmap, address, self.bytes)

    def close(self) -> None:
        self._release()


def resident_bytes(path: Path) -> int:
    """How many bytes of ``path`` are in the page cache now (Linux ``mincore``); mapping the
    file reads nothing."""
    address, size = _map(path)
    if size == 0:
        return 0
    try:
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vector = (ctypes.c_ubyte * pages)()
        if _libc.mincore(address, size, vector) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno), str(path))
    finally:
        _unmap(address, size)
    resident = bytes(vector).translate(_LOW_BIT).count(1)  # bit 0: in memory; others reserved
    return min(size, resident * mmap.PAGESIZE)
