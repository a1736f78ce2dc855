"""Types every parser shares: the landed file it reads, the batches it yields, rejected rows."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa


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
                with archive.open(self.member) as member:
                    yield _ZipErrors(member, self.name)  # type: ignore[misc,arg-type]
            except KeyError as exc:
                raise SourceFileError(self.name, "member missing from zip") from exc


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
