"""Assemble a zip from members that were deflated elsewhere (in the worker processes).

``zipfile`` can only compress in the writing process, which would make the largest step
single-threaded. The workers deflate their own XML (raw deflate, CRC-32 alongside) and this
module writes the zip container around those streams: local headers, data, central
directory. Timestamps are fixed, so the archive is byte-for-byte reproducible.
"""

from __future__ import annotations

import datetime as dt
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_LIMIT = 0xFFFFFFFF
_VERSION = 20  # 2.0: deflate
_MADE_BY = (3 << 8) | _VERSION  # Unix, so the external attributes hold a file mode
_DEFLATED = 8


@dataclass(frozen=True)
class DeflatedMember:
    name: str  # member name inside the zip
    data_path: Path  # raw deflate stream
    crc32: int
    compressed_size: int
    size: int


def _dos_time(when: dt.datetime) -> tuple[int, int]:
    time = (when.hour << 11) | (when.minute << 5) | (when.second // 2)
    date = ((when.year - 1980) << 9) | (when.month << 5) | when.day
    return time, date


def write_zip(path: Path, members: list[DeflatedMember], when: dt.datetime) -> None:
    """Write ``path`` holding ``members`` in order (no zip64: each part must stay < 4 GiB)."""
    time, date = _dos_time(when)
    central: list[bytes] = []
    with open(path, "wb") as out:
        for m in members:
            offset = out.tell()
            if max(m.size, m.compressed_size, offset) >= _LIMIT:
                raise ValueError(f"{path.name}: member {m.name} too large for a plain zip")
            name = m.name.encode("ascii")
            out.write(
                _LOCAL.pack(
                    0x04034B50,
                    _VERSION,
                    0,
                    _DEFLATED,
                    time,
                    date,
                    m.crc32,
                    m.compressed_size,
                    m.size,
                    len(name),
                    0,
                )  # fmt: skip
            )
            out.write(name)
            with open(m.data_path, "rb") as data:
                shutil.copyfileobj(data, out, 1 << 20)
            central.append(
                _CENTRAL.pack(
                    0x02014B50,
                    _MADE_BY,
                    _VERSION,
                    0,
                    _DEFLATED,
                    time,
                    date,
                    m.crc32,
                    m.compressed_size,
                    m.size,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    0o100644 << 16,
                    offset,
                )  # fmt: skip
                + name
            )
        start = out.tell()
        for entry in central:
            out.write(entry)
        size = out.tell() - start
        if start >= _LIMIT:
            raise ValueError(f"{path.name}: archive too large for a plain zip")
        out.write(_END.pack(0x06054B50, 0, 0, len(members), len(members), size, start, 0))
