"""A raw table is declared once (tables.Layout): its Arrow schema, the parser's spec and the
header the sample generator writes all derive from the declaration, so a column added there
reaches each of them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.ingest import project_csv, public_registers
from pipelines.ingest import tables as t
from pipelines.ingest.base import LandingFile, SourceFileError
from pipelines.ingest.delimited import IdKind, declared_spec, read_delimited
from pipelines.ingest.sources import SOURCES, raw_table

ABN = "51824753556"


def _with(layout: t.Layout, *columns: t.Column) -> t.Layout:
    return dataclasses.replace(layout, columns=(*layout.columns, *columns))


def test_a_project_column_added_to_the_declaration_is_parsed_typed_and_written(
    tmp_path: Path,
) -> None:
    kinds = {c.name: c.kind for c in t.GAZETTE_NOTICES.loaded}
    layout = t.project_layout({**kinds, "court": "code", "hearing_date": "date"}, ("notice_id",))
    assert layout.header == (*t.GAZETTE_NOTICES.header, "court", "hearing_date")
    assert layout.schema.field("court").metadata == {b"bvs.encoding": b"dictionary"}
    assert layout.schema.field("hearing_date").type == pa.date32()
    assert layout.schema.names[-2:] == ["source_file", "source_line"]

    parse = project_csv.parser("gazette notices", "notices", layout)
    path = tmp_path / "notices.csv"
    values = {"notice_id": "N1", "abn": ABN, "court": "FCA", "hearing_date": "2026-03-02"}
    path.write_text(
        ",".join(layout.header) + "\n" + ",".join(values.get(h, "") for h in layout.header) + "\n"
    )
    (batch,) = parse(LandingFile(path))
    (row,) = batch.tables["notices"].to_pylist()
    assert (row["court"], str(row["hearing_date"])) == ("FCA", "2026-03-02")

    # the declared column is required in the header: a file without it fails, naming it
    path.write_text(",".join(t.GAZETTE_NOTICES.header) + "\nN1" + "," * 7 + "\n")
    with pytest.raises(SourceFileError, match="court"):
        list(parse(LandingFile(path)))


def test_a_register_column_added_to_the_declaration_reaches_the_spec(tmp_path: Path) -> None:
    layout = _with(
        t.ASIC_BANNED_PERSONS,
        t.Column("bd_per_review_dt", "date", "BD_PER_REVIEW_DT", optional=True),
        t.Column("bd_per_abn", "abn", "BD_PER_ABN"),
        *t.unread("BD_PER_NOTE"),
    )
    spec = declared_spec("banned persons", "banned_persons", layout, delimiter=None, quoted=True)
    assert spec.columns["BD_PER_REVIEW_DT"] == "bd_per_review_dt"
    assert "BD_PER_REVIEW_DT" not in spec.required and "BD_PER_ABN" in spec.required
    assert "bd_per_review_dt" in spec.dates
    assert spec.identifiers == {"bd_per_abn": IdKind.ABN}
    # an unread column is in the file's header only
    assert layout.header[-1] == "BD_PER_NOTE"
    assert "BD_PER_NOTE" not in spec.columns and "bd_per_note" not in layout.schema.names

    header = list(layout.header)
    row = dict.fromkeys(header, "")
    row |= {"BD_PER_NAME": "SMITH, JO", "BD_PER_REVIEW_DT": "02/03/2026", "BD_PER_ABN": "1"}
    path = tmp_path / "bd_per.csv"
    path.write_text(
        ",".join(f'"{h}"' for h in header) + "\n" + ",".join(f'"{row[h]}"' for h in header) + "\n"
    )
    (batch,) = read_delimited(LandingFile(path), spec)
    # the ABN fails its check digits: a listed identifier, kept as listed (docs/decisions/19-a-records-own-identifier.md)
    assert batch.tables["banned_persons"].column("bd_per_abn").to_pylist() == ["1"]
    assert batch.quarantine == []


def test_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        t.Column("x", "money")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="declared twice"):
        t.layout(t.Column("x"), t.Column("x"))
    with pytest.raises(ValueError, match="key columns not declared"):
        t.project_layout({"a": "text"}, key=("b",))


def test_every_source_table_is_read_by_its_declared_layout() -> None:
    """The specs the parsers use are the declarations' (no column list of their own)."""
    specs = {
        spec.table: spec
        for spec in (
            public_registers.BANNED_PERSONS,
            public_registers.BANNED_ORGANISATIONS,
            public_registers.AFS_LICENSEES,
            public_registers.CREDIT_LICENSEES,
            public_registers.LIQUIDATORS,
            public_registers.FINANCIAL_ADVISERS,
            public_registers.CHARITIES,
            public_registers.ASX_LISTED,
        )
    }
    for source in SOURCES.values():
        for key, table in source.tables.items():
            assert table.schema == table.layout.schema
            if key in specs:
                read = {c.header: c.name for c in table.layout.loaded if c.header}
                assert dict(specs[key].columns) == read
    assert len(t.ASIC_FINANCIAL_ADVISERS.header) == 76  # the published file's width
    assert len(t.ASIC_FINANCIAL_ADVISERS.loaded) == 12  # the columns LANDING.md names


def test_key_identifier_columns_of_a_declaration_get_check_digit_checks() -> None:
    """A key identifier (the record's own identity) is checked; one a record only lists is
    kept as listed (docs/decisions/19-a-records-own-identifier.md) and gets no blocking check."""
    layout = _with(
        t.GAZETTE_NOTICES,
        t.Column("liquidator_abn", "abn", key=True),
        t.Column("holding_acn", "acn", key=True),
    )
    checks = raw_table("gazette__notices", layout, "notices", key=("notice_id",)).checks
    assert checks.abn_columns == ("liquidator_abn",)
    assert checks.acn_columns == ("holding_acn",)
    assert SOURCES["gazette"].tables["notices"].checks.abn_columns == ()
    assert SOURCES["abr"].tables["abns"].checks.abn_columns == ("abn",)
    assert SOURCES["asic_companies"].tables["companies"].checks.acn_columns == ("acn",)
