"""ABR ABN Bulk Extract (XML) parser.

The extract is 20 files, about 20 million ``<ABR>`` records and 13 GB. A generic XML
event loop manages about 66,000 records per second per core here, so this parser has a
fast path and a safe path:

* The byte stream is cut into chunks at ``</ABR>`` boundaries (never inside a record),
  which works whatever the line layout. Chunks are parsed in parallel worker processes,
  which write their rows straight to Parquet parts when given a ``PartSink``.
* Within a chunk one matcher reads every record in the publisher's canonical spelling and
  captures any other record whole (``_RECORDS``: a regular expression, run in C by
  ``_abrscan`` where that extension is built; tests hold the two equal). The C matcher
  writes what it reads as Arrow buffers, with flags saying which columns may need cleaning,
  the dates read and the other names listed (``scan_columns``). Records in another
  spelling (attributes in single quotes, whitespace inside tags, comments, CDATA…) are read
  by lxml, so an unusual layout is slower but still correct. A record lxml cannot parse
  either is quarantined.
* Values are validated per chunk with vectorised code (ABN check digits, YYYYMMDD dates);
  a record with a bad value is quarantined with its file, line and raw text.

A file whose stream ends inside a record, lacks ``</Transfer>``, or whose record count
differs from its ``<RecordCount>`` fails with :class:`SourceFileError`.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lxml import etree

from pipelines.identifiers import ABN_WEIGHTS
from pipelines.ingest import tables
from pipelines.ingest.base import (
    Batch,
    FileInfo,
    LandingFile,
    PartSink,
    Quarantined,
    SourceFileError,
)

# The raw tables' schemas (declared in tables: the XML has no headers to read by).
ABNS = tables.ABR_ABNS.schema
OTHER_NAMES = tables.ABR_OTHER_NAMES.schema

CHUNK_BYTES = 8 * 1024 * 1024
OUTSIDE_RECORD = "text outside a record"
_END = b"</ABR>"
_HEAD_RE = re.compile(rb"<\?xml[^>]*encoding=[\"']([A-Za-z0-9_.-]+)[\"']")
_ASCII_COMPATIBLE = {
    "utf-8",
    "utf8",
    "us-ascii",
    "ascii",
    "iso-8859-1",
    "latin-1",
    "latin1",
    "cp1252",
    "windows-1252",
}


# --------------------------------------------------------------------------------------
# Reading the stream into record chunks (main process)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    file: str
    encoding: str
    first_line: int  # physical line number of the chunk's first byte (1-based)
    data: bytes
    newlines: int = -1  # newlines in data, counted by the reader (-1: not counted)


def file_info(file: LandingFile) -> FileInfo:
    """Extract time and declared record count from ``<TransferInfo>`` (reads the file head)."""
    with file.open() as fh:
        head = fh.read(4096)
    return _transfer_info(head)


def _transfer_info(head: bytes) -> FileInfo:
    text = head.decode("latin-1")
    extract = re.search(r"<ExtractTime>\s*(\d{4})-?(\d{2})-?(\d{2})", text)
    count = re.search(r"<RecordCount>\s*(\d+)\s*</RecordCount>", text)
    extract_date = None
    if extract:
        try:
            extract_date = dt.date(int(extract[1]), int(extract[2]), int(extract[3]))
        except ValueError:
            extract_date = None
    return FileInfo(extract_date=extract_date, declared_records=int(count[1]) if count else None)


def iter_chunks(file: LandingFile, chunk_bytes: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """Cut the file into chunks ending just after a ``</ABR>``; checks the file is complete."""
    with file.open() as fh:
        head = fh.read(chunk_bytes)
        while b"<Transfer" not in head and len(head) < 65536:  # a tiny chunk size: read on
            more = fh.read(chunk_bytes)
            if not more:
                break
            head += more
        if not head.strip():
            raise SourceFileError(file.name, "empty file")
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        stripped = head.lstrip()
        if not stripped.startswith(b"<?xml") and not stripped.startswith(b"<Transfer"):
            raise SourceFileError(
                file.name, "not an ABR bulk extract (no XML declaration or <Transfer>)"
            )
        if b"<Transfer" not in head[:65536]:
            raise SourceFileError(file.name, "not an ABR bulk extract (no <Transfer> root element)")
        declared = _HEAD_RE.search(head[:200])
        encoding = declared[1].decode().lower() if declared else "utf-8"
        if encoding not in _ASCII_COMPATIBLE:
            raise SourceFileError(file.name, f"unsupported XML encoding {encoding!r}")

        # each block read is copied once, into its chunk: the last record end of the block
        # closes the chunk, and what follows is carried into the next one
        carry, block, line = b"", head, 1
        while True:
            cut = block.rfind(_END)
            if cut < 0:  # no record ends in the block (or one straddles the carry and it)
                block, carry = carry + block, b""
                cut = block.rfind(_END)
            if cut >= 0:
                cut += len(_END)
                piece = (
                    b"".join((carry, memoryview(block)[:cut]))
                    if carry or cut < len(block)
                    else block
                )
                newlines = _count_newlines(piece)
                yield Chunk(file.name, encoding, line, piece, newlines)
                line += newlines
                carry = block[cut:]
            else:
                carry = block
            block = fh.read(chunk_bytes)
            if not block:
                break
    tail = carry.strip()
    if b"<ABR" in tail:
        raise SourceFileError(file.name, f"truncated: the file ends inside a record (line {line})")
    if not tail.endswith(b"</Transfer>"):
        raise SourceFileError(file.name, "truncated: the file does not end with </Transfer>")


# --------------------------------------------------------------------------------------
# Parsing a chunk (worker processes)
# --------------------------------------------------------------------------------------


_XML_ENTITIES = re.compile(r"&(#x[0-9A-Fa-f]+|#[0-9]+|amp|lt|gt|quot|apos);")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _entity(match: re.Match[str]) -> str:
    ref = match[1]
    if ref[0] == "#":
        return chr(int(ref[2:], 16) if ref[1] in "xX" else int(ref[1:]))
    return _NAMED[ref]


def _unescape(value: str) -> str:
    return _XML_ENTITIES.sub(_entity, value) if "&" in value else value


# The publisher's canonical spelling of one record, as one regular expression (attribute
# pairs in either order). A record that does not match (other whitespace, quotes, element
# order, extra attributes, comments…) is parsed by lxml instead: this is a speed path, not
# a rule about the format.
def _optional_text(tag: str) -> str:
    return rf"(?:<{tag}>([^<]*)</{tag}>|<{tag} ?/>)"


def _pair(a: str, b: str) -> str:
    """Two double-quoted attributes in either order (4 groups: a, b, then b, a)."""
    return rf'(?:{a}="([^"<>]*)" {b}="([^"<>]*)"|{b}="([^"<>]*)" {a}="([^"<>]*)")'


_NAME_ELEMENT = (
    r'<NonIndividualName type="[^"<]*"><NonIndividualNameText>[^<]*'
    r"</NonIndividualNameText></NonIndividualName>"
)
_DGR = (
    rf'<DGR(?: [A-Za-z]+="[^"<>]*")* ?/>|<DGR(?: [A-Za-z]+="[^"<>]*")*>(?:{_NAME_ELEMENT})?</DGR>'
)
_OTHER_ENTITY = rf"<OtherEntity>{_NAME_ELEMENT}</OtherEntity>"
_CANONICAL = re.compile(
    rf"<ABR {_pair('recordLastUpdatedDate', 'replaced')}>"
    rf"<ABN {_pair('status', 'ABNStatusFromDate')}>([^<]*)</ABN>"
    r"<EntityType><EntityTypeInd>([^<]*)</EntityTypeInd>"
    r"<EntityTypeText>([^<]*)</EntityTypeText></EntityType>"
    r"(?:<MainEntity><NonIndividualName type=\"MN\">"
    r"<NonIndividualNameText>([^<]*)</NonIndividualNameText></NonIndividualName>"
    r"|(<)LegalEntity><IndividualName type=\"LGL\">(?:<NameTitle>([^<]*)</NameTitle>)?"
    r"(?:<GivenName>([^<]*)</GivenName>)?(?:<GivenName>([^<]*)</GivenName>)?"
    r"<FamilyName>([^<]*)</FamilyName></IndividualName>)"
    rf"<BusinessAddress><AddressDetails>{_optional_text('State')}{_optional_text('Postcode')}"
    r"</AddressDetails></BusinessAddress></(?:MainEntity|LegalEntity)>"
    r"(?:<ASICNumber ASICNumberType=\"([^\"<>]*)\">([^<]*)</ASICNumber>"
    r"|<ASICNumber ASICNumberType=\"([^\"<>]*)\" ?/>)?"
    rf"(?:<GST {_pair('status', 'GSTStatusFromDate')} ?/>)?"
    rf"((?:{_DGR}|{_OTHER_ENTITY})*)</ABR>"
)
# Every record: the canonical spelling, or else (last group) the record's raw text, so that
# one pass over a chunk keeps file order and only odd records go to lxml.
_RECORDS = re.compile(_CANONICAL.pattern + r"|(<ABR[\s>/](?s:.*?)</ABR>)")
_RECORD_START = re.compile(rb"<ABR[\s>/]")
_OTHER = re.compile(
    r'<OtherEntity><NonIndividualName type="([^"<]*)"><NonIndividualNameText>([^<]*)'
    r"</NonIndividualNameText></NonIndividualName></OtherEntity>"
    r"|<DGR ([^>]*?)/?>(?:<NonIndividualName type=\"[^\"<]*\">"
    r"<NonIndividualNameText>([^<]*)</NonIndividualNameText></NonIndividualName>)?"
)
_OTHER_OR_SEPARATOR = re.compile("(\x1e)|" + _OTHER.pattern)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
# The fast path runs on the UTF-8 bytes: no decoding of whole chunks, cheaper matching.
_RECORDS_B = re.compile(_RECORDS.pattern.encode())
_OTHER_OR_SEPARATOR_B = re.compile(_OTHER_OR_SEPARATOR.pattern.encode())
_ATTR_B = re.compile(_ATTR.pattern.encode())
_UTF8 = {"utf-8", "utf8", "us-ascii", "ascii"}

try:  # the same matcher in C (setup.py builds it; tests hold it equal to _RECORDS_B.findall)
    from pipelines.ingest._abrscan import newlines as _count_newlines
    from pipelines.ingest._abrscan import scan as _scan_records
    from pipelines.ingest._abrscan import scan_columns as _scan_columns
except ImportError:  # pragma: no cover - a machine that could not compile it
    _scan_records = _RECORDS_B.findall
    _scan_columns = None

    def _count_newlines(data: bytes) -> int:
        return data.count(b"\n")


# what scan_columns says of a group's values (bits of its flags; see _abrscan.c)
_F_EDGE, _F_AMP, _F_NONASCII = 1, 2, 4
# group numbers in _CANONICAL
_G_UPDATED, _G_REPLACED, _G_REPLACED2, _G_UPDATED2 = 0, 1, 2, 3
_G_STATUS, _G_FROM, _G_FROM2, _G_STATUS2 = 4, 5, 6, 7
_G_ABN, _G_TYPE, _G_TYPE_TEXT, _G_MAIN_NAME, _G_LEGAL = 8, 9, 10, 11, 12
_G_TITLE, _G_GIVEN, _G_GIVEN2, _G_FAMILY, _G_STATE, _G_POSTCODE = 13, 14, 15, 16, 17, 18
_G_ASIC_TYPE, _G_ASIC, _G_ASIC_TYPE2 = 19, 20, 21
_G_GST_STATUS, _G_GST_FROM, _G_GST_FROM2, _G_GST_STATUS2, _G_TAIL = 22, 23, 24, 25, 26
_N_GROUPS = 27
_G_RAW = 27  # in _RECORDS only: a record that is not canonical

OtherName = tuple[str, str, str | None, str | None]  # (type, name, dgr status, dgr from date)


def _escape(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr_text(element: Any, name: str) -> str:
    return _escape(element.get(name, "")).replace('"', "&quot;")


def _lxml_record(element: Any) -> tuple[Any, ...]:
    """The canonical groups of one record, read by lxml (the safe path).

    Returns the same tuple shape as ``_CANONICAL``'s groups so both paths share the column code;
    the last member is the list of other names instead of the raw tail.
    """

    def text(el: Any) -> str:
        # lxml has decoded the references: escape again, the shared column code decodes once
        return _escape(el.text.strip()) if el is not None and el.text is not None else ""

    groups: list[Any] = [""] * _N_GROUPS
    abn_el = element.find("ABN")
    if abn_el is None:
        raise ValueError("record has no <ABN> element")
    groups[_G_UPDATED] = _attr_text(element, "recordLastUpdatedDate")
    groups[_G_REPLACED] = _attr_text(element, "replaced")
    groups[_G_STATUS] = _attr_text(abn_el, "status")
    groups[_G_FROM] = _attr_text(abn_el, "ABNStatusFromDate")
    groups[_G_ABN] = text(abn_el)
    type_el = element.find("EntityType")
    groups[_G_TYPE] = text(type_el.find("EntityTypeInd")) if type_el is not None else ""
    groups[_G_TYPE_TEXT] = text(type_el.find("EntityTypeText")) if type_el is not None else ""
    main = element.find("MainEntity")
    legal = element.find("LegalEntity")
    if main is not None:
        holder = main
        groups[_G_MAIN_NAME] = text(main.find("NonIndividualName/NonIndividualNameText"))
    elif legal is not None:
        holder = legal
        groups[_G_LEGAL] = "<"
        individual = legal.find("IndividualName")
        if individual is not None:
            groups[_G_TITLE] = text(individual.find("NameTitle"))
            givens = [text(g) for g in individual.findall("GivenName")]
            groups[_G_GIVEN] = givens[0] if givens else ""
            groups[_G_GIVEN2] = " ".join(g for g in givens[1:] if g)
            groups[_G_FAMILY] = text(individual.find("FamilyName"))
    else:
        raise ValueError("record has neither <MainEntity> nor <LegalEntity>")
    address = holder.find("BusinessAddress/AddressDetails")
    if address is not None:
        groups[_G_STATE] = text(address.find("State"))
        groups[_G_POSTCODE] = text(address.find("Postcode"))
    asic = element.find("ASICNumber")
    if asic is not None:
        groups[_G_ASIC_TYPE] = _attr_text(asic, "ASICNumberType")
        groups[_G_ASIC] = text(asic)
    gst = element.find("GST")
    if gst is not None:
        groups[_G_GST_STATUS] = _attr_text(gst, "status")
        groups[_G_GST_FROM] = _attr_text(gst, "GSTStatusFromDate")
    others: list[OtherName] = []
    for dgr in element.findall("DGR"):
        fund = text(dgr.find("NonIndividualName/NonIndividualNameText"))
        if fund:
            others.append(("DGR", fund, dgr.get("status"), dgr.get("DGRStatusFromDate")))
    for other in element.findall("OtherEntity/NonIndividualName"):
        other_name = text(other.find("NonIndividualNameText"))
        if other_name:
            others.append((other.get("type") or "", other_name, None, None))
    groups[_G_TAIL] = others
    return tuple(groups)


_RECORD_START_TEXT = re.compile(r"<ABR[\s>/]")


def _slow_piece(piece: str, line: int) -> Iterator[tuple[int, str, tuple[Any, ...] | Exception]]:
    """Parse a piece holding one or more records with lxml: (line, raw, groups | error).

    Lines and raw text come from where each ``<ABR`` starts in the landed text (lxml's
    ``sourceline`` points at the end of a start tag, and its text is re-serialised).
    """
    starts = [m.start() for m in _RECORD_START_TEXT.finditer(piece)] or [piece.find("<ABR")]
    lines = [line + piece.count("\n", 0, start) for start in starts]
    raws = [piece[a:b].rstrip() for a, b in zip(starts, starts[1:], strict=False)]
    raws.append(piece[starts[-1] :] + "</ABR>")
    body = piece[starts[0] :] + "</ABR>"
    try:
        root = etree.fromstring(("<Transfer>" + body + "</Transfer>").encode("utf-8"))
    except etree.XMLSyntaxError as exc:
        yield lines[0], body, ValueError(f"malformed XML: {exc.msg}")
        return
    for index, element in enumerate(root.iter("ABR")):
        at = min(index, len(starts) - 1)
        try:
            yield lines[at], raws[at], _lxml_record(element)
        except ValueError as exc:
            yield lines[at], raws[at], exc


def init_worker() -> None:
    """Parse workers are one per core: keep Arrow's own thread pool out of their way."""
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)


def parse_chunk(chunk: Chunk, *, use_columns: bool = True) -> Batch:
    """Parse one chunk of whole records into Arrow tables plus quarantined records.

    ``use_columns=False`` takes the records as tuples (the path of a machine without the C
    extension; tests hold the two equal)."""
    data = chunk.data
    if chunk.encoding not in _UTF8:  # a single-byte codepage: transcode once (lines stay put)
        data = data.decode(chunk.encoding, errors="replace").encode("utf-8")
    groups: _Groups | None = None
    if _scan_columns is not None and use_columns:
        groups = _Groups.of_columns(*_scan_columns(data))
        n, abr_tags = groups.n, groups.abr_tags
        matches: list[tuple[Any, ...]] = []
    else:
        matches = _scan_records(data)
        n, abr_tags = len(matches), data.count(b"<ABR")
    quarantine: list[Quarantined] = []
    first = data.find(b"<ABR")
    # matches are disjoint, one per record start: equal counts = every record was seen once
    canonical = first >= 0 and n == abr_tags
    starts: list[int] = []
    raws: list[str] | None = None
    lxml_names: dict[int, list[OtherName]] = {}
    before_first = data.count(b"\n", 0, first) if first >= 0 else 0
    total_newlines = chunk.newlines if chunk.newlines >= 0 else _count_newlines(data)
    line_tags = groups.line_tags if groups is not None else data.count(b"\n<ABR", first)
    if canonical and (total_newlines - before_first == line_tags == n - 1):
        # one record per line, as the publisher writes them: consecutive line numbers
        first_line = chunk.first_line + before_first
        lines = list(range(first_line, first_line + n))
    elif canonical:
        starts = [m.start() for m in _RECORD_START.finditer(data)]
        newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        lines = (
            chunk.first_line + np.searchsorted(newlines, np.array(starts, dtype=np.int64))
        ).tolist()
    else:
        groups = None  # the records are read one by one: tuples
        matches, lines, raws = [], [], []
        line = chunk.first_line
        text = data.decode("utf-8", errors="replace")
        for piece in text.split("</ABR>")[:-1]:
            start = piece.find("<ABR")
            if start < 0:
                if piece.strip() and not piece.strip().startswith("<Transfer"):
                    quarantine.append(
                        Quarantined.of(chunk.file, line, OUTSIDE_RECORD, piece.strip())
                    )
                line += piece.count("\n")
                continue
            record = piece[start:] + "</ABR>"
            match = _CANONICAL.fullmatch(record)
            if match is not None:
                matches.append(_encoded((*match.groups(default=""), "")))
                lines.append(line + piece.count("\n", 0, start))
                raws.append(record)
            else:
                for rec_line, raw, result in _slow_piece(piece, line):
                    if isinstance(result, Exception):
                        quarantine.append(Quarantined.of(chunk.file, rec_line, str(result), raw))
                    else:
                        lxml_names[len(matches)] = result[_G_TAIL]
                        matches.append(_encoded((*result[:_G_TAIL], "", "")))
                        lines.append(rec_line)
                        raws.append(raw)
            line += piece.count("\n")

    odd_raws: dict[int, str] = {}
    dropped: set[int] = set()
    if groups is not None:
        if groups.odd:
            odd = [(i, raw) for i, raw in groups.odd]
            read = _read_odd_records(chunk, odd, lines, quarantine, lxml_names)
            odd_raws, dropped = read.raws, read.dropped
            groups = groups.replaced(read.groups)
    elif raws is None and any(m[_G_RAW] for m in matches):
        odd = [(i, m[_G_RAW]) for i, m in enumerate(matches) if m[_G_RAW]]
        read = _read_odd_records(chunk, odd, lines, quarantine, lxml_names)
        odd_raws, dropped = read.raws, read.dropped
        for i, replaced in read.groups.items():
            matches[i] = replaced
    if groups is None:
        groups = _Groups.of_tuples(matches)

    line_ends: list[np.ndarray] = []  # the chunk's newline offsets, found on first use

    def raw_of(i: int) -> str:
        """The i-th record as landed (only asked for records rejected by validation)."""
        if raws is not None:
            return raws[i]
        if i in odd_raws:
            return odd_raws[i]
        if not starts:  # one record per line: record i is on line lines[i]
            if not line_ends:  # one vectorised pass, not a bytes object per line
                line_ends.append(np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10))
            ends, k = line_ends[0], lines[i] - chunk.first_line
            raw = data[int(ends[k - 1]) + 1 if k else 0 : int(ends[k]) if k < len(ends) else None]
        else:
            end = data.find(_END, starts[i])
            raw = data[starts[i] : end + len(_END)]
        return raw.decode("utf-8", errors="replace").strip()

    return _to_batch(chunk.file, groups, lines, raw_of, quarantine, lxml_names, dropped)


@dataclass
class _OddRecords:
    groups: dict[int, tuple[bytes, ...]]  # record index -> its groups, as the scanner's
    raws: dict[int, str]  # record index -> its landed text (records lxml read)
    dropped: set[int]  # records lxml could not read (quarantined)


def _read_odd_records(
    chunk: Chunk,
    odd: list[tuple[int, bytes]],
    lines: list[int],
    quarantine: list[Quarantined],
    lxml_names: dict[int, list[OtherName]],
) -> _OddRecords:
    """Read the chunk's non-canonical records (index, text) with lxml.

    A record lxml reads gets its groups; one it cannot read is quarantined, gets empty
    groups and is listed as dropped. Lines are corrected in place.
    """
    read = _OddRecords({}, {}, set())
    for i, text in odd:
        raw = text.decode("utf-8", errors="replace")
        parsed = list(_slow_piece(raw[: -len("</ABR>")], lines[i]))
        rec_line, rec_raw, result = parsed[0]  # the span holds one record
        if isinstance(result, Exception):
            quarantine.append(Quarantined.of(chunk.file, rec_line, str(result), rec_raw))
            read.groups[i] = _EMPTY_GROUPS
            read.dropped.add(i)
        else:
            read.raws[i] = rec_raw
            lxml_names[i] = result[_G_TAIL]
            read.groups[i] = _encoded((*result[:_G_TAIL], "", ""))
            lines[i] = rec_line
    return read


def _value_flags(values: Iterator[bytes]) -> int:
    """The scanner's flags (``_F_*``) of some values (never empty ones)."""
    flags = 0
    for value in values:
        if value[0] <= 0x20 or value[0] >= 0x80 or value[-1] <= 0x20 or value[-1] >= 0x80:
            flags |= _F_EDGE
        if b"&" in value:
            flags |= _F_AMP
        if not value.isascii():
            flags |= _F_NONASCII
    return flags


@dataclass
class _Groups:
    """A chunk's records as one Arrow binary or string array per group of ``_CANONICAL``.

    ``flags[g]`` says what group g's values may need (``_F_*``); None where it is not known,
    so every cleaning step runs. An empty group is null where ``flags`` is known, ``''``
    where it is not (cleaning makes both null)."""

    n: int
    arrays: list[pa.Array]
    flags: list[int | None]
    odd: list[tuple[int, bytes]]
    abr_tags: int = 0
    others: tuple | None = None  # the other names the scanner listed (scan_columns)
    line_tags: int = 0  # "<ABR" after the first that start a line (scan_columns)
    dates: dict[tuple[int, int], tuple] | None = None  # (first, second) -> the scanner's dates
    patched: list[int] = field(default_factory=list)  # records whose groups lxml read

    @classmethod
    def of_tuples(cls, matches: list[tuple[Any, ...]]) -> _Groups:
        # one conversion of all groups (cheaper than transposing in Python and 26 arrays)
        struct = pa.array(matches, type=_GROUPS) if matches else pa.array([], type=_GROUPS)
        arrays = [struct.field(i) for i in range(_N_GROUPS)]
        return cls(len(matches), arrays, [None] * _N_GROUPS, [])

    @classmethod
    def of_columns(
        cls,
        n: int,
        columns: list[tuple[bytes, bytes, bytes, int, int]],
        odd: list,
        tags: int,
        others: tuple,
        line_tags: int,
        dates: tuple,
    ) -> _Groups:
        arrays: list[pa.Array] = []
        flags: list[int | None] = []
        for valid, offsets, values, nulls, flag in columns:
            kind = pa.binary() if flag & _F_NONASCII else pa.string()
            buffers = [pa.py_buffer(valid), pa.py_buffer(offsets), pa.py_buffer(values)]
            arrays.append(pa.Array.from_buffers(kind, n, buffers, null_count=nulls))
            flags.append(flag)
        pairs = ((_G_UPDATED, _G_UPDATED2), (_G_FROM, _G_FROM2), (_G_GST_FROM, _G_GST_FROM2))
        return cls(
            n, arrays, flags, odd, tags, others, line_tags, dict(zip(pairs, dates, strict=True))
        )

    def replaced(self, rows: dict[int, tuple[bytes, ...]]) -> _Groups:
        """These groups with some records' groups replaced (what lxml read of odd records)."""
        mask = np.zeros(self.n, dtype=bool)
        order = sorted(rows)
        mask[order] = True
        arrays: list[pa.Array] = []
        flags: list[int | None] = []
        for g, array in enumerate(self.arrays):
            values = [rows[i][g] or None for i in order]
            flag = self.flags[g]
            if flag is not None and not any(values):  # odd records' groups are null already
                arrays.append(array)
                flags.append(flag)
                continue
            if flag is not None:  # what the new values may need too
                flag |= _value_flags(v for v in values if v)
            replaced = pc.replace_with_mask(
                array.cast(pa.binary()), pa.array(mask), pa.array(values, pa.binary())
            )
            arrays.append(
                replaced if flag is None or flag & _F_NONASCII else replaced.cast(pa.string())
            )
            flags.append(flag)
        return _Groups(
            self.n, arrays, flags, [], self.abr_tags, self.others, self.line_tags, self.dates, order
        )

    def dates_of(
        self, first: int, second: int, strings: Callable[[], pa.Array]
    ) -> tuple[pa.Array, np.ndarray] | None:
        """What ``_dates`` gives for the pair's cleaned values (``strings()``), from the dates
        the scanner read; None where it did not read them or cleaning may change a value."""
        if self.dates is None or (first, second) not in self.dates:
            return None
        for g in (first, second):
            flag = self.flags[g]
            if flag is None or flag & (_F_EDGE | _F_NONASCII):
                return None
        days, valid, bad_bytes, nulls = self.dates[first, second]
        buffers = [pa.py_buffer(valid), pa.py_buffer(days)]
        parsed = pa.Array.from_buffers(pa.date32(), self.n, buffers, null_count=nulls)
        bad = np.frombuffer(bad_bytes, dtype=bool)
        if self.patched:  # records lxml read: their dates from their strings
            patched_dates, patched_bad = _dates(strings().take(pa.array(self.patched)))
            mask = np.zeros(self.n, dtype=bool)
            mask[self.patched] = True
            parsed = pc.replace_with_mask(parsed, pa.array(mask), patched_dates)
            bad = bad.copy()
            bad[self.patched] = patched_bad
        return parsed, bad

    def tails(self) -> list[bytes | None]:
        return self.arrays[_G_TAIL].cast(pa.binary()).to_pylist()

    def clean(self, g: int) -> pa.Array:
        """Group g as strings: '' null, XML references resolved (where the group may hold
        them), whitespace trimmed; only the steps its flags ask for."""
        array, flags = self.arrays[g], self.flags[g]
        if flags is None:
            return _clean(_utf8(array), unescape=g in _UNESCAPED)
        if flags & _F_NONASCII:
            array = _utf8(array)
        trim = flags & _F_EDGE
        if flags & _F_AMP and g in _UNESCAPED:
            array, trim = _unescape_array(array), True
        if trim:
            array = pc.utf8_trim_whitespace(array)
            array = pc.if_else(pc.equal(array, ""), _EMPTY, array)
        return array


_EMPTY_GROUPS: tuple[bytes, ...] = (b"",) * (_N_GROUPS + 1)


def _encoded(groups: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(g.encode("utf-8") for g in groups)


def _utf8(array: pa.Array) -> pa.Array:
    """Binary -> string; invalid UTF-8 (a damaged file) becomes U+FFFD, as a decoder would."""
    try:
        return array.cast(pa.string())
    except pa.ArrowInvalid:
        values = [
            v.decode("utf-8", errors="replace") if v is not None else None
            for v in array.to_pylist()
        ]
        return pa.array(values, type=pa.string())


def _abn_valid_mask(abns: pa.Array) -> np.ndarray:
    """Vectorised ABN check-digit test over a string array."""
    n = len(abns)
    well_formed = pc.fill_null(pc.match_substring_regex(abns, r"^[0-9]{11}$"), False)
    mask = np.asarray(well_formed.to_numpy(zero_copy_only=False), dtype=bool)
    result = np.zeros(n, dtype=bool)
    if not mask.any():
        return result
    good = abns.filter(well_formed)
    data = np.frombuffer(good.buffers()[2], dtype=np.uint8)
    offsets = np.frombuffer(good.buffers()[1], dtype=np.int32)[
        good.offset : good.offset + len(good) + 1
    ]
    index = offsets[:-1, None] + np.arange(11)
    digits = data[index].astype(np.int64) - 48
    digits[:, 0] -= 1
    result[np.flatnonzero(mask)] = (digits @ np.array(ABN_WEIGHTS, dtype=np.int64)) % 89 == 0
    return result


_EMPTY = pa.scalar(None, pa.string())


def _unescape_array(array: pa.Array) -> pa.Array:
    """Resolve XML character references in a string column: only the rows that hold one.

    The five named references are replaced by Arrow kernels, ``&amp;`` last (each reference
    holds one ``&``, so no two overlap, and a ``&`` made from ``&amp;`` is never read again:
    the same result as one pass of ``_unescape``); rows with a numeric reference
    (``&#...;``) go through ``_unescape`` in Python.
    """
    mask = pc.fill_null(pc.match_substring(array, "&"), False)
    if not pc.any(mask).as_py():
        return array
    numeric = pc.fill_null(pc.match_substring(array, "&#"), False)
    named = pc.and_(mask, pc.invert(numeric))
    if pc.any(named).as_py():
        values = pc.filter(array, named)
        for reference, character in _NAMED_ORDER:
            values = pc.replace_substring(values, reference, character)
        array = pc.replace_with_mask(array, named, values)
    if pc.any(numeric).as_py():
        odd = pc.filter(array, numeric).to_pylist()
        array = pc.replace_with_mask(
            array, numeric, pa.array([_unescape(v) for v in odd], pa.string())
        )
    return array


_NAMED_ORDER = [(f"&{name};", _NAMED[name]) for name in ("lt", "gt", "quot", "apos", "amp")]


_GROUPS = pa.struct(
    [pa.field(f"g{i}", pa.large_binary() if i >= _G_TAIL else pa.binary()) for i in range(28)]
)


def _clean(array: pa.Array, *, unescape: bool = False) -> pa.Array:
    """A string column with '' as null, XML references resolved, whitespace trimmed."""
    if array.null_count == len(array):
        return array
    if unescape:
        array = _unescape_array(array)
    array = pc.utf8_trim_whitespace(array)
    return pc.if_else(pc.equal(array, ""), _EMPTY, array)


def _dates(array: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """YYYYMMDD strings (nulls allowed) -> date32, and a mask of present-but-invalid values."""
    # eight ASCII digits (utf8_is_digit admits other scripts' digits, which the casts below
    # cannot read)
    well_formed = pc.match_substring_regex(array, "^[0-9]{8}$")
    digits = pc.if_else(well_formed, array, "19700101")
    parsed = pc.strptime(digits, format="%Y%m%d", unit="s", error_is_null=True).cast(pa.date32())
    # strptime rolls impossible days over (20220431 -> 1 May): the month and day must survive
    month = pc.cast(pc.utf8_slice_codeunits(digits, 4, 6), pa.int64())
    day = pc.cast(pc.utf8_slice_codeunits(digits, 6, 8), pa.int64())
    real = pc.and_(pc.equal(pc.month(parsed), month), pc.equal(pc.day(parsed), day))
    good = pc.fill_null(pc.and_(well_formed, real), False)
    bad = pc.and_(pc.is_valid(array), pc.invert(good)).to_numpy(zero_copy_only=False)
    return pc.if_else(good, parsed, pa.scalar(None, pa.date32())), np.asarray(bad, dtype=bool)


_UNESCAPED = frozenset(
    {_G_TYPE_TEXT, _G_MAIN_NAME, _G_TITLE, _G_GIVEN, _G_GIVEN2, _G_FAMILY, _G_ASIC}
)


def _constant(value: str, n: int) -> pa.Array:
    return pc.cast(
        pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([value])),
        pa.string(),
    )


def _to_batch(
    file: str,
    groups: _Groups,
    lines: list[int],
    raw_of: Any,
    quarantine: list[Quarantined],
    lxml_names: dict[int, list[OtherName]] | None = None,
    dropped: set[int] | frozenset[int] = frozenset(),
) -> Batch:
    """Columns of the matched records; ``dropped`` ones are already quarantined."""
    lxml_names = lxml_names or {}
    n = groups.n
    g = [groups.clean(i) for i in range(_N_GROUPS - 1)]

    def pick(first: int, second: int) -> pa.Array:
        return pc.coalesce(g[first], g[second]) if g[second].null_count < n else g[first]

    abn = g[_G_ABN]
    is_individual = pc.fill_null(pc.equal(g[_G_LEGAL], "<"), False)
    # given names and family name joined with single spaces (missing parts skipped)
    person = pc.binary_join_element_wise(
        pc.fill_null(g[_G_GIVEN], ""),
        pc.fill_null(g[_G_GIVEN2], ""),
        pc.fill_null(g[_G_FAMILY], ""),
        " ",
    )
    person = pc.utf8_trim_whitespace(pc.replace_substring(person, "  ", " "))
    entity_name = pc.if_else(
        is_individual, pc.if_else(pc.equal(person, ""), _EMPTY, person), g[_G_MAIN_NAME]
    )

    reasons: dict[int, str] = {}
    for i in np.flatnonzero(~_abn_valid_mask(abn)):
        if int(i) not in dropped:
            reasons[int(i)] = f"invalid ABN {abn[int(i)].as_py()!r} (check digits)"
    dates: dict[str, pa.Array] = {}
    for column, attribute, first, second in (
        ("abn_status_from_date", "ABNStatusFromDate", _G_FROM, _G_FROM2),
        ("record_last_updated_date", "recordLastUpdatedDate", _G_UPDATED, _G_UPDATED2),
        ("gst_status_from_date", "GSTStatusFromDate", _G_GST_FROM, _G_GST_FROM2),
    ):
        # the cleaned strings are needed only where the scanner did not read the dates, for
        # records lxml read, and to quote a bad date
        raw_dates = functools.cache(functools.partial(pick, first, second))
        scanned = groups.dates_of(first, second, raw_dates)
        dates[column], bad = scanned if scanned is not None else _dates(raw_dates())
        for i in np.flatnonzero(bad):
            if int(i) not in dropped:
                reasons.setdefault(
                    int(i), f"invalid date {attribute}={raw_dates()[int(i)].as_py()!r}"
                )
    keep = np.ones(n, dtype=bool)
    for index in dropped:
        keep[index] = False
    for index, reason in sorted(reasons.items()):
        keep[index] = False
        quarantine.append(Quarantined.of(file, lines[index], reason, raw_of(index)))

    columns = {
        "abn": abn,
        "abn_status": pick(_G_STATUS, _G_STATUS2),
        "abn_status_from_date": dates["abn_status_from_date"],
        "record_last_updated_date": dates["record_last_updated_date"],
        "replaced": pick(_G_REPLACED, _G_REPLACED2),
        "entity_type_code": g[_G_TYPE],
        "entity_type_text": g[_G_TYPE_TEXT],
        "is_individual": is_individual,
        "entity_name": entity_name,
        "name_title": g[_G_TITLE],
        "given_name": g[_G_GIVEN],
        "other_given_name": g[_G_GIVEN2],
        "family_name": g[_G_FAMILY],
        "state": g[_G_STATE],
        "postcode": g[_G_POSTCODE],
        "asic_number": g[_G_ASIC],
        "asic_number_type": pick(_G_ASIC_TYPE, _G_ASIC_TYPE2),
        "gst_status": pick(_G_GST_STATUS, _G_GST_STATUS2),
        "gst_status_from_date": dates["gst_status_from_date"],
        "source_file": _constant(file, n),
        "source_line": pa.array(lines, type=pa.int64()),
    }
    abns = pa.Table.from_arrays([columns[f.name] for f in ABNS], schema=ABNS)
    if reasons or dropped:
        abns = abns.filter(pa.array(keep))
    return Batch(
        tables={
            "abns": abns,
            "other_names": _other_names(file, groups, lxml_names, abn, keep, lines),
        },
        quarantine=quarantine,
    )


def _other_names(
    file: str,
    groups: _Groups,
    lxml_names: dict[int, list[OtherName]],
    abn: pa.Array,
    keep: np.ndarray,
    lines: list[int],
) -> pa.Table:
    """Trading, business, other and DGR names of the kept records: the canonical records'
    (listed by the scanner, or read from their tails here) and then those lxml read."""
    if groups.others is not None:
        record, kinds, names, statuses, from_dates = _listed_other_names(groups.others, keep)
    else:
        record, kinds, names, statuses, from_dates = _tail_other_names(groups.tails(), keep)
    lxml_rows = [
        (i, *found) for i, names_of in sorted(lxml_names.items()) if keep[i] for found in names_of
    ]
    if lxml_rows:  # records read by lxml: names already parsed (and escaped like source text)
        record = np.concatenate([record, np.array([r[0] for r in lxml_rows], dtype=np.int64)])
        kinds = pa.concat_arrays([kinds, pa.array([r[1] for r in lxml_rows], pa.string())])
        names = pa.concat_arrays(
            [names, pa.array([r[2].encode("utf-8") for r in lxml_rows], pa.binary())]
        )
        statuses = pa.concat_arrays([statuses, pa.array([r[3] for r in lxml_rows], pa.string())])
        from_dates = pa.concat_arrays(
            [from_dates, pa.array([r[4] for r in lxml_rows], pa.string())]
        )

    indices = pa.array(record, type=pa.int64())
    name_array = pc.utf8_trim_whitespace(_unescape_array(_utf8(names)))
    abn_array = pc.take(abn, indices)
    dgr_dates, dgr_bad = _dates(from_dates)
    if dgr_bad.any():  # a bad DGR date does not reject the entity: that date becomes null
        dgr_dates = pc.if_else(pa.array(dgr_bad), pa.scalar(None, pa.date32()), dgr_dates)
    table = pa.Table.from_arrays(
        [
            abn_array,
            kinds,
            name_array,
            statuses,
            dgr_dates,
            _constant(file, len(record)),
            pc.take(pa.array(lines, type=pa.int64()), indices),
        ],
        schema=OTHER_NAMES,
    )
    return table.filter(pc.not_equal(name_array, "")) if len(record) else table


_OtherColumns = tuple[np.ndarray, pa.Array, pa.Array, pa.Array, pa.Array]


def _dgr_attributes(attributes: list[bytes | None]) -> tuple[pa.Array, pa.Array]:
    """A DGR's status and status date from the text of its attributes (None: not a DGR)."""
    statuses: list[str | None] = []
    from_dates: list[str | None] = []
    for text in attributes:
        attrs = {} if text is None else {
            k.decode(): v.decode("utf-8", errors="replace") for k, v in _ATTR_B.findall(text)
        }  # fmt: skip
        statuses.append(attrs.get("status"))
        from_dates.append(attrs.get("DGRStatusFromDate"))
    return pa.array(statuses, pa.string()), pa.array(from_dates, pa.string())


def _listed_other_names(others: tuple, keep: np.ndarray) -> _OtherColumns:
    """The other names the scanner listed (``scan_columns``' last member), of kept records."""
    count, records, *columns = others
    kind, name, attributes = (
        pa.Array.from_buffers(
            pa.binary(), count, [pa.py_buffer(v), pa.py_buffer(o), pa.py_buffer(d)],
            null_count=nulls,
        )
        for v, o, d, nulls in columns
    )  # fmt: skip
    record = np.frombuffer(records, dtype=np.int32).astype(np.int64)
    kept = keep[record]
    if not kept.all():
        mask = pa.array(kept)
        record, kind, name, attributes = (
            record[kept],
            kind.filter(mask),
            name.filter(mask),
            attributes.filter(mask),
        )
    statuses = from_dates = pa.nulls(len(record), pa.string())
    if attributes.null_count < len(attributes):  # DGRs: their attributes read in Python
        dgr = pc.is_valid(attributes)
        status, from_date = _dgr_attributes(pc.filter(attributes, dgr).to_pylist())
        statuses = pc.replace_with_mask(statuses, dgr, status)
        from_dates = pc.replace_with_mask(from_dates, dgr, from_date)
    return record, _utf8(kind), name, statuses, from_dates


def _tail_other_names(tails: list[bytes | None], keep: np.ndarray) -> _OtherColumns:
    """The other names in the tails of the kept records (the tuple path).

    The tails are scanned in one pass, separated by a record-separator character that
    cannot occur in XML text.
    """
    record: list[int] = []
    kinds: list[bytes] = []
    names: list[bytes] = []
    attributes: list[bytes | None] = []
    canonical = [i for i, tail in enumerate(tails) if tail and keep[i]]
    position = 0
    for separator, kind, name, dgr_attrs, fund in _OTHER_OR_SEPARATOR_B.findall(
        b"\x1e".join(tails[i] or b"" for i in canonical)
    ):
        if separator:
            position += 1
        elif kind:
            record.append(canonical[position])
            kinds.append(kind)
            names.append(name)
            attributes.append(None)
        elif fund:
            record.append(canonical[position])
            kinds.append(b"DGR")
            names.append(fund)
            attributes.append(dgr_attrs)
    statuses, from_dates = _dgr_attributes(attributes)
    return (
        np.array(record, dtype=np.int64),
        _utf8(pa.array(kinds, pa.binary())),
        pa.array(names, pa.binary()),
        statuses,
        from_dates,
    )


# --------------------------------------------------------------------------------------
# Entry point used by the loader
# --------------------------------------------------------------------------------------


def parse(file: LandingFile, executor: Executor | None = None) -> Iterator[Batch]:
    """Stream one file as Arrow batches (see :func:`parse_files`)."""
    for _, batch in parse_files([file], executor):
        yield batch


def parse_chunk_into(chunk: Chunk, sink: PartSink, part: int) -> Batch:
    """Parse a chunk and write its rows to the sink (in a worker): only counts come back."""
    batch = parse_chunk(chunk)
    written = {key: sink.write(key, table, part) for key, table in batch.tables.items()}
    return Batch(quarantine=batch.quarantine, written=written)


def parse_files(
    files: list[LandingFile],
    executor: Executor | None = None,
    sink: PartSink | None = None,
    prefetch: int = 6,
) -> Iterator[tuple[LandingFile, Batch]]:
    """Stream several files as (file, batch) pairs, in file order.

    With an executor, chunks are parsed in parallel worker processes and the stream of
    chunks runs across file boundaries, so small files keep every worker busy too; with a
    sink as well, the workers write the rows themselves and the batches carry counts only.
    Each file's record count is checked against its ``<RecordCount>`` when its last chunk
    is in.
    """
    part = 0
    pending: deque[tuple[LandingFile, Future[Batch] | Batch | None]] = deque()
    parsed: dict[LandingFile, int] = {}
    declared: dict[LandingFile, int | None] = {}

    def settle(
        file: LandingFile, item: Future[Batch] | Batch | None
    ) -> Iterator[tuple[LandingFile, Batch]]:
        if item is None:  # the file's last chunk is in: check its record count
            expected, found = declared[file], parsed.get(file, 0)
            if expected is not None and found != expected:
                raise SourceFileError(
                    file.name,
                    f"<RecordCount> declares {expected} records but the file holds {found}",
                )
            return
        batch = item.result() if isinstance(item, Future) else item
        records = batch.count("abns")
        records += sum(1 for q in batch.quarantine if q.reason != OUTSIDE_RECORD)
        parsed[file] = parsed.get(file, 0) + records
        yield file, batch

    for file in files:
        declared[file] = file_info(file).declared_records
        for chunk in iter_chunks(file):
            part += 1
            if executor is None:
                work: Future[Batch] | Batch = parse_chunk(chunk)
            elif sink is None:
                work = executor.submit(parse_chunk, chunk)
            else:
                work = executor.submit(parse_chunk_into, chunk, sink, part)
            pending.append((file, work))
            while len(pending) > (prefetch if executor else 0):
                yield from settle(*pending.popleft())
        pending.append((file, None))
        while len(pending) > (prefetch if executor else 0):
            yield from settle(*pending.popleft())
    while pending:
        yield from settle(*pending.popleft())
