"""The verify lookup's reader: the SQLite file published beside each snapshot
(``pipelines.warehouse.verify_lookup`` writes it and describes its format), for point
lookups by ABN. Format 1 files (uncompressed JSON) are still read.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import zstandard

from pipelines.warehouse.verify_lookup import FORMAT_VERSION, STATUS_CODES

__all__ = ["FORMAT_VERSION", "READABLE_FORMATS", "VerifyLookup"]

READABLE_FORMATS = (1, 2)
_STATUS_OF = {code: status for status, code in STATUS_CODES.items()}


class VerifyLookup:
    """Read-only access to one lookup file; one SQLite connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._uri = f"file:{path}?mode=ro&immutable=1"
        self._local = threading.local()
        con = self._connection()
        meta = dict(con.execute("select key, value from meta").fetchall())
        self.format = int(meta.get("format_version", 0))
        if self.format not in READABLE_FORMATS:
            raise ValueError(f"{path.name}: lookup format {meta.get('format_version')} unknown")
        self.check_ids: list[str] = json.loads(meta["check_ids"])
        self.reasons: list[str] = json.loads(meta["reasons"])
        self.rows = int(meta["rows"])
        self._dictionary: zstandard.ZstdCompressionDict | None = None
        if self.format >= 2:
            found = con.execute("select data from dictionary where id = 1").fetchall()
            if found:
                self._dictionary = zstandard.ZstdCompressionDict(found[0][0])

    def _connection(self) -> sqlite3.Connection:
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(self._uri, uri=True, check_same_thread=False)
            self._local.con = con
        return con

    def _decompress(self, body: bytes) -> bytes:
        # a ZstdDecompressor is not safe across threads: one per thread, like the connection
        decompressor: zstandard.ZstdDecompressor | None = getattr(self._local, "zstd", None)
        if decompressor is None:
            decompressor = zstandard.ZstdDecompressor(dict_data=self._dictionary)
            self._local.zstd = decompressor
        return decompressor.decompress(body)

    def record(self, abn: str) -> dict[str, Any] | None:
        row = (
            self._connection()
            .execute("select body from verify where abn = ?", (int(abn),))
            .fetchone()
        )
        if row is None:
            return None
        body = json.loads(row[0] if self.format == 1 else self._decompress(row[0]))
        reasons, details = self.reasons, body.pop("details")
        body["checks"] = {
            check_id: (
                _STATUS_OF[code],
                None if reason is None or reason < 0 else reasons[reason],
                details.get(str(index)),
            )
            for index, (check_id, code, reason) in enumerate(
                zip(self.check_ids, body.pop("statuses"), body.pop("reasons"), strict=True)
            )
        }
        return body
