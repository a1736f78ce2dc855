"""Flushing the files being published as they are written.

While a snapshot and its sidecars are written, a thread fsyncs them every
``publish_flush_seconds``, so several GB of unwritten data never pile up in memory to be
written back all at once. Such a burst, on this machine, stalled every process of it (the
API beside the publisher) for 100-400 ms every 30 s (docs/api.md). The same idea as
PostgreSQL's ``checkpoint_flush_after`` and RocksDB's ``bytes_per_sync``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from .core import fsync_file


@contextlib.contextmanager
def flushed_as_written(directory: Path, prefix: str, every: float) -> Iterator[None]:
    """While the block runs, fsync every file of ``directory`` whose name starts with
    ``prefix`` each ``every`` seconds (0: never). A flush that fails (a file renamed or
    removed meanwhile) is skipped; the publish's own fsyncs are what make it durable."""
    if every <= 0:
        yield
        return
    stop = threading.Event()

    def flush() -> None:
        while not stop.wait(every):
            for path in directory.glob(f"{prefix}*"):
                with contextlib.suppress(OSError):
                    fsync_file(path)

    flusher = threading.Thread(target=flush, name="bvs-publish-flush", daemon=True)
    flusher.start()
    try:
        yield
    finally:
        stop.set()
        flusher.join()
