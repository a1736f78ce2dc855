"""Types every parser shares: the landed file it reads, the batches it yields, rejected rows."""

from __future__ import annotations

import datetime as dt
import io
import types
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa

_inflater: types.ModuleType = zlib
_InflateError: type[Exception] = zlib.error
try:  # ISA-L's inflate: the ABR extract lands zipped (docs/architecture.md, "The ABR parser")
    from isal import isal_zlib

    _inflater = isal_zlib
    _InflateError = isal_zlib.error  # type: ignore[assignment]  # the stub says an instance
except ImportError:  # pragma: no cover - zlib is always there
    pass


class SourceFileError(Exception):
    """A landed file cannot be read at all (wrong header, corrupt zip, unknown encoding).

    The message names the file; the load of its source fails and the previous data stays.
    """

    def __init__(self, file: str, reason: str) -> None:
        super().__init__(f"{file}: {reason}")
        self.file = file
        self.reason = reason


@dataclass(frozen=True)
class LandingFile:
    """One readable input: a plain file, or one member of a zip that landed as-is."""

    path: Path
    member: str | None = None

    @property
    def name(self) -> str:
        """Display name used in quarantine rows, manifests and error messages."""
        return f"{self.path.name}!{self.member}" if self.member else self.path.name

    @property
    def inner_name(self) -> str:
        """The data file's own name (the member name for a zip member)."""
        return Path(self.member).name if self.member else self.path.name

    @contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """Open for streaming binary reads; zip members are decompressed on the fly."""
        if self.member is None:
            with open(self.path, "rb") as fh:
                yield fh
            return
        try:
            archive = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise SourceFileError(self.name, f"cannot open zip: {exc}") from exc
        with archive:
            try:
                info = archive.getinfo(self.member)
            except KeyError as exc:
                raise SourceFileError(self.name, "member missing from zip") from exc
            if info.compress_type == zipfile.ZIP_DEFLATED and not info.flag_bits & 0x1:
                with open(self.path, "rb") as fh:
                    yield _Inflated(fh, info, self.name)  # type: ignore[misc]
                return
            with archive.open(info) as member:  # stored, other methods, encrypted: zipfile's way
                yield _ZipErrors(member, self.name)  # type: ignore[misc,arg-type]


class _Inflated(io.RawIOBase):
    """A deflated zip member, inflated by ISA-L where it is installed (about 1.5 times
    zlib's speed on the ABR extract), else by zlib; its CRC-32 and size checked at the end
    as zipfile checks them. Errors surface as SourceFileError naming the file."""

    BLOCK = 1 << 20

    def __init__(self, fh: BinaryIO, info: zipfile.ZipInfo, name: str) -> None:
        self._fh = fh
        self._name = name
        self._info = info
        self._inflate = _inflater.decompressobj(-15)
        self._crc = 0
        self._size = 0
        self._pending = b""  # inflated, not yet read
        self._done = False
        try:
            fh.seek(info.header_offset)
            header = fh.read(30)
        except (OSError, ValueError) as exc:  # offsets past either end of a damaged archive
            raise SourceFileError(name, f"corrupt zip member: {exc}") from exc
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise SourceFileError(name, "corrupt zip member: bad local file header")
        name_length, extra_length = (
            int.from_bytes(header[26:28], "little"),
            int.from_bytes(header[28:30], "little"),
        )
        fh.seek(info.header_offset + 30 + name_length + extra_length)
        self._left = info.compress_size  # compressed bytes not yet read

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        try:
            return self._read(size)
        except (zlib.error, _InflateError, OSError, ValueError) as exc:
            raise SourceFileError(self._name, f"corrupt zip member: {exc}") from exc

    def _read(self, size: int) -> bytes:
        out, have = [self._pending], len(self._pending)
        self._pending = b""
        while (size < 0 or have < size) and not self._done:
            if self._left:
                raw = self._fh.read(min(self.BLOCK, self._left))
                if not raw:
                    raise ValueError("zip member truncated")
                self._left -= len(raw)
                data = self._inflate.decompress(raw)
            else:  # every compressed byte read
                data = self._inflate.flush()
                self._done = True
            if data:
                self._crc = _inflater.crc32(data, self._crc)
                self._size += len(data)
                out.append(data)
                have += len(data)
            if self._done:
                self._check()
        data = b"".join(out)
        if 0 <= size < len(data):
            self._pending = data[size:]
            return data[:size]
        return data

    def _check(self) -> None:
        if not self._inflate.eof:
            raise ValueError("inflate stream ended early")
        if self._size != self._info.file_size:
            raise ValueError(f"size {self._size} differs from the zip's {self._info.file_size}")
        if self._crc != self._info.CRC:
            raise ValueError(f"bad CRC-32 for file {self._info.filename!r}")

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _ZipErrors(io.RawIOBase):
    """Wrap a zip member so CRC and inflate errors surface as SourceFileError naming the file."""

    def __init__(self, raw: BinaryIO, name: str) -> None:
        self._raw = raw
        self._name = name

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        try:
            return self._raw.read(size)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
            raise SourceFileError(self._name, f"corrupt zip member: {exc}") from exc

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


@dataclass(frozen=True)
class Quarantined:
    """A rejected row: where it was and why. ``raw`` is the row's text as landed (truncated)."""

    file: str
    line: int
    reason: str
    raw: str

    MAX_RAW = 4000

    @classmethod
    def of(cls, file: str, line: int, reason: str, raw: str | bytes) -> Quarantined:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
        return cls(file, line, reason, raw[: cls.MAX_RAW])


@dataclass
class Batch:
    """What a parser yields: rows per raw table (Arrow, in the table's schema) and rejects."""

    tables: dict[str, pa.Table] = field(default_factory=dict)
    quarantine: list[Quarantined] = field(default_factory=list)
    written: dict[str, int] = field(default_factory=dict)  # rows the parser wrote to a PartSink

    @property
    def rows(self) -> int:
        return sum(t.num_rows for t in self.tables.values()) + sum(self.written.values())

    def count(self, key: str) -> int:
        table = self.tables.get(key)
        return (table.num_rows if table is not None else 0) + self.written.get(key, 0)


@dataclass(frozen=True)
class PartSink:
    """Staging directories a parser's worker processes write their rows to, as Parquet parts.

    Handed to parsers that parse in worker processes, so that parsed rows are written where
    they are parsed instead of travelling back to the loading process. Part numbers keep
    file order.
    """

    directories: dict[str, Path]  # parser's table key -> staging directory

    def write(self, key: str, rows: pa.Table, part: int) -> int:
        if rows.num_rows:
            write_part(rows, self.directories[key] / f"part-{part:06d}.parquet")
        return rows.num_rows


def write_part(rows: pa.Table, path: Path) -> None:
    """One raw Parquet part: one row group, codes dictionary-encoded, snappy."""
    import pyarrow.parquet as pq

    from pipelines.ingest.tables import dictionary_columns

    pq.write_table(
        rows,
        path,
        compression="snappy",
        row_group_size=max(rows.num_rows, 1),
        use_dictionary=dictionary_columns(rows.schema),
        write_statistics=False,
    )


@dataclass(frozen=True)
class FileInfo:
    """What a parser learnt about a file as a whole (for the manifest)."""

    extract_date: dt.date | None = None
    declared_records: int | None = None
