"""The serving snapshot: an immutable DuckDB file the API reads, switched to atomically.

One writer (the pipeline) owns ``warehouse.duckdb``. After a successful run it publishes the
marts into a new file under ``<serving_dir>/snapshots/``; readers (the API) only ever open
those files read-only. Publishing a snapshot (``publish``):

1. build ``<id>.duckdb.tmp`` from the writer's own connection (``build``: ``ATTACH``, one
   transaction: every table of the listed schemas written, every view recreated over the
   snapshot's own copies (DuckDB binds a view's names in its own database, so the file
   stands alone; a view is not materialised twice, e.g. ``marts.tiles``, the long form of
   ``marts.verifications``), the warehouse's table, view and column comments carried over,
   the extra tables, and the metadata tables ``meta.snapshot`` and ``meta.sources`` (each
   source's last load, its files and its refresh cadence) and ``meta.snapshot_tables``),
   ``CHECKPOINT``, ``DETACH``, fsync. The file starts as a clone of the current snapshot and
   only what changed is written into it (``update``): a table with a key by its changed
   keys' rows, one without copied when it changed, one stored in an order (the search
   index) copied in it and then updated with one sorted run after the copy; with no
   current snapshot, every table is copied;
2. verify it from a separate read-only process (``verify``: ``python -m
   pipelines.warehouse.snapshot verify``): row counts of every table and the metadata must
   match what the writer copied, and every view must bind in the file;
3. rename it to ``<id>.duckdb`` (so every final-named file has been verified), fsync the folder;
4. switch the pointer ``<serving_dir>/CURRENT`` (``pointer``: JSON, temp file + fsync +
   ``os.replace``);
5. keep the newest ``settings.snapshots_kept`` files and the current one, delete the rest
   (``retention``).

While steps 1 and the sidecars write, a thread flushes the files being written every
``publish_flush_seconds`` (``flush``), so several GB of unwritten data never pile up in
memory to be written back all at once.

A final file is never written again, so any number of processes may hold it open read-only
while the next one is published. A deleted file stays readable through an open connection
(POSIX unlink semantics), so a reader on an old snapshot keeps working until it reopens.

What the rest of the project uses is imported from here; the modules are its parts.
"""

from .core import (
    METADATA_TABLES,
    POINTER_NAME,
    SIDECAR_SUFFIX,
    SNAPSHOTS_SUBDIR,
    SUFFIX,
    TMP_SUFFIX,
    SnapshotError,
    SnapshotInfo,
    is_snapshot_id,
    new_snapshot_id,
    pointer_path,
    snapshots_dir,
)
from .pointer import current_snapshot, list_snapshots, open_snapshot, read_snapshot_info
from .publish import SidecarBuilder, publish_snapshot
from .retention import clean_leftovers, retain_snapshots
from .verify import VERIFY_TIMEOUT_SECONDS, check_snapshot_file, main, verify_snapshot

__all__ = [
    "METADATA_TABLES",
    "POINTER_NAME",
    "SIDECAR_SUFFIX",
    "SNAPSHOTS_SUBDIR",
    "SUFFIX",
    "TMP_SUFFIX",
    "VERIFY_TIMEOUT_SECONDS",
    "SidecarBuilder",
    "SnapshotError",
    "SnapshotInfo",
    "check_snapshot_file",
    "clean_leftovers",
    "current_snapshot",
    "is_snapshot_id",
    "list_snapshots",
    "main",
    "new_snapshot_id",
    "open_snapshot",
    "pointer_path",
    "publish_snapshot",
    "read_snapshot_info",
    "retain_snapshots",
    "snapshots_dir",
    "verify_snapshot",
]
