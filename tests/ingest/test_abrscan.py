"""The C record scanner must return exactly what the reference regex returns.

``scan`` returns the regex's tuples; ``scan_columns`` the same groups as Arrow buffers, and the
parser's column path must give the same tables as its tuple path."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from pipelines.ingest._abrscan import scan, scan_columns  # built by setup.py; CI must have it

from bvs_sample import write_sample
from pipelines.ingest import abr
from pipelines.ingest.base import SourceFileError

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "abr").glob("*.xml"))

COMPANY = (
    '<ABR recordLastUpdatedDate="20240101" replaced="N"><ABN status="ACT" ABNStatusFromDate="20100101">'
    "53004085616</ABN><EntityType><EntityTypeInd>PRV</EntityTypeInd><EntityTypeText>Australian Private"
    ' Company</EntityTypeText></EntityType><MainEntity><NonIndividualName type="MN"><NonIndividualNameText>'
    "A &amp; B PTY LTD</NonIndividualNameText></NonIndividualName><BusinessAddress><AddressDetails>"
    "<State>QLD</State><Postcode>4000</Postcode></AddressDetails></BusinessAddress></MainEntity>"
    '<ASICNumber ASICNumberType="undetermined">004085616</ASICNumber><GST status="ACT" '
    'GSTStatusFromDate="20100101" /></ABR>'
)
PERSON = (
    '<ABR replaced="N" recordLastUpdatedDate="20240101"><ABN ABNStatusFromDate="20150101" status="CAN">'
    "51824753556</ABN><EntityType><EntityTypeInd>IND</EntityTypeInd><EntityTypeText>Individual/Sole"
    ' Trader</EntityTypeText></EntityType><LegalEntity><IndividualName type="LGL"><NameTitle>MS'
    "</NameTitle><GivenName>JANE</GivenName><GivenName>ANN</GivenName><FamilyName>CITIZEN</FamilyName>"
    "</IndividualName><BusinessAddress><AddressDetails><State /><Postcode>0000</Postcode></AddressDetails>"
    '</BusinessAddress></LegalEntity><GST GSTStatusFromDate="19000101" status="NON"/></ABR>'
)
TAILS = (
    '<DGR DGRStatusFromDate="20100101" status="ACT" /><DGR DGRStatusFromDate="20110101" status="ACT">'
    '<NonIndividualName type="DGR"><NonIndividualNameText>FUND</NonIndividualNameText>'
    '</NonIndividualName></DGR><OtherEntity><NonIndividualName type="TRD"><NonIndividualNameText>'
    "SHOP</NonIndividualNameText></NonIndividualName></OtherEntity>"
)

EDGE_CASES = {
    "company": COMPANY,
    "person, attributes reversed, empty state": PERSON,
    "other names and DGR": COMPANY.replace("</ABR>", TAILS + "</ABR>"),
    "asic self-closed": COMPANY.replace(
        '<ASICNumber ASICNumberType="undetermined">004085616</ASICNumber>',
        '<ASICNumber ASICNumberType="undetermined" />',
    ),
    "no gst, no asic": COMPANY.split("<ASICNumber")[0] + "</ABR>",
    "three given names": PERSON.replace(
        "<GivenName>ANN</GivenName>", "<GivenName>A</GivenName>" * 2
    ),
    "single quotes": COMPANY.replace('replaced="N"', "replaced='N'"),
    "extra attribute": COMPANY.replace('replaced="N"', 'replaced="N" extra="1"'),
    "space before >": COMPANY.replace("<EntityType>", "<EntityType >"),
    "no end tag then a record": "<ABR " + COMPANY[5:-6] + COMPANY,
    "record without attributes": "<ABR>" + COMPANY[COMPANY.index("<ABN") :],
    "not a record": "<ABRX>noise</ABR>" + COMPANY,
    "gt in an attribute": COMPANY.replace('status="ACT" ABN', 'status="A>T" ABN'),
    "truncated": COMPANY[:-20],
    "newlines between": "\n".join([COMPANY, PERSON, COMPANY]),
}


@pytest.mark.parametrize("name", EDGE_CASES)
def test_edge_cases_match_the_reference(name: str) -> None:
    data = EDGE_CASES[name].encode()
    assert scan(data) == abr._RECORDS_B.findall(data)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixtures_match_the_reference(path: Path) -> None:
    data = path.read_bytes()
    assert scan(data) == abr._RECORDS_B.findall(data)


def test_generated_extract_matches_the_reference(tmp_path: Path) -> None:
    summary = write_sample(tmp_path, scale=20_000, seed=5, abr_format="xml", workers=1)
    records = 0
    for path in sorted((tmp_path / "abr").glob("*.xml")):
        data = path.read_bytes()
        expected = abr._RECORDS_B.findall(data)
        assert scan(data) == expected
        records += len(expected)
    # The sample's records plus the extra records of its planted cases.
    assert records == 20_000 + summary.per_source["abr"]["planted_cases"]
    assert records == summary.per_source["abr"]["records"]


# Values the column path cleans only where the scanner's flags say so: whitespace at an edge,
# character references (one that makes an edge space), non-ASCII and invalid UTF-8 bytes.
CLEANING_CASES = {
    "spaces around a name": COMPANY.replace("A &amp; B PTY LTD", "  A B PTY LTD \t"),
    "a reference making an edge space": COMPANY.replace("A &amp; B PTY LTD", "&#32;A B&#x20;"),
    "a name of spaces only": COMPANY.replace("A &amp; B PTY LTD", "   "),
    "non-ASCII at an edge": PERSON.replace("CITIZEN", "\u00a0CITIZEN\u2003"),
    "non-ASCII inside": PERSON.replace("CITIZEN", "Z\u00d6E"),
    "an ampersand where none is resolved": COMPANY.replace("QLD", "Q&amp;D"),
    "an empty ABN": COMPANY.replace("53004085616", ""),
    "a bad date": COMPANY.replace('ABNStatusFromDate="20100101"', 'ABNStatusFromDate="20100231"'),
}


# other names as findall reads them: no row for a DGR without attributes or fund name, nor for
# an <OtherEntity> of an empty type; an OtherEntity of type DGR is not a DGR
TAIL_CASES = {
    f"tail: {label}": COMPANY.replace("</ABR>", tail + "</ABR>")
    for label, tail in {
        "DGR without attributes": '<DGR><NonIndividualName type="DGR"><NonIndividualNameText>F'
        "</NonIndividualNameText></NonIndividualName></DGR>",
        "DGR self-closed, a space": "<DGR />",
        "DGR with an empty fund name": '<DGR status="ACT"><NonIndividualName type="DGR">'
        "<NonIndividualNameText></NonIndividualNameText></NonIndividualName></DGR>",
        "DGR with no name element": '<DGR status="ACT" DGRStatusFromDate="20200101"></DGR>',
        "DGR with a slash in a value": '<DGR status="A/B" DGRStatusFromDate="2020/01/01">'
        '<NonIndividualName type="DGR"><NonIndividualNameText>G</NonIndividualNameText>'
        "</NonIndividualName></DGR>",
        "other entity of an empty type": '<OtherEntity><NonIndividualName type="">'
        "<NonIndividualNameText>X</NonIndividualNameText></NonIndividualName></OtherEntity>",
        "other entity of type DGR": '<OtherEntity><NonIndividualName type="DGR">'
        "<NonIndividualNameText>Y</NonIndividualNameText></NonIndividualName></OtherEntity>",
        "other entity with an empty name": '<OtherEntity><NonIndividualName type="BN">'
        "<NonIndividualNameText> </NonIndividualNameText></NonIndividualName></OtherEntity>",
        "a type holding >": '<OtherEntity><NonIndividualName type="B>N">'
        "<NonIndividualNameText>Z &amp; Co</NonIndividualNameText></NonIndividualName></OtherEntity>",
    }.items()
}


def _as_tuples(data: bytes) -> list[tuple[bytes, ...]]:
    """scan_columns' output in scan's shape."""
    n, columns, odd, *_ = scan_columns(data)
    values = []
    for valid, offsets, buffer, nulls, _flags in columns:
        array = pa.Array.from_buffers(
            pa.binary(), n, [pa.py_buffer(valid), pa.py_buffer(offsets), pa.py_buffer(buffer)],
            null_count=nulls,
        )  # fmt: skip
        values.append([v or b"" for v in array.to_pylist()])
    raws = dict(odd)
    return [(*(column[i] for column in values), raws.get(i, b"")) for i in range(n)]


@pytest.mark.parametrize("name", [*EDGE_CASES, *CLEANING_CASES])
def test_columns_hold_what_scan_returns(name: str) -> None:
    data = {**EDGE_CASES, **CLEANING_CASES}[name].encode()
    assert _as_tuples(data) == scan(data)
    assert scan_columns(data)[3] == data.count(b"<ABR")
    assert scan_columns(data)[5] == data.count(b"\n<ABR", max(data.find(b"<ABR"), 0))


def test_columns_of_fixtures_and_a_generated_extract(tmp_path: Path) -> None:
    write_sample(tmp_path, scale=5_000, seed=11, abr_format="xml", workers=1)
    paths = [*FIXTURES, *sorted((tmp_path / "abr").glob("*.xml"))]
    for path in paths:
        data = path.read_bytes()
        assert _as_tuples(data) == scan(data), path.name
        assert scan_columns(data)[3] == data.count(b"<ABR"), path.name
        assert scan_columns(data)[5] == data.count(b"\n<ABR", max(data.find(b"<ABR"), 0))
        _assert_same_other_names(data)


def _assert_same_other_names(data: bytes) -> None:
    """The other names scan_columns lists are those the tuple path reads from the tails."""
    n, others = scan_columns(data)[0], scan_columns(data)[4]
    keep = np.ones(n, dtype=bool)
    keep[::3] = False  # names of records not kept are left out
    listed = abr._listed_other_names(others, keep)
    read = abr._tail_other_names([t[abr._G_TAIL] for t in scan(data)], keep)
    assert listed[0].tolist() == read[0].tolist()
    for a, b in zip(listed[1:], read[1:], strict=True):
        assert a.equals(b)


@pytest.mark.parametrize("name", [*EDGE_CASES, *CLEANING_CASES, *TAIL_CASES])
def test_listed_other_names_are_those_of_the_tails(name: str) -> None:
    text = {**EDGE_CASES, **CLEANING_CASES, **TAIL_CASES}[name]
    _assert_same_other_names(
        "\n".join([text, COMPANY.replace("</ABR>", TAILS + "</ABR>"), text]).encode()
    )


def test_flags_say_what_the_values_hold() -> None:
    def flags(record: str) -> list[int]:
        return [column[4] for column in scan_columns(record.encode())[1]]

    plain, spaced = flags(COMPANY), flags(CLEANING_CASES["spaces around a name"])
    assert plain[abr._G_MAIN_NAME] == abr._F_AMP
    assert spaced[abr._G_MAIN_NAME] == abr._F_EDGE
    assert flags(CLEANING_CASES["non-ASCII inside"])[abr._G_FAMILY] == abr._F_NONASCII
    assert plain[abr._G_ABN] == 0


def _chunk(text: str) -> abr.Chunk:
    data = f'<?xml version="1.0" encoding="UTF-8"?>\n<Transfer>\n{text}\n</Transfer>\n'.encode()
    return abr.Chunk("f.xml", "utf-8", 1, data)


def _assert_same_batches(chunk: abr.Chunk) -> None:
    columns, tuples = abr.parse_chunk(chunk), abr.parse_chunk(chunk, use_columns=False)
    assert columns.tables.keys() == tuples.tables.keys()
    for key in columns.tables:
        assert columns.tables[key].equals(tuples.tables[key]), key
    assert columns.quarantine == tuples.quarantine


@pytest.mark.parametrize("name", [*EDGE_CASES, *CLEANING_CASES, *TAIL_CASES])
def test_column_path_parses_as_the_tuple_path(name: str) -> None:
    text = {**EDGE_CASES, **CLEANING_CASES, **TAIL_CASES}[name]
    # alone, and among canonical records on lines of their own
    _assert_same_batches(_chunk(text))
    _assert_same_batches(_chunk("\n".join([COMPANY, text, PERSON])))


def test_column_path_parses_invalid_utf8_as_the_tuple_path() -> None:
    data = _chunk(PERSON).data.replace(b"CITIZEN", b"CIT\xffZEN")
    _assert_same_batches(abr.Chunk("f.xml", "utf-8", 1, data))


def test_column_path_parses_a_generated_extract_as_the_tuple_path(tmp_path: Path) -> None:
    write_sample(tmp_path, scale=5_000, seed=11, abr_format="xml", workers=1)
    chunks = 0
    for path in [*FIXTURES, *sorted((tmp_path / "abr").glob("*.xml"))]:
        try:
            for chunk in abr.iter_chunks(abr.LandingFile(path), chunk_bytes=256 * 1024):
                _assert_same_batches(chunk)
                chunks += 1
        except SourceFileError:  # the fixtures of damaged files: their chunks were compared
            pass
    assert chunks > 20


# eight digits that are and are not calendar days (leap years by the Gregorian rule, year 0
# included), other spellings, and values cleaning changes (the strings are read for those)
DATES = [
    "20240229", "20230229", "19000229", "20000229", "00000229", "00000101", "99991231",
    "20231301", "20230100", "20230132", "20230431", "20231231", "19700101", "19691231",
    "2023-1-1", "2023010a", "2023010", "202301011", "", " 20230101", "20230101 ", "２０２３０１０１",
    "2023&amp;01",
]  # fmt: skip


def test_dates_read_by_the_scanner_are_those_of_the_strings() -> None:
    records = [
        COMPANY.replace('ABNStatusFromDate="20100101"', f'ABNStatusFromDate="{d}"') for d in DATES
    ]
    data = "\n".join(records).encode()
    days, valid, bad, nulls = scan_columns(data)[6][1]  # (ABNStatusFromDate, reversed pair)
    parsed = pa.Array.from_buffers(
        pa.date32(), len(DATES), [pa.py_buffer(valid), pa.py_buffer(days)], null_count=nulls
    )
    strings = pa.array([d or None for d in DATES], pa.string())
    expected, expected_bad = abr._dates(strings)
    clean = [not (d.startswith(" ") or d.endswith(" ") or not d.isascii()) for d in DATES]
    days_of = [p for p, c in zip(parsed.cast(pa.int32()).to_pylist(), clean, strict=True) if c]
    expected_days = expected.cast(pa.int32()).to_pylist()  # year 0 is no Python date
    assert days_of == [p for p, c in zip(expected_days, clean, strict=True) if c]
    assert [b for b, c in zip(np.frombuffer(bad, dtype=bool), clean, strict=True) if c] == [
        b for b, c in zip(expected_bad, clean, strict=True) if c
    ]
    assert parsed[0].as_py() == dt.date(2024, 2, 29) and parsed[1].as_py() is None
    assert expected.null_count < len(DATES) - 6  # the Arrow path read most of them too


@pytest.mark.parametrize("value", DATES)
def test_column_path_reads_dates_as_the_tuple_path(value: str) -> None:
    company = COMPANY.replace('ABNStatusFromDate="20100101"', f'ABNStatusFromDate="{value}"')
    person = PERSON.replace('GSTStatusFromDate="19000101"', f'GSTStatusFromDate="{value}"')
    # with an odd record in the chunk (its dates read from its strings)
    odd = EDGE_CASES["single quotes"].replace('"20100101"', f'"{value}"')
    _assert_same_batches(_chunk("\n".join([company, person, odd, COMPANY])))
