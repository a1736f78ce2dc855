"""Project-format CSV files (LANDING.md B), read through one generic declared parser."""

from __future__ import annotations

import codecs
import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.ingest import tables
from pipelines.ingest.base import Batch, LandingFile, SourceFileError
from pipelines.ingest.files import matches
from pipelines.ingest.sources import SOURCES

ABN = "53004085616"  # valid check digits
ABN_2 = "51824753556"
ACN = "004085616"


def write(tmp_path: Path, name: str, text: str, bom: bool = False) -> LandingFile:
    path = tmp_path / name
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8"))
    return LandingFile(path)


def parse(source: str, file: LandingFile) -> Batch:
    declared = SOURCES[source]
    (key, raw), *_ = declared.tables.items()
    batches = [batch for _, batch in declared.parse([file], None, None)]
    for batch in batches:
        assert batch.tables[key].schema == raw.schema
    parts = [b.tables[key] for b in batches]
    return Batch(
        tables={key: pa.concat_tables(parts) if parts else raw.schema.empty_table()},
        quarantine=[q for b in batches for q in b.quarantine],
    )


def rows(batch: Batch) -> list[dict[str, object]]:
    (table,) = batch.tables.values()
    return table.to_pylist()


def test_columns_in_any_order_extra_ignored_bom_quotes_and_iso_dates(tmp_path: Path) -> None:
    text = (
        "summary,record_id,url,regulator,abn,entity_name,action_type,severity,status,"
        "action_date,resolved_date,internal_note\r\n"
        '"Misled consumers, twice\r\nabout ""free"" delivery",R-1,,accc,53 004 085 616,'
        "ACME  PTY LTD,INFRINGEMENT_NOTICE,HIGH,ACTIVE,2024-02-29,,ignored\r\n"
        "Late payments,R-2,https://example.org/r2,QBCC,00000000000,BUILDER CO,Fine,LOW,"
        "RESOLVED,2023-01-05,2023-06-30,also ignored\r\n"
    )
    batch = parse("adverse", write(tmp_path, "ACCC.csv", text, bom=True))
    assert batch.quarantine == []
    first, second = rows(batch)
    assert first["regulator"] == "accc"  # codes kept as published; staging upper-cases
    assert first["summary"] == 'Misled consumers, twice\nabout "free" delivery'
    assert first["abn"] == ABN  # spaces removed
    assert first["action_date"] == dt.date(2024, 2, 29)
    assert first["resolved_date"] is None and first["url"] is None  # empty -> null
    assert (first["source_file"], first["source_line"]) == ("ACCC.csv", 2)
    assert second["abn"] is None  # all zeros: no ABN
    assert second["resolved_date"] == dt.date(2023, 6, 30)
    assert second["source_line"] == 4  # the quoted record spanned lines 2 and 3
    assert "internal_note" not in batch.tables["records"].column_names


def test_missing_column_fails_the_file_naming_file_and_column(tmp_path: Path) -> None:
    text = "acn,person_name,role,appointed_date,ceased_date,extracted_date\n"
    text += f'{ACN},"SMITH, JANE",DIRECTOR,2020-01-01,,2024-06-30\n'
    with pytest.raises(SourceFileError, match="birth_date") as error:
        parse("directors", write(tmp_path, "officeholders_2024.csv", text))
    assert "officeholders_2024.csv" in str(error.value)


def test_bad_date_bad_identifiers_and_empty_key_are_quarantined_with_line(
    tmp_path: Path,
) -> None:
    text = "acn,person_name,role,appointed_date,ceased_date,birth_date,extracted_date\n"
    text += f'{ACN},"SMITH, JANE",DIRECTOR,2020-01-01,,1970-05-17,2024-06-30\n'
    text += f'{ACN},"JONES, BOB",SECRETARY,31/01/2020,,,2024-06-30\n'  # not ISO
    text += f'{ACN},"BROWN, ANN",DIRECTOR,2020-02-30,,,2024-06-30\n'  # no such day
    text += '004085617,"GREEN, AL",DIRECTOR,2021-01-01,,,2024-06-30\n'  # bad check digit
    text += ',"NOBODY, X",DIRECTOR,2021-01-01,,,2024-06-30\n'  # no ACN: a key column
    batch = parse("directors", write(tmp_path, "officeholders_2024.csv", text))
    assert [r["person_name"] for r in rows(batch)] == ["SMITH, JANE"]
    assert rows(batch)[0]["birth_date"] == dt.date(1970, 5, 17)
    reasons = {q.line: q.reason for q in batch.quarantine}
    assert sorted(reasons) == [3, 4, 5, 6]
    assert "bad date in appointed_date (expected YYYY-MM-DD): '31/01/2020'" in reasons[3]
    assert "bad date in appointed_date" in reasons[4]
    assert "invalid ACN in acn" in reasons[5]
    assert "empty acn" in reasons[6]
    assert all(q.file == "officeholders_2024.csv" for q in batch.quarantine)


def test_bad_abn_is_quarantined(tmp_path: Path) -> None:
    text = "abn,anzsic_code,anzsic_description\n"
    text += f"{ABN},3101,Road and Bridge Construction\n"
    text += "12345678901,3101,Road and Bridge Construction\n"
    text += f"{ABN_2},,\n"
    batch = parse("industry", write(tmp_path, "abn_industry.csv", text))
    assert [r["abn"] for r in rows(batch)] == [ABN, ABN_2]
    ((bad,),) = [batch.quarantine]
    assert (bad.line, bad.raw) == (3, "12345678901,3101,Road and Bridge Construction")
    assert "invalid ABN in abn: '12345678901'" in bad.reason


@pytest.mark.parametrize(
    ("source", "name", "layout"),
    [
        ("directors", "officeholders.csv", tables.DIRECTORS_OFFICEHOLDERS),
        ("adverse", "FWO.csv", tables.ADVERSE_RECORDS),
        ("gazette", "notices_2024.csv", tables.GAZETTE_NOTICES),
        ("licences", "QBCC_licences.csv", tables.LICENCES_LICENCES),
        ("industry", "abn_industry.csv", tables.INDUSTRY_ABN_INDUSTRY),
        ("ppsr", "registrations.csv", tables.PPSR_REGISTRATIONS),
        ("registers", "TAX_PRACTITIONERS.csv", tables.REGISTERS_RECORDS),
    ],
)
def test_every_project_source_reads_its_documented_header(
    tmp_path: Path, source: str, name: str, layout: tables.Layout
) -> None:
    columns = {c.name: c.kind for c in layout.loaded}
    sample = {"date": "2024-01-31", "abn": ABN, "acn": ACN}
    header = ",".join(reversed(list(columns)))
    values = ",".join(
        sample.get(kind, f"x{i}") for i, kind in enumerate(reversed(columns.values()))
    )
    file = write(tmp_path, name, f"{header}\n{values}\n")
    assert matches(name, SOURCES[source].patterns)
    batch = parse(source, file)
    assert batch.quarantine == []
    (row,) = rows(batch)
    for column, kind in columns.items():
        if kind == "date":
            assert row[column] == dt.date(2024, 1, 31)
        elif kind in sample:
            assert row[column] == sample[kind]


def test_header_only_file_loads_nothing(tmp_path: Path) -> None:
    file = write(tmp_path, "notices.csv", ",".join(tables.GAZETTE_NOTICES.header) + "\n")
    assert rows(parse("gazette", file)) == []
