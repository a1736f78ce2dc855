"""ABR ABN Bulk Extract parser against small XML files in the publisher's real format.

Fixtures (tests/fixtures/abr/):

* ``20261118_Public01.xml``: the canonical layout, one ``<ABR>`` per line, six records.
* ``20261118_Public02.xml``: the same six records pretty-printed (single-quoted attributes,
  a comment, CDATA, ``&#38;``): the lxml safe path must give the same values.
* ``one_line.xml``: the canonical file with every newline removed.
* ``bad_records.xml`` / ``bad_records_multiline.xml``: two good records around four bad ones.
* ``truncated.xml``, ``no_transfer_end.xml``, ``empty.xml``, ``not_abr.csv``,
  ``other_root.xml``, ``record_count_mismatch.xml``: files that must fail as a whole.
* ``single_quoted_attributes.xml``: the canonical file with the attributes of ``ABR``,
  ``ABN``, ``ASICNumber``, ``GST`` and ``DGR`` in single quotes.
"""

from __future__ import annotations

import datetime as dt
import functools
import multiprocessing
import re
import zipfile
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.identifiers import abn_from_acn, abn_is_valid, abn_with_check_digits
from pipelines.ingest import abr
from pipelines.ingest.base import Batch, LandingFile, Quarantined, SourceFileError
from pipelines.ingest.tables import ABR_ABNS, ABR_OTHER_NAMES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "abr"
CANONICAL = "20261118_Public01.xml"
PRETTY = "20261118_Public02.xml"
ONE_LINE = "one_line.xml"
BAD = "bad_records.xml"
BAD_MULTILINE = "bad_records_multiline.xml"
LINEAGE = ("source_file", "source_line")

# The canonical file's ABNs: companies get "NN" + ACN, everyone else 9 digits + check digits.
ACME_SMITH_ACN = "004085616"
ACME_HOLDINGS_ACN = "123456780"
SMITH_OBRIEN = abn_from_acn(ACME_SMITH_ACN)  # 53004085616
MARY_OCONNOR = abn_with_check_digits("123456789")  # 18123456789
FAMILY_TRUST = abn_with_check_digits("987654321")  # 80987654321
LIAM_NGUYEN = abn_with_check_digits("456123789")  # 72456123789
ACME_HOLDINGS = abn_from_acn(ACME_HOLDINGS_ACN)  # 11123456780
DR_PAPADOPOULOS = abn_with_check_digits("314159265")  # 94314159265


def abn_row(**values: object) -> dict[str, object]:
    """One expected raw.abr__abns row: every column, unspecified ones null."""
    row: dict[str, object] = dict.fromkeys(ABR_ABNS.schema.names)
    row["is_individual"] = False
    row["source_file"] = CANONICAL
    row.update(values)
    assert set(row) == set(ABR_ABNS.schema.names)
    return row


EXPECTED_ABNS = [
    abn_row(
        abn=SMITH_OBRIEN,
        abn_status="ACT",
        abn_status_from_date=dt.date(2000, 7, 1),
        record_last_updated_date=dt.date(2025, 6, 12),
        replaced="N",
        entity_type_code="PRV",
        entity_type_text="Australian Private Company",
        entity_name="SMITH & O'BRIEN PTY LTD",
        state="NSW",
        postcode="2000",
        asic_number=ACME_SMITH_ACN,
        asic_number_type="undetermined",
        gst_status="ACT",
        gst_status_from_date=dt.date(2000, 7, 1),
        source_line=3,
    ),
    abn_row(  # individual: title, two given names; empty <State />, postcode 0000, GST NON
        abn=MARY_OCONNOR,
        abn_status="ACT",
        abn_status_from_date=dt.date(2015, 2, 20),
        record_last_updated_date=dt.date(2019, 3, 4),
        replaced="N",
        entity_type_code="IND",
        entity_type_text="Individual/Sole Trader",
        is_individual=True,
        entity_name="MARY JANE O'CONNOR",
        name_title="MRS",
        given_name="MARY",
        other_given_name="JANE",
        family_name="O'CONNOR",
        state=None,
        postcode="0000",
        gst_status="NON",
        gst_status_from_date=dt.date(1900, 1, 1),  # the dummy date stays in raw
        source_line=4,
    ),
    abn_row(  # an entity type code that is not in any list: kept
        abn=FAMILY_TRUST,
        abn_status="CAN",
        abn_status_from_date=dt.date(2023, 11, 30),
        record_last_updated_date=dt.date(2024, 1, 31),
        replaced="Y",
        entity_type_code="ZQX",
        entity_type_text="Some Future Entity Type",
        entity_name="THE TRUSTEE FOR THE A & B FAMILY TRUST",
        state="WA",
        postcode="6000",
        source_line=5,
    ),
    abn_row(  # individual with one given name and no title
        abn=LIAM_NGUYEN,
        abn_status="ACT",
        abn_status_from_date=dt.date(2005, 10, 11),
        record_last_updated_date=dt.date(2018, 7, 2),
        replaced="N",
        entity_type_code="IND",
        entity_type_text="Individual/Sole Trader",
        is_individual=True,
        entity_name="LIAM NGUYEN",
        given_name="LIAM",
        family_name="NGUYEN",
        state="VIC",
        postcode="3000",
        gst_status="CAN",
        gst_status_from_date=dt.date(2018, 6, 30),
        source_line=6,
    ),
    abn_row(
        abn=ACME_HOLDINGS,
        abn_status="ACT",
        abn_status_from_date=dt.date(1999, 11, 1),
        record_last_updated_date=dt.date(2026, 1, 5),
        replaced="N",
        entity_type_code="PUB",
        entity_type_text="Australian Public Company",
        entity_name="ACME HOLDINGS LIMITED",
        state="QLD",
        postcode="4000",
        asic_number=ACME_HOLDINGS_ACN,
        asic_number_type="undetermined",
        gst_status="ACT",
        gst_status_from_date=dt.date(2000, 7, 1),
        source_line=7,
    ),
    abn_row(  # individual with a title and a family name only
        abn=DR_PAPADOPOULOS,
        abn_status="ACT",
        abn_status_from_date=dt.date(2021, 12, 1),
        record_last_updated_date=dt.date(2021, 12, 24),
        replaced="N",
        entity_type_code="IND",
        entity_type_text="Individual/Sole Trader",
        is_individual=True,
        entity_name="PAPADOPOULOS",
        name_title="DR",
        family_name="PAPADOPOULOS",
        state="SA",
        postcode="5000",
        source_line=8,
    ),
]


def other_row(
    abn: str,
    name_type: str,
    name: str,
    line: int,
    dgr_status: str | None = None,
    dgr_status_from_date: dt.date | None = None,
) -> dict[str, object]:
    return {
        "abn": abn,
        "name_type": name_type,
        "name": name,
        "dgr_status": dgr_status,
        "dgr_status_from_date": dgr_status_from_date,
        "source_file": CANONICAL,
        "source_line": line,
    }


# The DGR without a fund name has no name to store: it gives no row.
EXPECTED_OTHER_NAMES = [
    other_row(SMITH_OBRIEN, "DGR", "SMITH & O'BRIEN PUBLIC FUND", 3, "ACT", dt.date(2010, 3, 1)),
    other_row(SMITH_OBRIEN, "TRD", "SOB PLUMBING", 3),
    other_row(SMITH_OBRIEN, "BN", "CAFÉ O'BRIEN", 3),
    other_row(FAMILY_TRUST, "OTN", "A&B TRUST", 5),
    other_row(LIAM_NGUYEN, "TRD", "NGUYEN LANDSCAPING", 6),
]


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


@dataclass
class Parsed:
    abns: list[dict[str, object]]
    other_names: list[dict[str, object]]
    quarantine: list[Quarantined]
    batches: int


def collect(batches: Iterable[Batch]) -> Parsed:
    parsed = Parsed([], [], [], 0)
    for batch in batches:
        assert set(batch.tables) == {"abns", "other_names"}
        assert batch.tables["abns"].schema == ABR_ABNS.schema
        assert batch.tables["other_names"].schema == ABR_OTHER_NAMES.schema
        parsed.abns += batch.tables["abns"].to_pylist()
        parsed.other_names += batch.tables["other_names"].to_pylist()
        parsed.quarantine += batch.quarantine
        parsed.batches += 1
    return parsed


def fixture(name: str) -> LandingFile:
    return LandingFile(FIXTURES / name)


def parse_all(file: LandingFile) -> Parsed:
    return collect(abr.parse(file))


def parse_in_chunks(file: LandingFile, chunk_bytes: int) -> Parsed:
    return collect(abr.parse_chunk(chunk) for chunk in abr.iter_chunks(file, chunk_bytes))


def without(rows: list[dict[str, object]], *columns: str) -> list[dict[str, object]]:
    return [{k: v for k, v in row.items() if k not in columns} for row in rows]


def sorted_rows(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return sorted(rows, key=lambda row: repr(sorted(row.items())))


def record_start_lines(name: str) -> list[int]:
    """Physical line of each ``<ABR`` start tag, read from the fixture text itself."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [i for i, line in enumerate(text.split("\n"), 1) if line.lstrip().startswith("<ABR")]


def canonical_lines() -> list[str]:
    return (FIXTURES / CANONICAL).read_text(encoding="utf-8").split("\n")


def one_record_file(tmp_path: Path, record: str, name: str = "20261118_Public09.xml") -> Path:
    """A complete file holding one record (header and trailer as in the canonical file)."""
    lines = canonical_lines()
    header = lines[1].replace("<RecordCount>0000000006<", "<RecordCount>0000000001<")
    path = tmp_path / name
    path.write_text(f"{lines[0]}\n{header}\n{record}\n</Transfer>\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------
# the canonical file
# --------------------------------------------------------------------------------------


def test_fixture_abns_have_valid_check_digits() -> None:
    assert all(abn_is_valid(row["abn"]) for row in EXPECTED_ABNS)  # type: ignore[arg-type]
    text = (FIXTURES / CANONICAL).read_text(encoding="utf-8")
    assert [f">{row['abn']}</ABN>" in text for row in EXPECTED_ABNS] == [True] * 6


def test_canonical_file_loads_every_column_of_every_record() -> None:
    parsed = parse_all(fixture(CANONICAL))
    assert parsed.quarantine == []
    assert parsed.abns == EXPECTED_ABNS


def test_canonical_file_loads_trading_business_other_and_dgr_names() -> None:
    parsed = parse_all(fixture(CANONICAL))
    assert parsed.other_names == EXPECTED_OTHER_NAMES


def test_file_info_reads_extract_time_and_declared_record_count() -> None:
    info = abr.file_info(fixture(CANONICAL))
    assert info.extract_date == dt.date(2026, 11, 18)
    assert info.declared_records == 6


# --------------------------------------------------------------------------------------
# other layouts of the same records
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(PRETTY, id="pretty-printed, single quotes, comment, CDATA"),
        pytest.param(ONE_LINE, id="all records on one line"),
    ],
)
def test_other_layouts_give_the_same_values(name: str) -> None:
    parsed = parse_all(fixture(name))
    assert parsed.quarantine == []
    assert without(parsed.abns, *LINEAGE) == without(EXPECTED_ABNS, *LINEAGE)
    assert sorted_rows(without(parsed.other_names, *LINEAGE)) == sorted_rows(
        without(EXPECTED_OTHER_NAMES, *LINEAGE)
    )
    assert {row["source_file"] for row in parsed.abns + parsed.other_names} == {name}


def test_pretty_printed_source_line_is_the_line_of_the_record_start_tag() -> None:
    starts = record_start_lines(PRETTY)
    assert len(starts) == 6
    parsed = parse_all(fixture(PRETTY))
    # the last record's start tag spans two lines: see the xfail test below
    assert [row["source_line"] for row in parsed.abns][:5] == starts[:5]
    line_of = {row["abn"]: row["source_line"] for row in parsed.abns}
    assert all(row["source_line"] == line_of[row["abn"]] for row in parsed.other_names)


def test_start_tag_over_two_lines_gets_the_line_where_it_starts() -> None:
    starts = record_start_lines(PRETTY)
    parsed = parse_all(fixture(PRETTY))
    assert parsed.abns[5]["abn"] == DR_PAPADOPOULOS
    assert parsed.abns[5]["source_line"] == starts[5]  # 97, not 98


def test_one_line_file_puts_every_record_on_line_1() -> None:
    assert b"\n" not in (FIXTURES / ONE_LINE).read_bytes()
    parsed = parse_all(fixture(ONE_LINE))
    assert [row["source_line"] for row in parsed.abns + parsed.other_names] == [1] * 11


def test_pretty_printed_file_info() -> None:
    info = abr.file_info(fixture(PRETTY))
    assert (info.extract_date, info.declared_records) == (dt.date(2026, 11, 18), 6)


# --------------------------------------------------------------------------------------
# chunking and parallel parsing
# --------------------------------------------------------------------------------------

ALL_GOOD_AND_BAD = [CANONICAL, PRETTY, ONE_LINE, BAD, BAD_MULTILINE]


@pytest.mark.parametrize("name", ALL_GOOD_AND_BAD)
@pytest.mark.parametrize("chunk_bytes", [64, 200, 1000])
def test_tiny_chunks_give_the_same_rows_as_one_chunk(name: str, chunk_bytes: int) -> None:
    file = fixture(name)
    whole = parse_in_chunks(file, 1 << 20)
    assert whole.batches == 1
    chunked = parse_in_chunks(file, chunk_bytes)
    if name != ONE_LINE:  # one line is one record run: it may stay a single chunk
        assert chunked.batches > 1
    assert chunked.abns == whole.abns
    assert sorted_rows(chunked.other_names) == sorted_rows(whole.other_names)
    assert sorted(chunked.quarantine, key=lambda q: q.line) == sorted(
        whole.quarantine, key=lambda q: q.line
    )


@pytest.mark.parametrize("chunk_bytes", [7, 200])  # 7: a record end often spans two reads
@pytest.mark.parametrize("name", ALL_GOOD_AND_BAD)
def test_chunks_cut_after_a_record_end_and_cover_the_records(name: str, chunk_bytes: int) -> None:
    data = (FIXTURES / name).read_bytes()
    chunks = list(abr.iter_chunks(fixture(name), chunk_bytes=chunk_bytes))
    assert all(chunk.data.endswith(b"</ABR>") for chunk in chunks)
    joined = b"".join(chunk.data for chunk in chunks)
    assert joined == data[: data.rindex(b"</ABR>") + len(b"</ABR>")]
    # each chunk's first_line is the physical line of its first byte
    offset = 0
    for chunk in chunks:
        assert chunk.first_line == data.count(b"\n", 0, offset) + 1
        assert chunk.newlines == chunk.data.count(b"\n")
        assert chunk.file == name
        offset += len(chunk.data)


@pytest.fixture(scope="module")
def spawn_pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


@pytest.mark.parametrize("name", [CANONICAL, PRETTY, BAD])
def test_parallel_parse_gives_the_same_rows_in_the_same_order_as_serial(
    name: str, spawn_pool: ProcessPoolExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = parse_in_chunks(fixture(name), 1 << 20)
    # small chunks so that the file spreads over several worker tasks
    monkeypatch.setattr(abr, "iter_chunks", functools.partial(abr.iter_chunks, chunk_bytes=300))
    serial = list(abr.parse(fixture(name)))
    parallel = list(abr.parse(fixture(name), executor=spawn_pool))
    assert len(serial) > 2
    assert len(parallel) == len(serial)
    for a, b in zip(parallel, serial, strict=True):
        assert a.tables["abns"].equals(b.tables["abns"])
        assert a.tables["other_names"].equals(b.tables["other_names"])
        assert a.quarantine == b.quarantine
    assert collect(parallel).abns == whole.abns


# --------------------------------------------------------------------------------------
# quarantine
# --------------------------------------------------------------------------------------

GOOD_FIRST = "51824753556"
GOOD_LAST = abn_with_check_digits("456123789")

# (what is wrong, a distinctive piece of the record, the reason must match)
BAD_RECORDS = [
    ("bad ABN check digit", "BAD CHECK DIGIT PTY LTD", r"invalid ABN '53004085617'.*check digit"),
    ("bad date", "<FamilyName>DATE</FamilyName>", r"invalid date ABNStatusFromDate='20231345'"),
    ("no <ABN> element", "MISSING ABN PTY LTD", r"no <ABN> element"),
    ("broken XML", "BROKEN XML PTY LTD", r"malformed XML.*(mismatch|MainEntity)"),
]


@pytest.mark.parametrize("name", [BAD, BAD_MULTILINE])
def test_good_records_load_around_bad_ones(name: str) -> None:
    parsed = parse_all(fixture(name))  # also: the record count (6) includes quarantined ones
    starts = record_start_lines(name)
    assert [(r["abn"], r["source_line"]) for r in parsed.abns] == [
        (GOOD_FIRST, starts[0]),
        (GOOD_LAST, starts[5]),
    ]
    assert [(r["abn"], r["name"], r["source_line"]) for r in parsed.other_names] == [
        (GOOD_FIRST, "GOOD FIRST TRADING", starts[0]),
        (GOOD_LAST, "GOOD LAST TRADING", starts[5]),
    ]


@pytest.mark.parametrize("name", [BAD, BAD_MULTILINE])
@pytest.mark.parametrize(
    ("index", "piece", "reason"),
    [
        pytest.param(i, piece, reason, id=what)
        for i, (what, piece, reason) in enumerate(BAD_RECORDS)
    ],
)
def test_bad_record_is_quarantined_with_file_line_reason_and_raw_text(
    name: str, index: int, piece: str, reason: str
) -> None:
    parsed = parse_all(fixture(name))
    assert len(parsed.quarantine) == 4
    matching = [q for q in parsed.quarantine if piece in q.raw]
    assert len(matching) == 1, parsed.quarantine
    (rejected,) = matching
    assert rejected.file == name
    assert rejected.line == record_start_lines(name)[index + 1]
    assert re.search(reason, rejected.reason), rejected.reason
    assert rejected.raw.startswith("<ABR ")
    assert rejected.raw.rstrip().endswith("</ABR>")
    assert rejected.raw.count("<ABR ") == 1  # the record, not its neighbours


def test_fast_path_quarantine_keeps_the_landed_line_as_raw() -> None:
    lines = (FIXTURES / BAD).read_text(encoding="utf-8").split("\n")
    parsed = parse_all(fixture(BAD))
    by_line = {q.line: q.raw for q in parsed.quarantine}
    assert by_line[4] == lines[3]  # bad check digit
    assert by_line[5] == lines[4]  # bad date
    assert by_line[7] == lines[6]  # broken XML: the text as landed


@pytest.mark.parametrize("name", [BAD, BAD_MULTILINE])
def test_other_names_of_quarantined_records_are_not_loaded(name: str) -> None:
    names = {row["name"] for row in parse_all(fixture(name)).other_names}
    assert names.isdisjoint(
        {
            "BAD CHECK DIGIT TRADING",
            "BAD DATE BUSINESS NAME",
            "MISSING ABN TRADING",
            "BROKEN XML TRADING",
        }
    )


def test_bad_abn_on_the_lxml_path_is_quarantined_too(tmp_path: Path) -> None:
    record = canonical_lines()[2].replace(f">{SMITH_OBRIEN}<", ">53004085617<")
    pretty = record.replace("<EntityType>", "\n  <EntityType>")  # not the canonical layout
    parsed = parse_all(LandingFile(one_record_file(tmp_path, pretty)))
    assert parsed.abns == [] and parsed.other_names == []
    assert [(q.line, q.reason) for q in parsed.quarantine] == [
        (3, "invalid ABN '53004085617' (check digits)")
    ]


# --------------------------------------------------------------------------------------
# files that fail as a whole
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        pytest.param("truncated.xml", r"truncated.*inside a record", id="cut inside a record"),
        pytest.param("no_transfer_end.xml", r"truncated.*</Transfer>", id="no </Transfer>"),
        pytest.param("empty.xml", r"empty file", id="empty file"),
        pytest.param("not_abr.csv", r"not an ABR bulk extract", id="a CSV file"),
        pytest.param("other_root.xml", r"not an ABR bulk extract", id="XML, not <Transfer>"),
        pytest.param(
            "record_count_mismatch.xml",
            r"<RecordCount> declares 7 records but the file holds 6",
            id="RecordCount disagrees",
        ),
    ],
)
def test_unreadable_file_fails_naming_the_file(name: str, reason: str) -> None:
    with pytest.raises(SourceFileError, match=rf"^{re.escape(name)}: ") as info:
        list(abr.parse(fixture(name)))
    assert info.value.file == name
    assert re.search(reason, info.value.reason), info.value.reason


def test_truncated_fixture_is_cut_inside_a_record() -> None:
    data = (FIXTURES / "truncated.xml").read_bytes()
    assert data.count(b"<ABR ") == data.count(b"</ABR>") + 1
    assert b"</Transfer>" not in data


def test_record_count_counts_quarantined_records(tmp_path: Path) -> None:
    data = (FIXTURES / BAD).read_bytes().replace(b">0000000006<", b">0000000002<")
    path = tmp_path / "20261118_Public03.xml"
    path.write_bytes(data)
    with pytest.raises(SourceFileError, match="declares 2 records but the file holds 6"):
        list(abr.parse(LandingFile(path)))


# --------------------------------------------------------------------------------------
# zip members
# --------------------------------------------------------------------------------------

MEMBER = CANONICAL
ZIP_NAME = "public_split_1_10.zip"


def zipped(tmp_path: Path, compression: int = zipfile.ZIP_DEFLATED) -> Path:
    archive = tmp_path / ZIP_NAME
    with zipfile.ZipFile(archive, "w", compression) as zf:
        zf.write(FIXTURES / CANONICAL, arcname=MEMBER)
        zf.write(FIXTURES / PRETTY, arcname=PRETTY)
    return archive


def test_zip_member_reads_like_the_plain_file(tmp_path: Path) -> None:
    file = LandingFile(zipped(tmp_path), MEMBER)
    assert file.name == f"{ZIP_NAME}!{MEMBER}"
    parsed = parse_all(file)
    assert parsed.quarantine == []
    assert without(parsed.abns, "source_file") == without(EXPECTED_ABNS, "source_file")
    assert without(parsed.other_names, "source_file") == without(
        EXPECTED_OTHER_NAMES, "source_file"
    )
    assert {r["source_file"] for r in parsed.abns + parsed.other_names} == {file.name}
    info = abr.file_info(file)
    assert (info.extract_date, info.declared_records) == (dt.date(2026, 11, 18), 6)


def corrupt(archive: Path, member: str, where: float) -> None:
    """Flip one byte of the member's compressed data (``where``: 0 first .. 1 last byte)."""
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + int((info.compress_size - 1) * where)] ^= 0xFF
    archive.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("compression", "where"),
    [
        pytest.param(zipfile.ZIP_STORED, 0.5, id="stored: CRC check fails"),
        pytest.param(zipfile.ZIP_DEFLATED, 0.0, id="deflated: inflate fails"),
        pytest.param(zipfile.ZIP_DEFLATED, 0.5, id="deflated: CRC check fails"),
    ],
)
def test_corrupt_zip_member_fails_naming_zip_and_member(
    tmp_path: Path, compression: int, where: float
) -> None:
    archive = zipped(tmp_path, compression)
    corrupt(archive, MEMBER, where)
    with pytest.raises(SourceFileError, match=rf"^{re.escape(ZIP_NAME)}!{MEMBER}: corrupt zip"):
        list(abr.parse(LandingFile(archive, MEMBER)))


@pytest.mark.parametrize("size", [-1, 1, 7, 4096, 1 << 20])
def test_deflated_member_reads_the_bytes_zipfile_reads(tmp_path: Path, size: int) -> None:
    archive = tmp_path / ZIP_NAME
    payload = b"".join(
        (FIXTURES / CANONICAL).read_bytes().replace(b"ABR", b"ABR" + bytes([i % 256]))
        for i in range(200)
    )  # a few hundred kB, more than one of the reader's blocks compressed
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(MEMBER, payload)
    with LandingFile(archive, MEMBER).open() as fh:
        assert type(fh).__name__ == "_Inflated"  # not zipfile's reader
        pieces = []
        while piece := fh.read(size):
            assert size < 0 or len(piece) <= size
            pieces.append(piece)
    assert b"".join(pieces) == payload


def test_truncated_zip_member_fails_naming_it(tmp_path: Path) -> None:
    archive = zipped(tmp_path)
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo(MEMBER)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data = archive.read_bytes()
    # the member's compressed bytes cut short: the central directory still promises them
    archive.write_bytes(
        data[: start + info.compress_size // 2] + data[start + info.compress_size :]
    )
    with pytest.raises(SourceFileError, match=rf"^{re.escape(ZIP_NAME)}!{MEMBER}: "):
        list(abr.parse(LandingFile(archive, MEMBER)))


def test_missing_zip_member_fails_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SourceFileError, match=r"!20261118_Public03\.xml: member missing"):
        list(abr.parse(LandingFile(zipped(tmp_path), "20261118_Public03.xml")))


# --------------------------------------------------------------------------------------
# known bugs (strict xfail: they start passing when the parser is fixed)
# --------------------------------------------------------------------------------------


def test_single_quoted_attributes_on_one_line_records_keep_their_values() -> None:
    parsed = parse_all(fixture("single_quoted_attributes.xml"))
    assert parsed.quarantine == []
    assert without(parsed.abns, "source_file") == without(EXPECTED_ABNS, "source_file")
    assert without(parsed.other_names, "source_file") == without(
        EXPECTED_OTHER_NAMES, "source_file"
    )


def test_escaped_reference_is_decoded_once_on_the_fast_path(tmp_path: Path) -> None:
    record = canonical_lines()[7].replace(">PAPADOPOULOS<", ">R&amp;amp;D&amp;lt;1&amp;gt;<")
    parsed = parse_all(LandingFile(one_record_file(tmp_path, record)))
    assert parsed.abns[0]["family_name"] == "R&amp;D&lt;1&gt;"


@pytest.mark.parametrize(
    "text",
    [
        "A &amp; B",
        "&amp;lt;",
        "x &lt;y&gt; &quot;q&quot; &apos;",
        "&#38;&amp;",
        "&#x41;&amp;lt;",
        "&AMP;",
        "&amp;amp;",
        "a&b",
        "plain",
        "&#169; &#xE9;t&amp;",
    ],
)
def test_a_column_resolves_references_as_one_pass_over_each_value(text: str) -> None:
    """Named references by Arrow kernels, numeric ones in Python: as one pass of the
    reference resolver over the value would."""
    import pyarrow as pa

    column = abr._unescape_array(pa.array([text, None, "none here"], pa.string()))
    assert column.to_pylist() == [abr._unescape(text), None, "none here"]


def test_escaped_reference_is_decoded_once_on_the_lxml_path(tmp_path: Path) -> None:
    record = canonical_lines()[7].replace(">PAPADOPOULOS<", ">R&amp;amp;D&amp;lt;1&amp;gt;<")
    pretty = record.replace("<EntityType>", "\n  <EntityType>")
    parsed = parse_all(LandingFile(one_record_file(tmp_path, pretty)))
    assert parsed.abns[0]["family_name"] == "R&amp;D&lt;1&gt;"


def test_padded_name_gives_the_same_value_on_both_paths(tmp_path: Path) -> None:
    record = canonical_lines()[6].replace(">ACME HOLDINGS LIMITED<", "> ACME HOLDINGS LIMITED <")
    fast = parse_all(LandingFile(one_record_file(tmp_path, record, "a.xml")))
    pretty = record.replace("<EntityType>", "\n  <EntityType>")
    slow = parse_all(LandingFile(one_record_file(tmp_path, pretty, "b.xml")))
    assert slow.abns[0]["entity_name"] == fast.abns[0]["entity_name"]


def test_chunk_smaller_than_the_file_head_still_reads_a_valid_file() -> None:
    whole = parse_in_chunks(fixture(CANONICAL), 1 << 20)
    assert parse_in_chunks(fixture(CANONICAL), 32).abns == whole.abns


@pytest.mark.parametrize("bad_day", ["20220431", "20230229", "20221301", "20220000"])
def test_impossible_calendar_dates_are_quarantined_not_rolled_over(
    tmp_path: Path, bad_day: str
) -> None:
    from tests.conftest import abr_file, company_record

    record = company_record(7).replace(
        'ABNStatusFromDate="20100101"', f'ABNStatusFromDate="{bad_day}"'
    )
    path = abr_file(tmp_path / "20261118_Public01.xml", [company_record(1), record])
    batches = list(abr.parse(LandingFile(path)))
    assert sum(b.tables["abns"].num_rows for b in batches) == 1
    [rejected] = [q for b in batches for q in b.quarantine]
    assert rejected.line == 4 and bad_day in rejected.reason


def test_latin1_declared_file_and_invalid_utf8_bytes_are_read(tmp_path: Path) -> None:
    from tests.conftest import abr_file, company_record

    latin = abr_file(tmp_path / "20261118_Public01.xml", [company_record(1, "CAFÉ ÉTOILE PTY LTD")])
    text = latin.read_text(encoding="utf-8").replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
    latin.write_bytes(text.encode("latin-1"))
    [batch] = list(abr.parse(LandingFile(latin)))
    assert batch.tables["abns"].column("entity_name").to_pylist() == ["CAFÉ ÉTOILE PTY LTD"]

    broken = abr_file(tmp_path / "20261118_Public02.xml", [company_record(2, "CAFE PTY LTD")])
    broken.write_bytes(broken.read_bytes().replace(b"CAFE", b"CAF\xff"))
    [batch] = list(abr.parse(LandingFile(broken)))
    assert batch.tables["abns"].column("entity_name").to_pylist() == ["CAF\ufffd PTY LTD"]
