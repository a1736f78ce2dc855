"""Shared writers: buffered text to a file (optionally a raw deflate stream with its CRC, for
the zip members of :mod:`bvs_sample.zipwrite`), the per-chunk part files the other registers
write, and XML text escaping."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import BinaryIO

COMPRESS_LEVEL = 3  # zlib fast levels: 2x the speed of 6 for a 20% larger zip


class TextSink:
    """Buffered UTF-8 text to a binary file, optionally as a raw deflate stream with CRC."""

    def __init__(self, fh: BinaryIO, compress: bool) -> None:
        self._fh = fh
        self._buf: list[str] = []
        self._zip = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15) if compress else None
        self.raw_bytes = 0
        self.stored_bytes = 0
        self.crc = 0

    def add(self, text: str) -> None:
        self._buf.append(text)

    def flush(self) -> None:
        if not self._buf:
            return
        data = "".join(self._buf).encode("utf-8")
        self._buf.clear()
        self.raw_bytes += len(data)
        if self._zip is not None:
            self.crc = zlib.crc32(data, self.crc)
            data = self._zip.compress(data)
        self.stored_bytes += len(data)
        self._fh.write(data)

    def close(self) -> None:
        self.flush()
        if self._zip is not None:
            tail = self._zip.flush()
            self.stored_bytes += len(tail)
            self._fh.write(tail)


class PartFile:
    """Rows of one register target for one chunk, concatenated in chunk order afterwards."""

    def __init__(self, path: Path) -> None:
        self.fh: BinaryIO = open(path, "wb")  # noqa: SIM115 (closed in close())
        self.buf: list[str] = []
        self.rows = 0

    def add(self, text: str) -> None:
        self.buf.append(text)
        self.rows += 1
        if len(self.buf) >= 4000:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            self.fh.write("".join(self.buf).encode("utf-8"))
            self.buf.clear()

    def close(self) -> None:
        self.flush()
        self.fh.close()


def xml_text(text: str) -> str:
    """Text escaped for an XML element or a single-quoted attribute."""
    if "&" in text or "'" in text:
        return text.replace("&", "&amp;").replace("'", "&apos;")
    return text
