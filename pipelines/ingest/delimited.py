"""Streaming reader for the publishers' delimited files (ASIC and ACNC registers).

A source is declared, not coded: a :class:`DelimitedSpec` names the publisher's header
columns and the raw-table column each feeds, which headers must be present, which columns
hold ``DD/MM/YYYY`` dates or ABN/ACN identifiers, and the delimiter (fixed, or read from the
header line). :func:`read_delimited` streams the file and yields :class:`Batch` es in the
spec's Arrow schema. What it does for every source:

* **Encoding** is read from the bytes: a UTF-16 byte-order mark means UTF-16; otherwise each
  line is UTF-8 if it decodes as UTF-8, else cp1252 (older ASIC files). A UTF-8 BOM is
  dropped. The five bytes cp1252 leaves undefined decode to the matching C1 control
  character, as Windows does, so no line is undecodable.
* **Lines**: CRLF and LF both end a line; a lone CR is data. Line numbers are physical
  lines, 1-based, the header being line 1. Blank lines (nothing but whitespace and
  delimiters) are skipped: they are neither rows nor quarantined.
* **Header** columns are matched by name (case and repeated spaces ignored), in any order.
  A missing required column fails the file with :class:`SourceFileError` naming the missing
  and the unexpected columns; a missing optional column loads as null; extra columns are
  ignored. A header-only file (no rows) whose header has unexpected columns (neither read
  nor declared unread) has its header line quarantined: no row shows whether its rows
  would carry the column or lack it (then every row would be quarantined), so it does not
  load without a word.
* **Values** are trimmed of surrounding whitespace, and an empty value is null. Identifier
  columns lose their spaces, and ``0``/``00000000000``/empty mean null (as
  :func:`pipelines.identifiers.clean_identifier`); a present identifier must pass its check
  digits. Date columns must be ``DD/MM/YYYY`` (or ``YYYY-MM-DD`` when the spec says
  ``date_format="YYYY-MM-DD"``) and a real calendar date. Integer, float and boolean
  columns (``true``/``false``, any case) must parse as such.
* **Quarantine**: a row with the wrong number of fields, a bad date, number or boolean, a
  bad identifier, or
  an empty value in a column the schema declares not-null goes to ``Batch.quarantine`` with
  the file, physical line, every reason, and the raw line. All other rows load.

Unquoted files (``quoted=False``: the ASIC company and business-name files) are split by
Arrow's CSV parser with quoting off, so a ``"`` is a literal character and one line is one
row. Quoted files (``quoted=True``) go through :mod:`csv`, so RFC 4180 fields may span
lines; a record's line number is the line it starts on. Either way trimming and every
check run on whole Arrow/NumPy arrays, not per row; on the unquoted path no Python code
touches a single row unless it is quarantined.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import BinaryIO, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from pipelines.identifiers import (
    ABN_WEIGHTS,
    ACN_WEIGHTS,
    abn_is_valid,
    acn_is_valid,
    clean_identifier,
)
from pipelines.ingest.base import Batch, LandingFile, Quarantined, SourceFileError
from pipelines.ingest.tables import Layout

LINEAGE_COLUMNS = ("source_file", "source_line")

_READ_SIZE = 4 << 20  # bytes read at a time; blocks are cut on line boundaries
_QUOTED_PIECE_ROWS = 10_000  # quoted records gathered before converting them to Arrow
_LINE = "__line"  # physical line number, carried next to the raw fields
_RAW = "__raw"  # the record as read, kept when fields cannot be re-joined into it

Mask = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]
DateFormat = Literal["DD/MM/YYYY", "YYYY-MM-DD"]
_TYPED = {pa.int64(): "integer", pa.float64(): "number", pa.bool_(): "boolean"}


class IdKind(StrEnum):
    """What an identifier column holds; the value names it in quarantine reasons."""

    ABN = "ABN"
    ACN = "ACN"  # also ARBNs, which use the ACN check digit
    ABN_OR_ACN = "ABN or ACN"  # valid as either an 11-digit ABN or a 9-digit ACN


@dataclass(frozen=True)
class DelimitedSpec:
    """One publisher file format, declared.

    ``columns`` maps the publisher's header names to raw-table columns and must cover every
    non-lineage column of ``schema``. ``dates`` and ``identifiers`` name raw-table columns.
    A column the schema declares not-null must come from a ``required`` header, and a row
    with an empty value there is quarantined.
    """

    dataset: str  # the publisher's name for the data set, used in error messages
    table: str  # key of the table in Batch.tables
    schema: pa.Schema
    columns: Mapping[str, str]
    required: frozenset[str]
    dates: frozenset[str] = frozenset()
    identifiers: Mapping[str, IdKind] = field(default_factory=dict)
    delimiter: str | None = "\t"  # None: read from the header line (tab or comma)
    quoted: bool = False
    date_format: DateFormat = "DD/MM/YYYY"
    # Lines before the header (a title and a blank line in the ASX list): dropped, but still
    # counted, so line numbers stay physical (the header is then line preamble_lines + 1).
    preamble_lines: int = 0
    # Headers the file has that are not read (the layout's unread columns): not unexpected.
    unread: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        data_fields = [f for f in self.schema if f.name not in LINEAGE_COLUMNS]
        outputs = set(self.columns.values())
        problems: list[str] = []
        if len(outputs) != len(self.columns):
            problems.append("two headers feed one column")
        if len({_normal(h) for h in self.columns}) != len(self.columns):
            problems.append("two headers differ only in case or spacing")
        if missing := [f.name for f in data_fields if f.name not in outputs]:
            problems.append(f"schema columns without a header: {missing}")
        if extra := sorted(outputs - {f.name for f in data_fields}):
            problems.append(f"columns not in the schema: {extra}")
        if unknown := sorted(set(self.required) - set(self.columns)):
            problems.append(f"required headers not in columns: {unknown}")
        header_of = {column: header for header, column in self.columns.items()}
        for f in data_fields:
            if not f.nullable and header_of.get(f.name) not in self.required:
                problems.append(f"not-null column {f.name} must come from a required header")
        for name in self.dates:
            if name not in outputs or self.schema.field(name).type != pa.date32():
                problems.append(f"date column {name} must be a date32 column")
        for name in self.identifiers:
            if name not in outputs or self.schema.field(name).type != pa.string():
                problems.append(f"identifier column {name} must be a string column")
        for f in data_fields:
            if f.name not in self.dates and f.type != pa.string() and f.type not in _TYPED:
                problems.append(
                    f"column {f.name} is {f.type}; only string, date, int64, float64 and bool"
                    " read here"
                )
        if self.date_format not in ("DD/MM/YYYY", "YYYY-MM-DD"):
            problems.append(f"unknown date format {self.date_format!r}")
        if self.preamble_lines < 0:
            problems.append("preamble_lines must not be negative")
        if self.delimiter is not None and len(self.delimiter) != 1:
            problems.append("delimiter must be one character")
        if [f.name for f in self.schema][-2:] != list(LINEAGE_COLUMNS):
            problems.append(f"schema must end with the lineage columns {LINEAGE_COLUMNS}")
        if problems:
            raise ValueError(f"{self.dataset}: bad spec: {'; '.join(problems)}")


_ID_KINDS = {"abn": IdKind.ABN, "acn": IdKind.ACN, "abn_or_acn": IdKind.ABN_OR_ACN}


def declared_spec(
    dataset: str,
    table: str,
    layout: Layout,
    *,
    delimiter: str | None,
    quoted: bool = False,
    date_format: DateFormat = "DD/MM/YYYY",
    preamble_lines: int = 0,
) -> DelimitedSpec:
    """The spec of a file declared as a :class:`~pipelines.ingest.tables.Layout`.

    The loaded columns with a header are read by it (required unless declared optional);
    date columns are parsed in ``date_format``; abn, acn and abn_or_acn columns are cleaned,
    and a key one (the record's own identity) must pass its check digits; an identifier the
    record only lists is kept as listed (docs/decisions/19-a-records-own-identifier.md). Loaded columns without a header (values from the file name) are
    the caller's to add, so the spec's schema holds only the read ones.
    """
    read = [c for c in layout.loaded if c.header is not None]
    return DelimitedSpec(
        dataset=dataset,
        table=table,
        schema=pa.schema([*(c.field() for c in read), *_lineage_fields(layout)]),
        columns={c.header: c.name for c in read if c.header is not None},
        required=frozenset(c.header for c in read if c.header is not None and not c.optional),
        unread=frozenset(c.header for c in layout.columns if not c.loaded and c.header),
        dates=frozenset(c.name for c in read if c.kind == "date"),
        identifiers={c.name: _ID_KINDS[c.kind] for c in read if c.kind in _ID_KINDS},
        delimiter=delimiter,
        quoted=quoted,
        date_format=date_format,
        preamble_lines=preamble_lines,
    )


def _lineage_fields(layout: Layout) -> list[pa.Field]:
    return [layout.schema.field(name) for name in LINEAGE_COLUMNS]


def _nul_header(header: bytes) -> str:
    """What NUL bytes in a header line say: text as UTF-16 without its byte-order mark puts a
    NUL beside nearly every ASCII character, all on one side; binary or corrupt data has
    them here and there."""
    nuls = [i % 2 for i, byte in enumerate(header) if byte == 0]
    if len(nuls) >= 0.4 * len(header) and max(nuls.count(0), nuls.count(1)) >= 0.95 * len(nuls):
        return "unknown encoding: the header reads as UTF-16 without a byte-order mark"
    return (
        f"not a text file: {len(nuls)} NUL bytes among the header's {len(header)} bytes"
        " (binary or corrupt data)"
    )


def read_delimited(
    file: LandingFile, spec: DelimitedSpec, batch_rows: int = 100_000
) -> Iterator[Batch]:
    """Stream ``file`` as ``spec`` declares, in Batches of ``batch_rows`` loaded rows.

    The last batch may be smaller. Quarantined rows travel with the next batch yielded
    after they are read (a file of only bad rows yields one batch with an empty table).
    A header-only file yields nothing, unless its header has unexpected columns: then one
    batch with no rows and the header line quarantined. Raises SourceFileError (naming the
    file) for an empty file, a header that is not this data set's, or a file that cannot be
    read (corrupt zip member, invalid UTF-16, an unreadable quoted header).
    """
    if batch_rows < 1:
        raise ValueError("batch_rows must be at least 1")
    with file.open() as fh:
        blocks = _utf8_blocks(fh, file.name)
        first = next(blocks, b"")
        for _ in range(spec.preamble_lines):  # the preamble is a few short lines
            if b"\n" not in first:
                raise SourceFileError(file.name, "file ends before its header line")
            first = first.partition(b"\n")[2]
        header_bytes, _, rest = first.partition(b"\n")
        header_line = header_bytes.decode("utf-8").rstrip("\r")
        if not header_line.strip():
            raise SourceFileError(file.name, "empty file (no header line)")
        if "\x00" in header_line:
            raise SourceFileError(file.name, _nul_header(header_bytes))
        delimiter = spec.delimiter or _detect_delimiter(header_line, file.name)
        pieces: Iterator[_Piece]
        if spec.quoted:
            texts = (block.decode("utf-8") for block in _chain(first, blocks))
            records = _quoted_records(texts, delimiter, spec.preamble_lines)
            _, header, _, error = next(records)
            if error is not None:
                raise SourceFileError(file.name, f"header: {error}")
            layout = _layout(spec, header, file.name)
            pieces = _quoted_pieces(records, len(header), file.name)
        else:
            header = header_line.split(delimiter)
            layout = _layout(spec, header, file.name)
            pieces = _unquoted_pieces(
                _chain(rest, blocks), len(header), delimiter, file.name, spec.preamble_lines + 2
            )
        converter = _Converter(spec, layout, len(header), delimiter, file.name)
        done: list[pa.Table] = []  # converted rows not yet yielded
        done_rows = 0
        quarantine: list[Quarantined] = []
        any_row = False  # a row, loaded or quarantined
        for piece in pieces:
            table, rejected = converter.convert(piece.table)
            quarantine += piece.quarantine + rejected
            any_row = any_row or bool(table.num_rows or piece.quarantine or rejected)
            if table.num_rows:
                done.append(table)
                done_rows += table.num_rows
            while done_rows >= batch_rows:
                rows = pa.concat_tables(done)
                yield _batch(spec, rows.slice(0, batch_rows), quarantine)
                quarantine = []
                done = [rows.slice(batch_rows)]
                done_rows -= batch_rows
        if done_rows or quarantine:
            rows = pa.concat_tables(done) if done else _empty(spec.schema)
            yield _batch(spec, rows, quarantine)
        elif not any_row and (unexpected := _unexpected(spec, header)):
            reason = (
                f"header only, no rows: the {spec.dataset} header has unexpected column(s)"
                f" {unexpected}"
            )
            line = Quarantined.of(file.name, spec.preamble_lines + 1, reason, header_line)
            yield _batch(spec, _empty(spec.schema), [line])


def _batch(spec: DelimitedSpec, rows: pa.Table, quarantine: list[Quarantined]) -> Batch:
    return Batch(tables={spec.table: rows}, quarantine=sorted(quarantine, key=lambda q: q.line))


def date_from_name(name: str, prefix: str) -> dt.date | None:
    """The snapshot date in a file name ``<prefix>_YYYYMM[DD]…`` (case-insensitive).

    ``YYYYMMDD`` gives that day; ``YYYYMM`` alone gives the first day of the month (the
    name says only the month, and the first day is never later than the real extract).
    None when the name carries no valid date.
    """
    match = re.match(rf"(?i){re.escape(prefix)}_(\d{{4}})(\d{{2}})(\d{{2}})?(?!\d)", name)
    if not match:
        return None
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3] or 1))
    except ValueError:
        return None


# --- bytes to UTF-8 line blocks ----------------------------------------------------------


def _c1_controls(error: UnicodeError) -> tuple[str, int]:
    """cp1252's undefined bytes (0x81, 0x8D, 0x8F, 0x90, 0x9D) become C1 controls."""
    assert isinstance(error, UnicodeDecodeError)
    return "".join(chr(b) for b in error.object[error.start : error.end]), error.end


codecs.register_error("bvs.c1controls", _c1_controls)


def _as_utf8(block: bytes) -> bytes:
    """The block with each line that is not UTF-8 re-encoded from cp1252."""
    if block.isascii():
        return block
    try:
        block.decode("utf-8")
        return block
    except UnicodeDecodeError:
        return b"\n".join(_line_as_utf8(line) for line in block.split(b"\n"))


def _line_as_utf8(line: bytes) -> bytes:
    try:
        line.decode("utf-8")
        return line
    except UnicodeDecodeError:
        return line.decode("cp1252", errors="bvs.c1controls").encode("utf-8")


def _read_full(fh: BinaryIO, size: int) -> bytes:
    """Read ``size`` bytes unless the stream ends first (zip members may return less)."""
    parts: list[bytes] = []
    wanted = size
    while wanted > 0:
        chunk = fh.read(wanted)
        if not chunk:
            break
        parts.append(chunk)
        wanted -= len(chunk)
    return b"".join(parts)


def _utf8_blocks(fh: BinaryIO, name: str) -> Iterator[bytes]:
    """The file as UTF-8 without BOM, in blocks that end with LF (the last one may not)."""
    chunk = _read_full(fh, _READ_SIZE)
    if not chunk:
        raise SourceFileError(name, "empty file (0 bytes)")
    if chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        yield from _utf16_blocks(chunk, fh, name)
        return
    chunk = chunk.removeprefix(codecs.BOM_UTF8)
    carry = b""
    while True:
        data = carry + chunk
        chunk = _read_full(fh, _READ_SIZE)
        if not chunk:
            if data:
                yield _as_utf8(data)
            return
        cut = data.rfind(b"\n") + 1
        if cut:
            yield _as_utf8(data[:cut])
        carry = data[cut:]


def _utf16_blocks(head: bytes, fh: BinaryIO, name: str) -> Iterator[bytes]:
    decoder = codecs.getincrementaldecoder("utf-16")()  # reads the BOM, then drops it
    carry = ""
    chunk = head
    try:
        while True:
            final = not chunk
            text = carry + decoder.decode(chunk, final=final)
            if final:
                if text:
                    yield text.encode("utf-8")
                return
            cut = text.rfind("\n") + 1
            if cut:
                yield text[:cut].encode("utf-8")
            carry = text[cut:]
            chunk = _read_full(fh, _READ_SIZE)
    except UnicodeDecodeError as exc:
        raise SourceFileError(name, f"invalid UTF-16 ({exc.reason})") from exc


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest


# --- header -------------------------------------------------------------------------------


def _detect_delimiter(header: str, name: str) -> str:
    tabs, commas = header.count("\t"), header.count(",")
    if tabs and tabs >= commas:
        return "\t"
    if commas:
        return ","
    raise SourceFileError(name, f"cannot tell the delimiter from the header {header[:200]!r}")


def _normal(header: str) -> str:
    return " ".join(header.split()).casefold()


def _layout(spec: DelimitedSpec, header: list[str], name: str) -> dict[str, int]:
    """Raw-table column -> field index in the file, for the columns this file has."""
    names = [_normal(h) for h in header]
    known = {_normal(h) for h in spec.columns}
    dupes = sorted(
        {h.strip() for h, n in zip(header, names, strict=True) if n in known and names.count(n) > 1}
    )
    if dupes:  # ambiguous; repeats of columns not read here do not matter
        raise SourceFileError(name, f"{spec.dataset}: duplicate header column(s) {dupes}")
    index = {n: i for i, n in enumerate(names)}
    missing = [h for h in spec.columns if h in spec.required and _normal(h) not in index]
    if missing:
        unexpected = _unexpected(spec, header)
        raise SourceFileError(
            name,
            f"not the {spec.dataset} header: missing required column(s) {missing}"
            + (f"; unexpected column(s) {unexpected}" if unexpected else ""),
        )
    return {col: index[_normal(h)] for h, col in spec.columns.items() if _normal(h) in index}


def _unexpected(spec: DelimitedSpec, header: list[str]) -> list[str]:
    """The header's columns the spec neither reads nor declares unread (empty names aside)."""
    known = {_normal(h) for h in (*spec.columns, *spec.unread)}
    return [h.strip() for h in header if h.strip() and _normal(h) not in known]


# --- lines to pieces of raw rows ------------------------------------------------------------


@dataclass
class _Piece:
    """Rows as read: string columns "0".."width-1", their physical line, maybe the raw text."""

    table: pa.Table
    quarantine: list[Quarantined]


def _field_names(width: int) -> list[str]:
    return [str(i) for i in range(width)]


def _wrong_width(name: str, line: int, width: int, found: int, raw: str) -> Quarantined:
    return Quarantined.of(name, line, f"expected {width} fields, found {found}", raw)


def _unquoted_pieces(
    blocks: Iterable[bytes], width: int, delimiter: str, name: str, line: int = 2
) -> Iterator[_Piece]:
    """Rows from ``line`` on (the line after the header)."""
    for block in blocks:
        if not block:
            continue
        codes = np.frombuffer(block, dtype=np.uint8)
        lines = int(np.count_nonzero(codes == ord("\n"))) + (not block.endswith(b"\n"))
        carriage_returns = np.flatnonzero(codes == ord("\r")) + 1
        lone_cr = bool(len(carriage_returns)) and (
            carriage_returns[-1] == len(codes) or bool((codes[carriage_returns] != ord("\n")).any())
        )
        piece = None
        if width > 1 and not lone_cr:  # Arrow would end a line at a lone CR, which is data
            piece = _arrow_piece(block, line, lines, width, delimiter, name)
        if piece is None:
            text = block.decode("utf-8").replace("\r\n", "\n")
            piece = _python_piece(text, line, width, delimiter, name)
        yield piece
        line += lines


def _arrow_piece(
    block: bytes, line: int, lines: int, width: int, delimiter: str, name: str
) -> _Piece | None:
    """Split a block with Arrow's CSV parser (quoting off); None if it cannot be trusted."""
    names = _field_names(width)
    wrong: list[tuple[int, int, str]] = []

    def invalid(row: pa_csv.InvalidRow) -> str:
        wrong.append((row.number, row.actual_columns, row.text))
        return "skip"

    try:
        table = pa_csv.read_csv(
            pa.BufferReader(block),
            read_options=pa_csv.ReadOptions(
                column_names=names, use_threads=False, block_size=len(block) + 1
            ),
            parse_options=pa_csv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=False,  # keeps one row per line, so line numbers hold
                invalid_row_handler=invalid,
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid:
        return None
    if any(number is None for number, _, _ in wrong) or table.num_rows + len(wrong) != lines:
        return None
    positions = np.arange(line, line + lines, dtype=np.int64)
    if wrong:
        positions = np.delete(positions, [number - 1 for number, _, _ in wrong])
    quarantine = [
        _wrong_width(name, line + number - 1, width, found, text.rstrip("\r"))
        for number, found, text in wrong
        if text.strip()
    ]
    table = table.append_column(_LINE, _int64_array(positions))
    return _Piece(table, quarantine)


def _python_piece(text: str, line: int, width: int, delimiter: str, name: str) -> _Piece:
    """The slow path: blocks with a lone CR in a field, or one-column files."""
    if text.endswith(("\n", "\r")):
        text = text[:-1]
    columns: list[list[str]] = [[] for _ in range(width)]
    lines: list[int] = []
    quarantine: list[Quarantined] = []
    for offset, raw in enumerate(text.split("\n")):
        fields = raw.split(delimiter)
        if len(fields) != width:
            if raw.strip():
                quarantine.append(_wrong_width(name, line + offset, width, len(fields), raw))
            continue
        for column, value in zip(columns, fields, strict=True):
            column.append(value)
        lines.append(line + offset)
    table = pa.Table.from_arrays(
        [_string_array(c) for c in columns] + [_int64_array(np.array(lines, dtype=np.int64))],
        names=[*_field_names(width), _LINE],
    )
    return _Piece(table, quarantine)


_Record = tuple[int, list[str], str, str | None]  # first line, fields, raw text, error


def _quoted_records(texts: Iterable[str], delimiter: str, skipped: int = 0) -> Iterator[_Record]:
    """Records with the physical line they start on, the header first; blanks skipped.

    A record :mod:`csv` cannot read (a CR in an unquoted field, an over-long field) comes
    with the error instead of fields, and reading goes on with the next line.
    """
    consumed: list[str] = []

    def lines() -> Iterator[str]:
        for text in texts:
            pieces = text.replace("\r\n", "\n").split("\n")
            for piece in pieces[:-1]:
                consumed.append(piece)
                yield piece + "\n"
            if pieces[-1]:
                consumed.append(pieces[-1])
                yield pieces[-1]

    reader = csv.reader(lines(), delimiter=delimiter, quotechar='"', strict=False)
    seen = skipped  # preamble lines already dropped
    while True:
        error = None
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            fields, error = [], f"unreadable quoted record ({exc})"
        start, seen = seen + 1, reader.line_num + skipped
        raw = "\n".join(consumed)
        consumed.clear()
        if error is None and not "".join(fields).strip():
            continue  # blank line
        yield start, fields, raw, error


def _quoted_pieces(records: Iterator[_Record], width: int, name: str) -> Iterator[_Piece]:
    while True:
        columns: list[list[str]] = [[] for _ in range(width)]
        lines: list[int] = []
        raws: list[str] = []
        quarantine: list[Quarantined] = []
        for line, fields, raw, error in records:
            if error is not None:
                quarantine.append(Quarantined.of(name, line, error, raw))
                continue
            if len(fields) != width:
                quarantine.append(_wrong_width(name, line, width, len(fields), raw))
                continue
            for column, value in zip(columns, fields, strict=True):
                column.append(value)
            lines.append(line)
            raws.append(raw)
            if len(lines) >= _QUOTED_PIECE_ROWS:
                break
        else:
            if lines or quarantine:
                yield _quoted_piece(columns, lines, raws, quarantine, width)
            return
        yield _quoted_piece(columns, lines, raws, quarantine, width)


def _quoted_piece(
    columns: list[list[str]],
    lines: list[int],
    raws: list[str],
    quarantine: list[Quarantined],
    width: int,
) -> _Piece:
    arrays = [_string_array(c) for c in columns]
    arrays += [_int64_array(np.array(lines, dtype=np.int64)), _string_array(raws)]
    table = pa.Table.from_arrays(arrays, names=[*_field_names(width), _LINE, _RAW])
    return _Piece(table, quarantine)


# --- raw rows to the spec's table -------------------------------------------------------------


class _Converter:
    """Turns raw string rows into the spec's schema, quarantining the rows that fail checks."""

    def __init__(
        self,
        spec: DelimitedSpec,
        layout: Mapping[str, int],
        width: int,
        delimiter: str,
        file_name: str,
    ) -> None:
        self.spec = spec
        self.layout = layout
        self.width = width
        self.delimiter = delimiter
        self.file_name = file_name
        self.headers = {column: header for header, column in spec.columns.items()}

    def convert(self, rows: pa.Table) -> tuple[pa.Table, list[Quarantined]]:
        if not rows.num_rows:
            return _empty(self.spec.schema), []
        fields = [_trim(rows.column(i).combine_chunks()) for i in range(self.width)]
        blank = np.ones(rows.num_rows, dtype=np.bool_)
        for values in fields:
            blank &= _lengths(values) == 0
        if blank.any():
            keep = _bool_array(~blank)
            rows = rows.filter(keep)
            fields = [values.filter(keep) for values in fields]
        n = rows.num_rows
        line_array = rows.column(_LINE).combine_chunks()
        lines: Ints = np.frombuffer(
            line_array.buffers()[1], np.int64, count=n, offset=line_array.offset * 8
        )
        problems: list[tuple[Mask, str, pa.StringArray]] = []  # (bad rows, reason, values)
        arrays: list[pa.Array] = []
        for f in self.spec.schema:
            if f.name == "source_file":
                arrays.append(_constant_string(self.file_name, n))
                continue
            if f.name == "source_line":
                arrays.append(_int64_array(lines))
                continue
            index = self.layout.get(f.name)
            if index is None:
                arrays.append(pa.nulls(n, f.type))
                continue
            text = fields[index]
            header = self.headers[f.name]
            present = _lengths(text) > 0
            if f.name in self.spec.dates:
                values, bad = parse_dates(text, self.spec.date_format)
                reason = f"bad date in {header} (expected {self.spec.date_format})"
                problems.append((bad, reason, text))
            elif kind := self.spec.identifiers.get(f.name):
                values, present, bad = clean_identifiers(text, kind)
                if not f.nullable:
                    # the record's own key: a row without a readable one is malformed
                    problems.append((bad, f"invalid {kind} in {header}", text))
                # else an identifier the record lists (docs/decisions/19-a-records-own-identifier.md): kept as listed,
                # check digits or not; the matching finds it names no entity ("listed ABN
                # not found") and matches the record by its register's name rule
            elif f.type in _TYPED:
                values, bad = parse_typed(text, f.type)
                problems.append((bad, f"bad {_TYPED[f.type]} in {header}", text))
            else:
                values = _empty_to_null(text, present)
            if not f.nullable:
                problems.append((~present, f"empty {header}", text))
            arrays.append(values)
        table = pa.Table.from_arrays(arrays, schema=self.spec.schema)
        bad_rows = np.zeros(n, dtype=np.bool_)
        for bad, _, _ in problems:
            bad_rows |= bad
        if not bad_rows.any():
            return table, []
        reasons: dict[int, list[str]] = {}
        for bad, reason, values in problems:
            indexes = np.flatnonzero(bad)
            shown = values.take(_int64_array(indexes.astype(np.int64))).to_pylist()
            for i, value in zip(indexes.tolist(), shown, strict=True):
                reasons.setdefault(i, []).append(f"{reason}: {value!r}" if value else reason)
        rejected_rows = np.array(sorted(reasons), dtype=np.int64)
        raws = self._raws(rows.take(_int64_array(rejected_rows)))
        rejected = [
            Quarantined.of(self.file_name, int(lines[i]), "; ".join(reasons[i]), raw)
            for i, raw in zip(rejected_rows.tolist(), raws, strict=True)
        ]
        return table.filter(_bool_array(~bad_rows)), rejected

    def _raws(self, rows: pa.Table) -> list[str]:
        """The rows' text as landed (less the line end)."""
        if _RAW in rows.column_names:
            return [str(raw) for raw in rows.column(_RAW).to_pylist()]
        # unquoted: the fields joined back are exactly the line
        fields = [rows.column(c).to_pylist() for c in range(self.width)]
        return [self.delimiter.join(row) for row in zip(*fields, strict=True)]


# --- vectorised value checks -------------------------------------------------------------
# The checks read Arrow's string buffers with NumPy; they expect arrays without nulls (as
# read). Arrays are built from buffers: pa.array() and Schema.empty_table() import pandas,
# which costs seconds when a process first does it.


def _bitmap(mask: Mask) -> pa.Buffer:
    return pa.py_buffer(np.packbits(mask, bitorder="little"))


def _bool_array(mask: Mask) -> pa.BooleanArray:
    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, _bitmap(mask)])


def _int64_array(values: Ints) -> pa.Int64Array:
    return pa.Array.from_buffers(
        pa.int64(), len(values), [None, pa.py_buffer(np.ascontiguousarray(values, np.int64))]
    )


def _empty(schema: pa.Schema) -> pa.Table:
    return pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)


def _string_array(values: Sequence[str | None]) -> pa.StringArray:
    encoded = [b"" if v is None else v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError("more than 2 GiB of text in one piece")
    missing = np.fromiter((v is None for v in values), dtype=np.bool_, count=len(values))
    validity = _bitmap(~missing) if missing.any() else None
    buffers = [validity, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)


def _constant_string(value: str, n: int) -> pa.StringArray:
    encoded = value.encode("utf-8")
    offsets = np.arange(n + 1, dtype=np.int32) * len(encoded)
    return pa.Array.from_buffers(
        pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(encoded * n)]
    )


def _offsets(values: pa.StringArray) -> Int32s:
    return np.frombuffer(
        values.buffers()[1], dtype=np.int32, count=len(values) + 1, offset=values.offset * 4
    )


def _data(values: pa.StringArray) -> npt.NDArray[np.uint8]:
    buffer = values.buffers()[2]
    return np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, np.uint8)


def _lengths(values: pa.StringArray) -> Int32s:
    """Byte length of each value of a string array."""
    return np.diff(_offsets(values))


def _trim(values: pa.StringArray) -> pa.StringArray:
    """Strip surrounding whitespace; skipped when no value starts or ends with a byte that
    could be whitespace (ASCII control or space, or any non-ASCII byte)."""
    offsets = _offsets(values)
    filled = np.flatnonzero(np.diff(offsets) > 0)
    if not len(filled):
        return values
    data = _data(values)
    edges = np.concatenate([data[offsets[filled]], data[offsets[filled + 1] - 1]])
    if ((edges <= 0x20) | (edges >= 0x80)).any():
        return pc.utf8_trim_whitespace(values)
    return values


def _empty_to_null(values: pa.StringArray, present: Mask) -> pa.StringArray:
    if present.all():
        return values
    return pc.if_else(_bool_array(present), values, pa.nulls(len(values), pa.string()))


def _fixed_width(values: pa.StringArray, width: int) -> tuple[npt.NDArray[np.intp], Int32s]:
    """(indexes of the values ``width`` bytes long, their bytes minus ord("0") by row).

    A digit d shows as d in the matrix, "/" as -1.
    """
    offsets = _offsets(values)
    rows = np.flatnonzero(np.diff(offsets) == width)
    if not len(rows):
        return rows, np.zeros((0, width), dtype=np.int32)
    starts = offsets[rows].astype(np.intp)
    chars = _data(values)[starts[:, None] + np.arange(width)].astype(np.int32) - ord("0")
    return rows, chars


def _all_digits(matrix: Int32s) -> Mask:
    return np.asarray(((matrix >= 0) & (matrix <= 9)).all(axis=1), dtype=np.bool_)


def _check_digits_ok(values: pa.StringArray, kind: IdKind) -> Mask:
    """identifiers.abn_is_valid / acn_is_valid (both for ABN_OR_ACN) over a whole array.

    All-zero values are not valid here: clean_identifier makes them null.
    """
    ok = np.zeros(len(values), dtype=np.bool_)
    if kind in (IdKind.ABN, IdKind.ABN_OR_ACN):
        rows, digits = _fixed_width(values, 11)
        digits_ok = _all_digits(digits)
        digits[:, 0] -= 1
        ok[rows] = digits_ok & ((digits @ np.array(ABN_WEIGHTS, dtype=np.int32)) % 89 == 0)
    if kind in (IdKind.ACN, IdKind.ABN_OR_ACN):
        rows, digits = _fixed_width(values, 9)
        total = digits[:, :8] @ np.array(ACN_WEIGHTS, dtype=np.int32)
        ok[rows] = (
            _all_digits(digits) & digits.any(axis=1) & ((10 - total % 10) % 10 == digits[:, 8])
        )
    return ok


def clean_identifiers(values: pa.StringArray, kind: IdKind) -> tuple[pa.StringArray, Mask, Mask]:
    """(cleaned identifiers, rows with an identifier, rows whose identifier is invalid).

    Cleaning is identifiers.clean_identifier's: spaces and non-breaking spaces removed,
    surrounding whitespace trimmed, and empty or all-zero values become null. Values that
    are already plain digits are checked vectorised; the rare others go through
    clean_identifier itself.
    """
    lengths = _lengths(values)
    valid = _check_digits_ok(values, kind)
    absent = lengths == 0
    odd = np.flatnonzero(~valid & ~absent)  # spaces, zeros, wrong length or bad digits
    if len(odd):
        raw = values.take(_int64_array(odd.astype(np.int64))).to_pylist()
        cleaned = [clean_identifier(v) for v in raw]
        replaced = np.zeros(len(values), dtype=np.bool_)
        replaced[odd] = True
        values = pc.replace_with_mask(values, _bool_array(replaced), _string_array(cleaned))
        absent[odd] = [v is None for v in cleaned]
        valid[odd] = [v is not None and _valid(v, kind) for v in cleaned]
    return _empty_to_null(values, ~absent), ~absent, ~absent & ~valid


def _valid(identifier: str, kind: IdKind) -> bool:
    if kind is IdKind.ABN:
        return abn_is_valid(identifier)
    if kind is IdKind.ACN:
        return acn_is_valid(identifier)
    return abn_is_valid(identifier) or acn_is_valid(identifier)


_DAYS_IN_MONTH = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int32)
_DATE_DIGITS = [0, 1, 3, 4, 6, 7, 8, 9]
_ISO_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9]
_SLASH = ord("/") - ord("0")
_DASH = ord("-") - ord("0")


def parse_dates(
    values: pa.StringArray, date_format: DateFormat = "DD/MM/YYYY"
) -> tuple[pa.Array, Mask]:
    """(dates as date32, rows whose value is present but not such a date).

    ``date_format`` is ``DD/MM/YYYY`` (the default) or ``YYYY-MM-DD`` (ISO). Empty values
    are null. Only two-digit days and months, four-digit years and real calendar dates pass
    (``1/2/2020``, ``2020-2-1`` and ``31/02/2020`` do not).
    """
    rows, chars = _fixed_width(values, 10)
    if date_format == "YYYY-MM-DD":
        day = chars[:, 8] * 10 + chars[:, 9]
        month = chars[:, 5] * 10 + chars[:, 6]
        year = chars[:, 0] * 1000 + chars[:, 1] * 100 + chars[:, 2] * 10 + chars[:, 3]
        separators = (chars[:, 4] == _DASH) & (chars[:, 7] == _DASH)
        digits = _all_digits(chars[:, _ISO_DIGITS])
    else:
        day = chars[:, 0] * 10 + chars[:, 1]
        month = chars[:, 3] * 10 + chars[:, 4]
        year = chars[:, 6] * 1000 + chars[:, 7] * 100 + chars[:, 8] * 10 + chars[:, 9]
        separators = (chars[:, 2] == _SLASH) & (chars[:, 5] == _SLASH)
        digits = _all_digits(chars[:, _DATE_DIGITS])
    ok = separators & digits & (month >= 1) & (month <= 12) & (year >= 1)
    month = np.where(ok, month, 1)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    ok &= (day >= 1) & (day <= _DAYS_IN_MONTH[month - 1] + ((month == 2) & leap))
    months_since_epoch = (np.where(ok, year, 1970) - 1970) * 12 + month - 1
    first_of_month = months_since_epoch.astype("datetime64[M]").astype("datetime64[D]")
    n = len(values)
    days = np.zeros(n, dtype=np.int32)
    days[rows] = first_of_month.astype(np.int64) + np.where(ok, day, 1) - 1
    parsed = np.zeros(n, dtype=np.bool_)
    parsed[rows] = ok
    result = pa.Array.from_buffers(pa.date32(), n, [_bitmap(parsed), pa.py_buffer(days)])
    return result, (_lengths(values) > 0) & ~parsed


_BOOLEANS = {"true": True, "false": False}


def parse_typed(values: pa.StringArray, type_: pa.DataType) -> tuple[pa.Array, Mask]:
    """(values as int64, float64 or bool, rows whose value is present but does not parse).

    Empty values are null. Booleans are ``true`` or ``false`` in any case. A whole array
    is cast at once; only when that fails is each value tried, to find the bad ones.
    """
    present = _lengths(values) > 0
    text = _empty_to_null(values, present)
    if type_ == pa.bool_():
        lowered = pc.utf8_lower(text)
        known = pc.is_in(lowered, value_set=_string_array(list(_BOOLEANS)))
        bad = present & ~np.asarray(known.fill_null(False).to_numpy(zero_copy_only=False))
        truth = pc.equal(lowered, "true")
        return pc.if_else(_bool_array(~bad), truth, pa.nulls(len(values), pa.bool_())), bad
    try:
        return pc.cast(text, type_), np.zeros(len(values), dtype=np.bool_)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    parsed: list[object] = []
    bad = np.zeros(len(values), dtype=np.bool_)
    for i, value in enumerate(text.to_pylist()):
        try:
            parsed.append(None if value is None else pc.cast(pa.scalar(value), type_).as_py())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            parsed.append(None)
            bad[i] = True
    return pa.array(parsed, type=type_), bad
