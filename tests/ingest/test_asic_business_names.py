"""ASIC Business Names Dataset parser against fixtures in the publisher's real byte formats."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.ingest import asic_business_names
from pipelines.ingest.base import Batch, LandingFile, SourceFileError
from pipelines.ingest.tables import ASIC_BUSINESS_NAMES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "asic_business_names"


def parse_all(file: LandingFile) -> Batch:
    batches = list(asic_business_names.parse(file))
    for batch in batches:
        assert set(batch.tables) == {"business_names"}
        assert batch.tables["business_names"].schema == ASIC_BUSINESS_NAMES.schema
    tables = [b.tables["business_names"] for b in batches]
    return Batch(
        tables={"business_names": pa.concat_tables(tables)},
        quarantine=[q for b in batches for q in b.quarantine],
    )


def fixture(name: str) -> LandingFile:
    return LandingFile(FIXTURES / name)


def test_current_file_loads_with_names_trimmed() -> None:
    batch = parse_all(fixture("BUSINESS_NAMES_202410.csv"))
    assert batch.quarantine == []
    table = batch.tables["business_names"]
    assert table.column("bn_name").to_pylist() == [
        "ACME PLUMBING",
        '"JOE\'S" PIZZA & CAFÉ',  # a " is literal; UTF-8 decoded
        "OLD TRADING NAME",
        "NEW STATUS CO",
        "ZERO ABN",
    ]
    assert table.column("source_line").to_pylist() == [2, 3, 4, 5, 6]
    assert table.to_pylist()[1] == {
        "register_name": "BUSINESS NAMES",
        "bn_name": '"JOE\'S" PIZZA & CAFÉ',
        "bn_status": "Cancelled",
        "bn_reg_dt": dt.date(2012, 6, 1),
        "bn_cancel_dt": dt.date(2020, 3, 15),
        "bn_state_num": "B2167404E",
        "bn_state_of_reg": "VIC",
        "bn_abn": "23008085283",
        "source_file": "BUSINESS_NAMES_202410.csv",
        "source_line": 3,
    }


def test_statuses_are_kept_as_published() -> None:
    table = parse_all(fixture("BUSINESS_NAMES_202410.csv")).tables["business_names"]
    assert table.column("bn_status").to_pylist() == [
        "Registered",
        "Cancelled",
        "Deregistered",
        "Suspended",
        "Registered",
    ]


def test_missing_abn_spellings_are_null() -> None:
    table = parse_all(fixture("BUSINESS_NAMES_202410.csv")).tables["business_names"]
    assert table.column("bn_abn").to_pylist() == [
        "46004000006",
        "23008085283",
        None,  # empty
        "79600327106",
        None,  # 00000000000
    ]


def test_bad_rows_are_quarantined_at_their_lines() -> None:
    """A registration whose listed ABN fails its check digits is kept as listed (docs/decisions/19-a-records-own-identifier.md: the matching finds it names no entity and matches it by name); the rest of
    the malformed rows are quarantined."""
    physical = (FIXTURES / "business_names_bad_rows.csv").read_bytes().split(b"\r\n")
    batch = parse_all(fixture("business_names_bad_rows.csv"))
    table = batch.tables["business_names"]
    assert table.column("bn_name").to_pylist() == ["GOOD NAME ONE", "BAD ABN", "GOOD NAME TWO"]
    assert table.column("bn_abn").to_pylist() == ["46004000006", "12345678902", None]
    assert table.column("source_line").to_pylist() == [2, 4, 7]
    assert [(q.line, q.reason) for q in batch.quarantine] == [
        (3, "empty BN_NAME"),
        (5, "bad date in BN_REG_DT (expected DD/MM/YYYY): '32/01/2020'"),
        (6, "expected 8 fields, found 7"),
    ]
    for entry in batch.quarantine:
        assert entry.file == "business_names_bad_rows.csv"
        assert entry.raw == physical[entry.line - 1].decode("utf-8")


def test_columns_are_read_by_name_and_extra_columns_ignored() -> None:
    # older layout: a BN_RENEW_DT column, BN_ABN before BN_STATE_OF_REG, LF, no BOM
    [row] = parse_all(fixture("business_names_201901.csv")).tables["business_names"].to_pylist()
    assert row["bn_name"] == "RENEWING TRADER"
    assert (row["bn_abn"], row["bn_state_of_reg"]) == ("46004000006", "QLD")
    assert (row["bn_reg_dt"], row["bn_cancel_dt"]) == (dt.date(2013, 3, 3), None)


def test_a_company_file_is_not_a_business_names_file() -> None:
    company = Path(__file__).parents[1] / "fixtures" / "asic_companies" / "company_202410.csv"
    with pytest.raises(SourceFileError) as caught:
        parse_all(LandingFile(company))
    assert caught.value.file == "company_202410.csv"
    assert "missing required column(s) ['REGISTER_NAME', 'BN_NAME'" in caught.value.reason
    assert "unexpected column(s) ['Company Name', 'ACN'" in caught.value.reason


def test_zip_member_is_read(tmp_path: Path) -> None:
    archive = tmp_path / "BUSINESS_NAMES_202410.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(FIXTURES / "BUSINESS_NAMES_202410.csv", arcname="BUSINESS_NAMES_202410.csv")
    table = parse_all(LandingFile(archive, "BUSINESS_NAMES_202410.csv")).tables["business_names"]
    assert table.num_rows == 5
    assert (
        table.column("source_file")[0].as_py()
        == "BUSINESS_NAMES_202410.zip!BUSINESS_NAMES_202410.csv"
    )


@pytest.mark.parametrize(
    ("name", "date"),
    [
        ("BUSINESS_NAMES_202410.csv", dt.date(2024, 10, 1)),
        ("business_names_20241027.csv", dt.date(2024, 10, 27)),
        ("business_names_202410_current.csv", dt.date(2024, 10, 1)),
        ("business_names.csv", None),
    ],
)
def test_file_info_takes_the_date_from_the_name(name: str, date: dt.date | None) -> None:
    info = asic_business_names.file_info(LandingFile(Path(name)))
    assert (info.extract_date, info.declared_records) == (date, None)
