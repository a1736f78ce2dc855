"""The shared delimited-file reader: encodings, lines, headers, value checks, batching.

These use a small made-up register (``TOY``) declared the way a real source is, so each rule
of ``pipelines.ingest.delimited`` is tested once here rather than per source.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.identifiers import abn_is_valid, acn_is_valid, clean_identifier
from pipelines.ingest import delimited
from pipelines.ingest.base import Batch, LandingFile, SourceFileError
from pipelines.ingest.delimited import (
    DelimitedSpec,
    IdKind,
    clean_identifiers,
    date_from_name,
    parse_dates,
    parse_typed,
    read_delimited,
)

TOY_SCHEMA = pa.schema(
    [
        pa.field("name", pa.string(), nullable=False),
        pa.field("number", pa.string()),
        pa.field("start", pa.date32()),
        pa.field("note", pa.string()),
        pa.field("source_file", pa.string()),
        pa.field("source_line", pa.int64()),
    ]
)


# the same file with the identifier as the record's key (not null): it must pass its check digits
KEYED_NUMBER_SCHEMA = pa.schema(
    [f.with_nullable(False) if f.name == "number" else f for f in TOY_SCHEMA]
)


def toy_spec(**overrides: object) -> DelimitedSpec:
    settings: dict[str, object] = {
        "dataset": "Toy Register",
        "table": "toys",
        "schema": TOY_SCHEMA,
        "columns": {
            "TOY_NAME": "name",
            "TOY_ABN_ACN": "number",
            "TOY_START_DT": "start",
            "TOY_NOTE": "note",
        },
        "required": frozenset({"TOY_NAME", "TOY_START_DT"}),
        "dates": frozenset({"start"}),
        "identifiers": {"number": IdKind.ABN_OR_ACN},
        "delimiter": None,
    }
    settings.update(overrides)
    return DelimitedSpec(**settings)  # type: ignore[arg-type]


HEADER = "TOY_NAME\tTOY_ABN_ACN\tTOY_START_DT\tTOY_NOTE"


def write(tmp_path: Path, content: bytes, name: str = "toys.csv") -> LandingFile:
    path = tmp_path / name
    path.write_bytes(content)
    return LandingFile(path)


def read_all(file: LandingFile, spec: DelimitedSpec | None = None, **kwargs: int) -> Batch:
    """All batches of a file merged into one (rows in order)."""
    spec = spec or toy_spec()
    batches = list(read_delimited(file, spec, **kwargs))
    tables = [b.tables[spec.table] for b in batches]
    return Batch(
        tables={spec.table: pa.concat_tables(tables) if tables else spec.schema.empty_table()},
        quarantine=[q for b in batches for q in b.quarantine],
    )


def rows(batch: Batch, *columns: str) -> list[tuple[object, ...]]:
    table = batch.tables["toys"]
    return list(zip(*(table.column(c).to_pylist() for c in columns), strict=True))


# --- encodings and lines ----------------------------------------------------------------


def test_each_line_is_utf8_if_it_decodes_else_cp1252(tmp_path: Path) -> None:
    content = (
        HEADER.encode()
        + b"\n"
        + "CAFÉ UTF8\t\t01/01/2020\t\n".encode()
        + "CAFÉ CP1252 O’BRIEN\t\t01/01/2020\t\n".encode("cp1252")
        + b"UNDEFINED \x81 BYTE\t\t01/01/2020\t\n"
    )
    batch = read_all(write(tmp_path, content))
    assert rows(batch, "name") == [
        ("CAFÉ UTF8",),
        ("CAFÉ CP1252 O’BRIEN",),
        ("UNDEFINED \x81 BYTE",),
    ]


def test_utf16_file_with_bom_is_decoded(tmp_path: Path) -> None:
    text = HEADER + "\r\nNAME ONE\t\t02/03/2021\tñ\r\n"
    batch = read_all(write(tmp_path, text.encode("utf-16")))
    assert rows(batch, "name", "start", "note", "source_line") == [
        ("NAME ONE", dt.date(2021, 3, 2), "ñ", 2)
    ]


def test_utf16_without_bom_fails_the_file(tmp_path: Path) -> None:
    text = HEADER + "\nNAME ONE\t\t02/03/2021\t\n"
    with pytest.raises(SourceFileError, match="UTF-16 without a byte-order mark"):
        read_all(write(tmp_path, text.encode("utf-16-le")))


def test_binary_bytes_are_not_taken_for_utf16(tmp_path: Path) -> None:
    """Random bytes with a few NULs in the first line: not "UTF-16 without a BOM?"."""
    noise = bytes([0x41, 0x00, 0x42, 0x43, 0x44, 0x00, 0x00, 0x45] * 8 + [0x5A] * 40) + b"\n"
    with pytest.raises(SourceFileError, match="not a text file: 24 NUL bytes") as caught:
        read_all(write(tmp_path, noise))
    assert "UTF-16" not in str(caught.value)


def test_lone_carriage_return_is_data_and_line_numbers_hold(tmp_path: Path) -> None:
    content = (
        HEADER.encode()
        + b"\r\nA\t\t01/01/2020\tbefore\rafter\r\n"
        + b"B\t\t01/01/2020\tx\r\n"
        + b"C\t\tnot a date\tx\r\n"
        + b"D\tshort\r\n"
        + b"\r\n"
        + b"E\t\t01/01/2020\tend\r"
    )
    batch = read_all(write(tmp_path, content))
    assert rows(batch, "name", "note", "source_line") == [
        ("A", "before\rafter", 2),
        ("B", "x", 3),
        ("E", "end", 7),
    ]
    assert [(q.line, q.raw) for q in batch.quarantine] == [
        (4, "C\t\tnot a date\tx"),
        (5, "D\tshort"),
    ]


def test_last_line_without_newline_is_read(tmp_path: Path) -> None:
    batch = read_all(write(tmp_path, (HEADER + "\nA\t\t01/01/2020\tend").encode()))
    assert rows(batch, "note", "source_line") == [("end", 2)]


@pytest.mark.parametrize("read_size", [7, 64, 1 << 20])
def test_block_boundaries_do_not_change_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_size: int
) -> None:
    lines = [HEADER] + [f"NAME {i} {'x' * (i % 90)}\t\t01/01/2020\tCAFÉ" for i in range(300)]
    lines[57] = "BAD\t\t01/13/2020\t"
    content = "\ufeff" + "\r\n".join(lines) + "\r\n"
    monkeypatch.setattr(delimited, "_READ_SIZE", read_size)
    batch = read_all(write(tmp_path, content.encode()), batch_rows=40)
    assert batch.tables["toys"].column("source_line").to_pylist() == [
        n for n in range(2, 302) if n != 58
    ]
    assert batch.tables["toys"].column("name").to_pylist()[:2] == ["NAME 0", "NAME 1 x"]
    assert [(q.line, q.raw) for q in batch.quarantine] == [(58, "BAD\t\t01/13/2020\t")]


def test_blank_lines_are_neither_rows_nor_quarantined(tmp_path: Path) -> None:
    content = HEADER + "\r\n\r\nA\t\t01/01/2020\t\r\n   \r\n\t\t\t\r\nB\t\t01/01/2020\t\r\n\r\n"
    batch = read_all(write(tmp_path, content.encode()))
    assert rows(batch, "name", "source_line") == [("A", 3), ("B", 6)]
    assert batch.quarantine == []


# --- header -------------------------------------------------------------------------------


def test_columns_are_matched_by_name_in_any_order_and_extras_ignored(tmp_path: Path) -> None:
    content = "toy_start_dt\tEXTRA\tToy_Name\n01/01/2020\tignored\tA\n"
    batch = read_all(write(tmp_path, content.encode()))
    assert rows(batch, "name", "start", "number", "note") == [
        ("A", dt.date(2020, 1, 1), None, None)
    ]


def test_missing_required_column_names_missing_and_unexpected(tmp_path: Path) -> None:
    with pytest.raises(SourceFileError) as caught:
        read_all(write(tmp_path, b"TOY_NAME\tSTART\nA\t01/01/2020\n", "odd.csv"))
    message = str(caught.value)
    assert message.startswith("odd.csv: not the Toy Register header: missing required")
    assert "['TOY_START_DT']" in message and "['START']" in message


def test_duplicate_header_column_fails(tmp_path: Path) -> None:
    with pytest.raises(SourceFileError, match="duplicate header column"):
        read_all(write(tmp_path, b"TOY_NAME\tTOY_START_DT\tToy_Name\nA\t01/01/2020\tB\n"))


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "empty file \\(0 bytes\\)"), (b"\xef\xbb\xbf\r\n\r\n", "empty file \\(no header")],
    ids=["zero bytes", "BOM and blank lines only"],
)
def test_empty_file_fails_naming_it(tmp_path: Path, content: bytes, reason: str) -> None:
    with pytest.raises(SourceFileError, match=f"^toys.csv: {reason}"):
        read_all(write(tmp_path, content))


def test_header_only_file_yields_nothing(tmp_path: Path) -> None:
    assert list(read_delimited(write(tmp_path, (HEADER + "\r\n").encode()), toy_spec())) == []


@pytest.mark.parametrize("quoted", [False, True], ids=["unquoted", "quoted"])
def test_header_only_file_with_an_unexpected_column_quarantines_its_header(
    tmp_path: Path, quoted: bool
) -> None:
    """Issue 34: with rows, an extra header column either comes with every row (ignored) or
    quarantines every row; with none, the header line itself is quarantined, naming it."""
    header = HEADER + "\tEXTRA\tTOY_UNREAD"
    spec = toy_spec(quoted=quoted, unread=frozenset({"Toy_Unread"}))
    batch = read_all(write(tmp_path, (header + "\r\n\r\n").encode()), spec)
    assert batch.tables["toys"].num_rows == 0
    assert [(q.file, q.line, q.reason, q.raw) for q in batch.quarantine] == [
        (
            "toys.csv",
            1,
            "header only, no rows: the Toy Register header has unexpected column(s) ['EXTRA']",
            header,
        )
    ]


def test_delimiter_is_read_from_the_header(tmp_path: Path) -> None:
    content = "TOY_NAME,TOY_START_DT,TOY_NOTE\nA,01/01/2020,x\n"
    assert rows(read_all(write(tmp_path, content.encode())), "name", "note") == [("A", "x")]


# --- quoted files ---------------------------------------------------------------------------


def test_quoted_fields_may_span_lines_and_keep_the_start_line(tmp_path: Path) -> None:
    content = (
        '\ufeff"TOY_NAME","TOY_START_DT","TOY_NOTE"\r\n'
        '"A, with comma","01/01/2020","one"\r\n'
        '"B","02/01/2020","two\r\nlines"\r\n'
        '"C","bad","x"\r\n'
        '"D","03/01/2020"\r\n'
        '"E","04/01/2020","say ""hi"""\r\n'
    )
    spec = toy_spec(quoted=True)
    batch = read_all(write(tmp_path, content.encode()), spec)
    assert rows(batch, "name", "note", "source_line") == [
        ("A, with comma", "one", 2),
        ("B", "two\nlines", 3),
        ("E", 'say "hi"', 7),
    ]
    assert [(q.line, q.raw) for q in batch.quarantine] == [
        (5, '"C","bad","x"'),
        (6, '"D","03/01/2020"'),
    ]
    assert "expected 3 fields, found 2" in batch.quarantine[1].reason


# --- values ----------------------------------------------------------------------------------


IDENTIFIER_CASES = [
    "46004000006",
    "46 004 000 006",
    "46\u00a0004\u00a0000\u00a0006",
    " 46004000006 ",
    "46004000007",
    "004000006",
    "004 000 006",
    "004000007",
    "0",
    "00000000000",
    "000000000",
    "",
    "   ",
    "4600400000",
    "460040000066",
    "46O04000006",
    "١٢٣٤٥٦٧٨٩٠١",
    "51824753556",
    "123456780",
    "12345678901",
]


@pytest.mark.parametrize("kind", list(IdKind))
def test_identifier_checks_agree_with_the_identifiers_module(kind: IdKind) -> None:
    values, present, invalid = clean_identifiers(pa.array(IDENTIFIER_CASES, pa.string()), kind)
    expected = [clean_identifier(v) for v in IDENTIFIER_CASES]
    assert values.to_pylist() == expected
    assert present.tolist() == [v is not None for v in expected]

    def valid(v: str) -> bool:
        return {
            IdKind.ABN: abn_is_valid(v),
            IdKind.ACN: acn_is_valid(v),
            IdKind.ABN_OR_ACN: abn_is_valid(v) or acn_is_valid(v),
        }[kind]

    assert invalid.tolist() == [v is not None and not valid(v) for v in expected]


DATE_CASES = [
    ("01/01/2020", dt.date(2020, 1, 1), False),
    ("29/02/2024", dt.date(2024, 2, 29), False),
    ("29/02/2000", dt.date(2000, 2, 29), False),
    ("31/12/1899", dt.date(1899, 12, 31), False),
    ("", None, False),
    ("29/02/2021", None, True),
    ("29/02/1900", None, True),
    ("31/04/2020", None, True),
    ("00/01/2020", None, True),
    ("01/13/2020", None, True),
    ("1/2/2020", None, True),
    ("2020-01-01", None, True),
    ("01-01-2020", None, True),
    ("01/01/20", None, True),
    ("Permanent", None, True),
]


@pytest.mark.parametrize(
    ("text", "date", "bad"), DATE_CASES, ids=[c[0] or "empty" for c in DATE_CASES]
)
def test_dates_are_dd_mm_yyyy_calendar_dates(text: str, date: dt.date | None, bad: bool) -> None:
    values, invalid = parse_dates(pa.array(["01/01/2000", text, "", "02/02/2002"], pa.string()))
    assert values.to_pylist() == [dt.date(2000, 1, 1), date, None, dt.date(2002, 2, 2)]
    assert invalid.tolist() == [False, bad, False, False]


ISO_DATE_CASES = [
    ("2020-02-29", dt.date(2020, 2, 29), False),
    ("1999-12-31", dt.date(1999, 12, 31), False),
    ("2021-02-29", None, True),
    ("2020-13-01", None, True),
    ("2020-1-01", None, True),
    ("01/01/2020", None, True),
    ("2020/01/01", None, True),
]


@pytest.mark.parametrize(
    ("text", "date", "bad"), ISO_DATE_CASES, ids=[c[0] for c in ISO_DATE_CASES]
)
def test_iso_dates_are_yyyy_mm_dd_calendar_dates(
    text: str, date: dt.date | None, bad: bool
) -> None:
    values, invalid = parse_dates(pa.array(["2000-01-01", text, ""], pa.string()), "YYYY-MM-DD")
    assert values.to_pylist() == [dt.date(2000, 1, 1), date, None]
    assert invalid.tolist() == [False, bad, False]


@pytest.mark.parametrize(
    ("type_", "texts", "values", "bad"),
    [
        (pa.int64(), ["12", "", "-3", "1.5", "x"], [12, None, -3, None, None], [0, 0, 0, 1, 1]),
        (
            pa.float64(),
            ["1.5", "", "2", "1e3", "x"],
            [1.5, None, 2.0, 1000.0, None],
            [0, 0, 0, 0, 1],
        ),
        (
            pa.bool_(),
            ["true", "", "FALSE", "yes", "1"],
            [True, None, False, None, None],
            [0, 0, 0, 1, 1],
        ),
    ],
)
def test_typed_values_parse_or_are_bad(
    type_: pa.DataType, texts: list[str], values: list[object], bad: list[int]
) -> None:
    parsed, invalid = parse_typed(pa.array(texts, pa.string()), type_)
    assert parsed.type == type_
    assert parsed.to_pylist() == values
    assert invalid.tolist() == [bool(b) for b in bad]


def test_values_are_trimmed_and_empty_is_null(tmp_path: Path) -> None:
    content = HEADER + "\n  A \t\t 01/01/2020 \t\u00a0 \n"
    assert rows(read_all(write(tmp_path, content.encode())), "name", "start", "note") == [
        ("A", dt.date(2020, 1, 1), None)
    ]


def test_quarantine_lists_every_reason_for_a_row(tmp_path: Path) -> None:
    content = HEADER + "\n \t12345678901\t31/02/2020\tx\n"
    spec = toy_spec(
        schema=KEYED_NUMBER_SCHEMA, required=frozenset({"TOY_NAME", "TOY_ABN_ACN", "TOY_START_DT"})
    )
    [entry] = read_all(write(tmp_path, content.encode(), "t.csv"), spec).quarantine
    assert (entry.file, entry.line, entry.raw) == ("t.csv", 2, " \t12345678901\t31/02/2020\tx")
    assert entry.reason == (
        "empty TOY_NAME; invalid ABN or ACN in TOY_ABN_ACN: '12345678901'; "
        "bad date in TOY_START_DT (expected DD/MM/YYYY): '31/02/2020'"
    )


def test_a_listed_identifier_failing_its_check_digits_is_kept_as_listed(tmp_path: Path) -> None:
    """docs/decisions/19-a-records-own-identifier.md: a record is never quarantined for the identifier it lists alone;
    the identifier is kept as listed (cleaned) and the matching finds it names no entity. A key
    identifier (the record's own, not null) is still checked: KEYED_NUMBER_SCHEMA above."""
    content = HEADER + "\nA\t12 345 678 901\t01/02/2020\tx\nB\t51824753556\t01/02/2020\t\n"
    batch = read_all(write(tmp_path, content.encode(), "t.csv"))
    assert batch.quarantine == []
    assert rows(batch, "name", "number") == [("A", "12345678901"), ("B", "51824753556")]


# --- batching ------------------------------------------------------------------------------


def test_batches_hold_batch_rows_rows_and_each_quarantined_row_once(tmp_path: Path) -> None:
    lines = [HEADER] + [f"N{i}\t\t01/01/2020\t" for i in range(7)]
    lines[3] = "BAD\t\tnope\t"
    batches = list(
        read_delimited(write(tmp_path, "\n".join(lines).encode()), toy_spec(), batch_rows=2)
    )
    assert [b.rows for b in batches] == [2, 2, 2]
    assert [q.line for b in batches for q in b.quarantine] == [4]
    lines_read = [n for b in batches for n in b.tables["toys"].column("source_line").to_pylist()]
    assert lines_read == [2, 3, 5, 6, 7, 8]
    assert all(b.tables["toys"].schema == TOY_SCHEMA for b in batches)


def test_a_file_of_only_bad_rows_yields_its_quarantine(tmp_path: Path) -> None:
    [batch] = read_delimited(write(tmp_path, (HEADER + "\nA\tB\n").encode()), toy_spec())
    assert batch.tables["toys"].num_rows == 0 and batch.tables["toys"].schema == TOY_SCHEMA
    assert [(q.line, q.reason) for q in batch.quarantine] == [(2, "expected 4 fields, found 2")]


# --- spec and file names ----------------------------------------------------------------------


def test_spec_must_cover_the_schema() -> None:
    with pytest.raises(ValueError, match="schema columns without a header: \\['note'\\]"):
        toy_spec(columns={"TOY_NAME": "name", "TOY_ABN_ACN": "number", "TOY_START_DT": "start"})


def test_not_null_column_must_come_from_a_required_header() -> None:
    with pytest.raises(ValueError, match="not-null column name"):
        toy_spec(required=frozenset({"TOY_START_DT"}))


@pytest.mark.parametrize(
    ("name", "date"),
    [
        ("company_202410.csv", dt.date(2024, 10, 1)),
        ("COMPANY_201505.zip", dt.date(2015, 5, 1)),
        ("company_20241027.csv", dt.date(2024, 10, 27)),
        ("company_202413.csv", None),
        ("company_2024100.csv", None),
        ("companies_202410.csv", None),
        ("company.csv", None),
    ],
)
def test_date_from_name(name: str, date: dt.date | None) -> None:
    assert date_from_name(name, "company") == date
