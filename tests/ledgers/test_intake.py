"""Reading a finance team's ledger: every spreadsheet fault, row by row (no warehouse)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipelines.ledgers.intake import LedgerError, read_ledger
from pipelines.ledgers.resolve import NameResolution
from pipelines.ledgers.suppliers import NO_SNAPSHOT_REASON, supplier_rows

ACME = "53004085616"  # valid
SOLE = "51824753556"  # valid
HEADER = "supplier_ref,abn,supplier_name,state,postcode,annual_spend_aud,gst_charged"


def write(tmp_path: Path, text: str, *, encoding: str = "utf-8", name: str = "l.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def rows_of(path: Path) -> dict[str, dict[str, Any]]:
    return {
        r["supplier_ref"] or f"#{r['line']}": r
        for r in read_ledger(path).rows.iter_rows(named=True)
    }


def one(tmp_path: Path, line: str, header: str = HEADER) -> dict[str, Any]:
    parsed = read_ledger(write(tmp_path, f"{header}\n{line}\n"))
    assert parsed.rows.height == 1
    return parsed.rows.row(0, named=True)


# ----------------------------------------------------------------------------------- ABNs


@pytest.mark.parametrize(
    ("given", "abn", "issues"),
    [
        pytest.param(ACME, ACME, [], id="11 digits"),
        pytest.param("53 004 085 616", ACME, [], id="with spaces"),
        pytest.param("53-004-085-616", ACME, [], id="with hyphens"),
        pytest.param("'53004085616", ACME, [], id="leading apostrophe (Excel text mark)"),
        pytest.param("53004085616.0", ACME, [], id="a number cell written with .0"),
        pytest.param(
            "5.3004085616E+10",
            None,
            ["spreadsheet_number"],
            id="scientific notation is never guessed",
        ),
        pytest.param(
            "5.30041E+10", None, ["spreadsheet_number"], id="scientific notation, digits lost"
        ),
        pytest.param("53004085617", None, ["abn_check_digit"], id="wrong check digit"),
        pytest.param("5300408561", None, ["abn_not_11_digits"], id="ten digits"),
        pytest.param("ABN pending", None, ["abn_not_11_digits"], id="words"),
        pytest.param("", None, [], id="empty means no ABN"),
        pytest.param("0", None, [], id="0 means no ABN"),
        pytest.param("00000000000", None, [], id="zeros mean no ABN"),
        pytest.param("N/A", None, [], id="N/A means no ABN"),
        pytest.param("tba", None, [], id="TBA means no ABN"),
    ],
)
def test_abn_spellings(tmp_path: Path, given: str, abn: str | None, issues: list[str]) -> None:
    row = one(tmp_path, f'S1,"{given}",Acme Pty Ltd,QLD,4000,,')
    assert row["abn"] == abn
    assert row["issues"] == issues
    assert row["abn_given"] == (given or None)


def test_a_spreadsheet_number_says_it_cannot_be_recovered(tmp_path: Path) -> None:
    row = one(tmp_path, "S1,5.1824753556E+10,Acme,QLD,4000,,")
    assert row["issue_text"] == [
        "the ABN was turned into a number by a spreadsheet (5.1824753556E+10) and its digits"
        " cannot be recovered: export the ABN column as text"
    ]


# --------------------------------------------------------------------------------- values


@pytest.mark.parametrize(
    ("given", "amount"),
    [
        ("75000", 75000.0),
        ('"$75,000.00"', 75000.0),
        ('"A$1,234.50"', 1234.5),
        ('"AUD 12 000"', 12000.0),
        ('"(1,200.00)"', -1200.0),
        ("-50", -50.0),
        ("", None),
    ],
)
def test_amounts(tmp_path: Path, given: str, amount: float | None) -> None:
    row = one(tmp_path, f"S1,{ACME},Acme,QLD,4000,{given},")
    assert row["annual_spend_aud"] == amount
    assert row["issues"] == []


def test_an_amount_that_is_not_one_needs_review(tmp_path: Path) -> None:
    row = one(tmp_path, f"S1,{ACME},Acme,QLD,4000,about 3k,")
    assert row["annual_spend_aud"] is None
    assert row["issues"] == ["bad_amount"]


@pytest.mark.parametrize(
    ("given", "value"),
    [("true", True), ("Yes", True), ("Y", True), ("1", True), ("FALSE", False), ("no", False),
     ("N", False), ("0", False), ("", None)],
)  # fmt: skip
def test_booleans(tmp_path: Path, given: str, value: bool | None) -> None:
    row = one(tmp_path, f"S1,{ACME},Acme,QLD,4000,,{given}")
    assert row["gst_charged"] is value
    assert row["issues"] == []


@pytest.mark.parametrize(
    ("state", "postcode", "clean_state", "clean_postcode", "issues"),
    [
        ("qld", "4000", "QLD", "4000", []),
        ("New South Wales", "2000", "NSW", "2000", []),
        ("NT", "800", "NT", "0800", []),  # a spreadsheet dropped the leading zero
        ("", "", None, None, []),
        ("XYZ", "4000", None, "4000", ["unknown_state"]),
        ("QLD", "40000", "QLD", None, ["bad_postcode"]),
    ],
)
def test_states_and_postcodes(
    tmp_path: Path, state: str, postcode: str, clean_state: str | None,
    clean_postcode: str | None, issues: list[str],
) -> None:  # fmt: skip
    row = one(tmp_path, f"S1,{ACME},Acme,{state},{postcode},,")
    assert (row["state"], row["postcode"], row["issues"]) == (clean_state, clean_postcode, issues)


# ------------------------------------------------------------------------------ file shape


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("cp1252", b""), ("utf-16", b"")],
)
def test_encodings(tmp_path: Path, encoding: str, bom: bytes) -> None:
    text = f"{HEADER}\r\nS1,{ACME},CAFÉ NOËL PTY LTD,QLD,4000,,\r\n"
    path = tmp_path / "l.csv"
    path.write_bytes(bom + text.encode(encoding))
    parsed = read_ledger(path)
    assert parsed.rows["supplier_name"].to_list() == ["CAFÉ NOËL PTY LTD"]
    assert parsed.columns_found[0] == "supplier_ref"  # the BOM is not part of the first name


def test_header_names_in_any_case_and_delimiter(tmp_path: Path) -> None:
    text = (
        "Supplier Ref;ABN;Supplier Name;Annual Spend (AUD);GST Charged;Notes\n"
        f"S1;{ACME};Acme;1000;Y;call first\n"
    )
    row = read_ledger(write(tmp_path, text)).rows.row(0, named=True)
    assert (row["supplier_ref"], row["abn"], row["annual_spend_aud"], row["gst_charged"]) == (
        "S1", ACME, 1000.0, True,
    )  # fmt: skip


def test_blank_lines_totals_and_line_numbers(tmp_path: Path) -> None:
    text = (
        f"{HEADER}\n"
        f'S1,{ACME},Acme,QLD,4000,"$1,000.00",Y\n'
        "\n"
        ",,,,,,\n"
        f'S2,{SOLE},"Jane ""JJ"" Citizen\nTrading",VIC,3000,500,N\n'
        f"S3,{SOLE},Jane again,VIC,3000,,\n"
        'TOTAL,,,,,"$1,500.00",\n'
    )
    parsed = read_ledger(write(tmp_path, text))
    assert parsed.rows["line"].to_list() == [2, 5, 7]  # S2's quoted name spans two lines
    assert parsed.blank_lines == 2
    assert parsed.ignored == [
        {"line": 8, "reason": "a totals row, not a supplier (no ABN)", "held": "TOTAL | $1,500.00"}
    ]
    assert parsed.rows["supplier_name"][1] == 'Jane "JJ" Citizen\nTrading'


def test_duplicates_are_reported_against_the_first_line(tmp_path: Path) -> None:
    text = (
        f"{HEADER}\n"
        f"S1,{ACME},Acme,QLD,4000,,\n"
        f"S1,{SOLE},Jane,VIC,3000,,\n"
        f"S2,{ACME},Acme again,QLD,4000,,\n"
    )
    rows = read_ledger(write(tmp_path, text)).rows.sort("line").to_dicts()
    assert [r["issue_text"] for r in rows] == [
        [],
        ["the supplier_ref S1 is also on line 2"],
        ["the same ABN as line 2 (supplier_ref S1)"],
    ]


def test_a_row_with_more_fields_than_the_header_is_kept_and_flagged(tmp_path: Path) -> None:
    row = one(tmp_path, f"S1,{ACME},Acme,QLD,4000,10,Y,stray,fields")
    assert row["abn"] == ACME and row["issues"] == ["ragged_row"]
    # trailing empty cells (a spreadsheet's padding) are not a fault
    assert one(tmp_path, f"S1,{ACME},Acme,QLD,4000,10,Y,,")["issues"] == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(b"", "empty file", id="empty"),
        pytest.param(b"\n\n", "empty file", id="blank lines only"),
        pytest.param(
            b"ref,notes\nS1,Acme\n",
            "no 'abn' and no 'supplier_name' column",
            id="no abn, no name",
        ),
        pytest.param(b"ref,name\nS1,Acme\n", "no 'abn' column", id="no abn"),
        pytest.param(
            b"abn,notes\n53004085616,Acme\n", "no 'supplier_name' column", id="no supplier_name"
        ),
        pytest.param(f"{HEADER}\n".encode(), "no supplier row", id="header only"),
        pytest.param(f"{HEADER}\nTotal,,,,,100,\n".encode(), "no supplier row", id="totals only"),
        pytest.param(
            b"\x81\x8d\x8f\x90\x9d abn,supplier_name",
            "unknown encoding",
            id="bytes of no known encoding",
        ),
        pytest.param(b"abn,supplier_name\x00\x00\n", "NUL", id="binary"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_naming_it(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "refused.csv"
    path.write_bytes(content)
    with pytest.raises(LedgerError, match=message) as raised:
        read_ledger(path)
    assert str(path) in str(raised.value)


def test_an_xlsx_that_is_not_a_workbook_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, f"{HEADER}\n", name="ledger.xlsx")
    with pytest.raises(LedgerError, match="not a readable .xlsx workbook"):
        read_ledger(path)


def test_xlsx_first_sheet_number_cells_blank_rows_and_totals(tmp_path: Path) -> None:
    import xlsxwriter

    path = tmp_path / "vendors.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Vendors")
    sheet.write_row(
        1, 0, ["Supplier Ref", "ABN", "Supplier Name", "Annual Spend AUD", "GST charged"]
    )
    sheet.write_row(2, 0, ["V1", int(ACME), "Acme", 75000, True])  # an ABN in a number cell
    sheet.write_row(4, 0, ["V2", "51 824 753 556", "Jane", "$1,200.00", "no"])
    sheet.write_row(5, 0, ["Total", None, None, 76200, None])
    book.add_worksheet("Notes").write_row(0, 0, ["supplier_ref", "abn", "supplier_name"])
    book.close()
    parsed = read_ledger(path)
    rows = parsed.rows.to_dicts()
    assert [
        (r["line"], r["supplier_ref"], r["abn"], r["annual_spend_aud"], r["gst_charged"])
        for r in rows
    ] == [
        (3, "V1", ACME, 75000.0, True),
        (5, "V2", SOLE, 1200.0, False),
    ]
    assert parsed.blank_lines == 2  # row 1 above the header and row 4
    assert parsed.ignored == [
        {"line": 6, "reason": "a totals row, not a supplier (no ABN)", "held": "Total | 76200"}
    ]


# ------------------------------------------------------------------------- resolution


def _ledger(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        f"{HEADER}\n"
        f"S1,{ACME},Acme,QLD,4000,,\n"
        "S2,,Found Once Pty Ltd,QLD,4000,,\n"
        "S3,,Twice Trading,QLD,4000,,\n"
        "S4,,Nobody,QLD,4000,,\n"
        "S5,53004085617,Found Once Pty Ltd,QLD,4000,,\n"
        f"S6,{ACME},Acme dup,XX,4000,,\n"
        ",,,,,,\n"
        ",,,QLD,,12,\n",
    )


def test_each_row_is_verified_resolved_by_name_or_needs_review(tmp_path: Path) -> None:
    parsed = read_ledger(_ledger(tmp_path))
    candidates = [{"abn": "11111111111", "score": 1.0}, {"abn": "22222222222", "score": 0.95}]
    resolutions = {
        "Found Once Pty Ltd": NameResolution(
            "Found Once Pty Ltd", SOLE, 1, [{"abn": SOLE, "score": 1.0}]
        ),
        "Twice Trading": NameResolution("Twice Trading", None, 2, candidates),
        "Nobody": NameResolution("Nobody", None, 0, []),
    }
    rows = {r["supplier_key"]: r for r in supplier_rows(parsed, resolutions).iter_rows(named=True)}
    assert {k: (r["resolution"], r["abn"]) for k, r in rows.items()} == {
        "S1": ("verified", ACME),
        "S2": ("resolved_by_name", SOLE),
        "S3": ("needs_review", None),
        "S4": ("needs_review", None),
        "S5": ("needs_review", None),  # a wrong check digit is never replaced by a name match
        "S6": ("needs_review", ACME),  # still verified by its ABN, for the review
        "#line9": ("needs_review", None),
    }
    assert "2 registered businesses have a name at least 90% similar" in rows["S3"]["review_reason"]
    assert "no registered name is at least 90% similar" in rows["S4"]["review_reason"]
    assert "check-digit" in rows["S5"]["review_reason"]
    assert rows["S6"]["review_reason"] == (
        "the same ABN as line 2 (supplier_ref S1); unknown state 'XX' (one of NSW, VIC, QLD,"
        " WA, SA, TAS, ACT, NT)"
    )
    assert rows["#line9"]["review_reason"] == "no ABN and no supplier name"


def test_without_a_snapshot_names_wait_for_the_next_run(tmp_path: Path) -> None:
    rows = supplier_rows(read_ledger(_ledger(tmp_path)), None)
    s2 = rows.filter(pl.col("supplier_key") == "S2").row(0, named=True)
    assert (s2["resolution"], s2["review_reason"]) == ("needs_review", NO_SNAPSHOT_REASON)
