"""ASIC Company Dataset parser against fixtures in the publisher's real byte formats."""

from __future__ import annotations

import datetime as dt
import shutil
import zipfile
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.ingest import asic_companies
from pipelines.ingest.base import Batch, LandingFile, SourceFileError
from pipelines.ingest.tables import ASIC_COMPANIES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "asic_companies"


def parse_all(file: LandingFile, batch_rows: int = 100_000) -> Batch:
    batches = list(asic_companies.parse(file, batch_rows=batch_rows))
    for batch in batches:
        assert set(batch.tables) == {"companies"}
        assert batch.tables["companies"].schema == ASIC_COMPANIES.schema
    tables = [b.tables["companies"] for b in batches]
    return Batch(
        tables={
            "companies": pa.concat_tables(tables) if tables else ASIC_COMPANIES.schema.empty_table()
        },
        quarantine=[q for b in batches for q in b.quarantine],
    )


def fixture(name: str) -> LandingFile:
    return LandingFile(FIXTURES / name)


def by_name(batch: Batch) -> dict[str, dict[str, object]]:
    return {row["company_name"]: row for row in batch.tables["companies"].to_pylist()}


def test_current_layout_loads_every_row_with_its_values() -> None:
    batch = parse_all(fixture("company_202410.csv"))
    assert batch.quarantine == []
    table = batch.tables["companies"]
    assert table.column("source_line").to_pylist() == list(range(2, 10))
    assert set(table.column("source_file").to_pylist()) == {"company_202410.csv"}
    assert by_name(batch)["ACME WIDGETS PTY LTD"] == {
        "company_name": "ACME WIDGETS PTY LTD",
        "acn": "004000006",
        "type": "APTY",
        "class": "LMSH",
        "sub_class": "PROP",
        "status": "REGD",
        "date_of_registration": dt.date(2000, 3, 1),
        "date_of_deregistration": None,
        "previous_state_of_registration": "VIC",
        "state_registration_number": "C0123456",
        "modified_since_last_report": None,
        "current_name_indicator": "Y",
        "abn": "46004000006",
        "current_name": None,
        "current_name_start_date": None,
        "source_file": "company_202410.csv",
        "source_line": 2,
    }


def test_former_name_rows_are_kept_with_the_current_name() -> None:
    rows = by_name(parse_all(fixture("company_202410.csv")))
    former = rows["ACME TOOLS PTY LTD"]
    assert (former["acn"], former["current_name_indicator"]) == ("004000006", None)
    assert former["current_name"] == "ACME WIDGETS PTY LTD"
    assert former["current_name_start_date"] == dt.date(2015, 7, 15)
    # an ACN that only has a former-name row still loads
    only = rows["FORMERLY ONLY PTY LTD"]
    assert (only["acn"], only["current_name"]) == ("160014675", "RENAMED AGAIN PTY LTD")
    assert only["date_of_deregistration"] == dt.date(2023, 2, 1)


def test_double_quote_is_a_literal_character_and_utf8_is_decoded() -> None:
    assert 'THE "BEST" CAFÉ PTY LTD' in by_name(parse_all(fixture("company_202410.csv")))


def test_racn_rows_hold_an_arbn_in_the_acn_column() -> None:
    row = by_name(parse_all(fixture("company_202410.csv")))["GLOBAL SHIPPING LIMITED"]
    assert (row["type"], row["acn"], row["abn"]) == ("RACN", "123456780", None)


def test_unknown_codes_are_kept_and_abn_spellings_cleaned() -> None:
    rows = by_name(parse_all(fixture("company_202410.csv")))
    future = rows["FUTURE STATUS PTY LTD"]
    assert (future["status"], future["type"], future["abn"]) == ("ZZZZ", "QQQQ", "69099123458")
    assert rows["OLD MINING NL"]["abn"] is None  # "0" means no ABN
    assert rows["OLD MINING NL"]["date_of_deregistration"] == dt.date(2024, 6, 30)
    assert rows["PADDED NAME PTY LTD"]["status"] == "EXAD"  # the name was padded with spaces


def test_older_14_column_cp1252_file_loads_with_null_deregistration_date() -> None:
    batch = parse_all(fixture("company_201505.csv"))
    assert batch.quarantine == []
    rows = by_name(batch)
    assert list(rows) == ["CAFÉ RENÉ PTY LTD", "O’BRIEN’S HOLDINGS PTY LTD", "PLAIN ASCII PTY LTD"]
    assert batch.tables["companies"].column("date_of_deregistration").null_count == 3
    cafe = rows["CAFÉ RENÉ PTY LTD"]
    assert (cafe["previous_state_of_registration"], cafe["state_registration_number"]) == (
        "VIC",
        "C0123456",
    )
    assert (cafe["current_name_indicator"], cafe["abn"]) == ("Y", "46004000006")
    assert rows["O’BRIEN’S HOLDINGS PTY LTD"]["abn"] is None  # 00000000000 means no ABN


BAD_ROWS = [
    (3, "bad date in Date of Registration (expected DD/MM/YYYY): '31/02/2020'"),
    (4, "invalid ACN in ACN: '004000007'"),
    (5, "expected 15 fields, found 16"),
    (8, "expected 15 fields, found 3"),
    # line 9 lists an ABN that fails its check digits: kept as listed (docs/decisions/19-a-records-own-identifier.md);
    # its ACN, the company's own key, is valid
    (10, "bad date in Current Name Start Date (expected DD/MM/YYYY): '2015-07-01'"),
    (11, "empty ACN"),
]


def test_bad_rows_are_quarantined_and_good_rows_load() -> None:
    batch = parse_all(fixture("company_bad_rows.csv"))
    table = batch.tables["companies"]
    assert table.column("company_name").to_pylist() == [
        "GOOD ROW A PTY LTD",
        "GOOD ROW B PTY LTD",
        "BAD ABN PTY LTD",
        "GOOD ROW C LIMITED",
    ]
    assert table.column("source_line").to_pylist() == [2, 7, 9, 13]
    assert table.column("abn").to_pylist()[2] == "12345678901"  # the ABN as listed
    assert [(q.line, q.reason) for q in batch.quarantine] == BAD_ROWS
    assert {q.file for q in batch.quarantine} == {"company_bad_rows.csv"}


def test_quarantine_line_numbers_point_at_the_physical_line() -> None:
    physical = (FIXTURES / "company_bad_rows.csv").read_bytes().split(b"\r\n")
    batch = parse_all(fixture("company_bad_rows.csv"))
    assert batch.quarantine
    for entry in batch.quarantine:
        assert entry.raw == physical[entry.line - 1].decode("utf-8")
    for name, line in zip(
        batch.tables["companies"].column("company_name").to_pylist(),
        batch.tables["companies"].column("source_line").to_pylist(),
        strict=True,
    ):
        assert physical[line - 1].decode("utf-8").startswith(name)


def test_empty_file_fails_naming_the_file() -> None:
    with pytest.raises(SourceFileError, match=r"^company_empty\.csv: empty file") as caught:
        parse_all(fixture("company_empty.csv"))
    assert caught.value.file == "company_empty.csv"


def test_unexpected_header_fails_naming_the_file_and_columns() -> None:
    with pytest.raises(SourceFileError) as caught:
        parse_all(fixture("company_unexpected_header.csv"))
    assert caught.value.file == "company_unexpected_header.csv"
    assert "missing required column(s) ['Company Name', 'ACN', 'Type'" in caught.value.reason
    assert "unexpected column(s) ['REGISTER_NAME', 'BN_NAME'" in caught.value.reason


def test_header_only_file_yields_no_rows() -> None:
    assert list(asic_companies.parse(fixture("company_header_only.csv"))) == []


def test_batches_of_batch_rows() -> None:
    batches = list(asic_companies.parse(fixture("company_202410.csv"), batch_rows=3))
    assert [b.rows for b in batches] == [3, 3, 2]


def zipped(tmp_path: Path, name: str, compression: int = zipfile.ZIP_DEFLATED) -> Path:
    archive = tmp_path / name.replace(".csv", ".zip")
    with zipfile.ZipFile(archive, "w", compression) as zf:
        zf.write(FIXTURES / name, arcname=name)
    return archive


def test_zip_member_reads_like_the_plain_file(tmp_path: Path) -> None:
    archive = zipped(tmp_path, "company_202410.csv")
    from_zip = parse_all(LandingFile(archive, "company_202410.csv")).tables["companies"]
    plain = parse_all(fixture("company_202410.csv")).tables["companies"]
    assert set(from_zip.column("source_file").to_pylist()) == {
        "company_202410.zip!company_202410.csv"
    }
    assert from_zip.drop_columns(["source_file"]) == plain.drop_columns(["source_file"])


def corrupt(archive: Path, member: str) -> None:
    """Flip the first byte of the member's data (just after its local header)."""
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start] ^= 0xFF
    archive.write_bytes(bytes(data))


def test_corrupt_zip_member_fails_naming_the_member(tmp_path: Path) -> None:
    archive = zipped(tmp_path, "company_202410.csv", zipfile.ZIP_STORED)
    corrupt(archive, "company_202410.csv")  # stored data: the CRC check fails
    with pytest.raises(SourceFileError, match=r"^company_202410\.zip!company_202410\.csv: "):
        parse_all(LandingFile(archive, "company_202410.csv"))


def test_undecompressable_zip_member_fails_naming_the_member(tmp_path: Path) -> None:
    archive = zipped(tmp_path, "company_202410.csv")
    corrupt(archive, "company_202410.csv")  # deflate data: inflating fails
    with pytest.raises(SourceFileError, match=r"^company_202410\.zip!company_202410\.csv: "):
        parse_all(LandingFile(archive, "company_202410.csv"))


def test_truncated_zip_fails(tmp_path: Path) -> None:
    archive = zipped(tmp_path, "company_202410.csv")
    archive.write_bytes(archive.read_bytes()[:200])
    with pytest.raises(SourceFileError, match="cannot open zip"):
        parse_all(LandingFile(archive, "company_202410.csv"))


@pytest.mark.parametrize(
    ("path", "member", "date"),
    [
        ("company_202410.csv", None, dt.date(2024, 10, 1)),
        ("COMPANY_201505.csv", None, dt.date(2015, 5, 1)),
        ("company_202410.zip", "COMPANY_202410.csv", dt.date(2024, 10, 1)),
        ("company_202410.zip", "data.csv", dt.date(2024, 10, 1)),
        ("companies.csv", None, None),
    ],
)
def test_file_info_takes_the_month_from_the_name(
    tmp_path: Path, path: str, member: str | None, date: dt.date | None
) -> None:
    shutil.copy(FIXTURES / "company_202410.csv", tmp_path / path)
    info = asic_companies.file_info(LandingFile(tmp_path / path, member))
    assert (info.extract_date, info.declared_records) == (date, None)
