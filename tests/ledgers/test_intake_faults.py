"""What a finance team's exports do to a ledger, and how intake accounts for every row:
unclosed quotes, spreadsheet error cells and date formats, headers repeated mid-file,
totals rows and their look-alikes, the usual column names of Xero, SAP and finance sheets,
an ACN in the ABN column (no warehouse)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipelines.ledgers.intake import LedgerError, read_ledger
from pipelines.ledgers.resolve import NameResolution, resolve_acns
from pipelines.ledgers.suppliers import intake_summary, supplier_rows

ACME = "53004085616"  # valid
SOLE = "51824753556"  # valid
ACME_ACN = "004085616"  # a valid ACN
HEADER = "supplier_ref,abn,supplier_name,state,postcode,annual_spend_aud,gst_charged"


def write(tmp_path: Path, text: str, *, name: str = "l.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def by_ref(path: Path) -> dict[str, dict[str, Any]]:
    return {
        r["supplier_ref"] or f"#{r['line']}": r
        for r in read_ledger(path).rows.iter_rows(named=True)
    }


# ------------------------------------------------------------------------- unclosed quotes


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            f"{HEADER}\nS1,{ACME},Acme,QLD,4000,,\n"
            f'S2,{SOLE},"Jane Citizen,VIC,3000,500,N\n'
            f"S3,{ACME},Beta,QLD,4000,,\n"
            f'S4,{SOLE},"Gamma, Delta",VIC,3000,,\n',
            id="closed by the next quoted cell, rows swallowed",
        ),
        pytest.param(
            f'{HEADER}\nS1,{ACME},Acme,QLD,4000,,\nS2,{SOLE},"Jane Citizen,VIC,3000,500,N\n'
            f"S3,{ACME},Beta,QLD,4000,,\nS4,{SOLE},Gamma,VIC,3000,,\n",
            id="never closed: runs to the end of the file",
        ),
        pytest.param(
            f'{HEADER}\nS1,{ACME},Acme,QLD,4000,,\nS2,{SOLE},"Jane Citizen,VIC,3000,500,N\n'
            f'S3,{ACME},Beta 12",QLD,4000,,\n',
            id="closed by a stray quote in the next row",
        ),
        pytest.param(
            f'{HEADER}\nS1,{ACME},Acme,QLD,4000,,\n"S2,{SOLE},Jane Citizen,VIC,3000,500,N\n'
            f'S3",{ACME},Beta,QLD,4000,,\n',
            id="opened in the first cell, closed in the next row's first cell",
        ),
        pytest.param(
            f'{HEADER}\nS1,{ACME},Acme,QLD,4000,,\nS2,{SOLE},Jane Citizen,VIC,3000,500,"N\n',
            id="the last cell of the last row",
        ),
    ],
)
def test_an_unclosed_quote_refuses_the_file_naming_the_line_it_opens(
    tmp_path: Path, text: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(LedgerError, match=r"line 3\b.*quote") as raised:
        read_ledger(path)
    assert str(path) in str(raised.value)


def test_a_quoted_cell_holding_a_line_break_is_one_supplier(tmp_path: Path) -> None:
    """The neighbours of the rule above: Excel's Alt+Enter inside a cell, in the name and in
    the first column, is one row of the file."""
    text = (
        f"{HEADER}\n"
        f'S1,{ACME},"Acme Pty Ltd\nt/a Acme Plumbing",QLD,4000,,\n'
        f'"S2\nold ref",{SOLE},Jane,VIC,3000,,\n'
        f'S3,{ACME},"Smith, Jones ""SJ""",QLD,4000,,\n'
    )
    parsed = read_ledger(write(tmp_path, text))
    assert parsed.rows["line"].to_list() == [2, 4, 6]
    assert parsed.rows["supplier_name"].to_list() == [
        "Acme Pty Ltd\nt/a Acme Plumbing",
        "Jane",
        'Smith, Jones "SJ"',
    ]


# ------------------------------------------------------------------------ broken cells


def _workbook(path: Path, rows: list[list[Any]]) -> None:
    """A sheet whose cells are written as Excel would hold them: ("error", "#N/A") a formula
    that failed, ("date", n) the number n formatted as a date, ("number", n) a number."""
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    date = book.add_format({"num_format": "dd/mm/yyyy"})
    whole = book.add_format({"num_format": "0"})
    sheet = book.add_worksheet("Vendors")
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if isinstance(value, tuple) and value[0] == "error":
                formula = {"#N/A": "=NA()", "#DIV/0!": "=1/0", "#REF!": "=#REF!"}[value[1]]
                sheet.write_formula(r, c, formula, None, value[1])
            elif isinstance(value, tuple) and value[0] == "date":
                sheet.write_number(r, c, value[1], date)
            elif isinstance(value, tuple) and value[0] == "number":
                sheet.write_number(r, c, value[1], whole)
            elif value is not None:
                sheet.write(r, c, value)
    book.close()


def test_xlsx_error_cells_and_dates_go_to_review_saying_what_the_cell_held(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vendors.xlsx"
    _workbook(path, [
        ["Supplier Ref", "ABN", "Supplier Name", "Annual Spend (AUD)"],
        ["V1", ("number", int(ACME)), "Acme Pty Ltd", 1000],
        ["V2", ("error", "#N/A"), "Acme Pty Ltd", 1000],
        ["V3", ("error", "#DIV/0!"), "Acme Pty Ltd", 1000],
        ["V4", ("date", int(SOLE)), "Jane Citizen", 1000],
        ["V5", ("date", 45000), "Jane Citizen", 1000],
        ["V6", int(SOLE), "Jane Citizen", ("error", "#DIV/0!")],
        ["V7", ("error", "#REF!"), "Acme Pty Ltd", 1000],
    ])  # fmt: skip
    rows = by_ref(path)
    assert rows["V1"]["abn"] == ACME and rows["V1"]["issues"] == []
    expected = {
        "V2": "the spreadsheet error #N/A",
        "V3": "the spreadsheet error #DIV/0!",
        "V4": f"the number {SOLE} formatted as a date",
        "V5": "the date 2023-03-15",
        "V7": "the spreadsheet error #REF!",
    }
    for ref, held in expected.items():
        row = rows[ref]
        assert row["abn"] is None, ref
        assert row["issues"] == ["abn_unreadable"], ref
        assert held in row["issue_text"][0], (ref, row["issue_text"])
    assert rows["V6"]["abn"] == SOLE  # its ABN is fine: verified, and reviewed for the spend
    assert rows["V6"]["annual_spend_aud"] is None
    assert rows["V6"]["issue_text"] == [
        "the annual_spend_aud cell holds the spreadsheet error #DIV/0!"
    ]

    # never resolved by name: the name finds one business, but the ABN cell was unreadable
    found = NameResolution("Acme Pty Ltd", ACME, 1, [{"abn": ACME, "score": 1.0}])
    suppliers = supplier_rows(read_ledger(path), {"Acme Pty Ltd": found, "Jane Citizen": found})
    resolution = dict(zip(suppliers["supplier_ref"], suppliers["resolution"], strict=True))
    assert resolution == {
        "V1": "verified", "V2": "needs_review", "V3": "needs_review", "V4": "needs_review",
        "V5": "needs_review", "V6": "needs_review", "V7": "needs_review",
    }  # fmt: skip


def test_csv_error_text_is_named_as_such(tmp_path: Path) -> None:
    text = (
        f"{HEADER},domain\n"
        "S1,#N/A,Acme Pty Ltd,QLD,4000,,,\n"
        f"S2,{ACME},Acme Pty Ltd,QLD,4000,#DIV/0!,,#N/A\n"
    )
    rows = by_ref(write(tmp_path, text))
    assert rows["S1"]["issue_text"] == [
        "the ABN cell holds the spreadsheet error #N/A (a formula or lookup that failed),"
        " not an ABN: put the ABN itself in the cell"
    ]
    assert rows["S2"]["abn"] == ACME and rows["S2"]["domain"] is None
    assert rows["S2"]["issue_text"] == [
        "the domain cell holds the spreadsheet error #N/A",
        "the annual_spend_aud cell holds the spreadsheet error #DIV/0!",
    ]


# --------------------------------------------------------------- headers, totals, blanks


def test_a_header_repeated_mid_file_is_an_ignored_row_not_a_supplier(tmp_path: Path) -> None:
    text = (
        "Supplier Ref,ABN,Supplier Name,State\n"
        f"S1,{ACME},Acme,QLD\n"
        "\n"
        "Supplier Ref,ABN,Supplier Name,State\n"  # two exports pasted together
        f"S2,{SOLE},Jane,VIC\n"
        "supplier ref,abn,SUPPLIER NAME,state\n"  # spelt another way, the same columns
        f"S3,{ACME},Supplier Name Services,QLD\n"  # a neighbour: a supplier, not a header
    )
    parsed = read_ledger(write(tmp_path, text))
    assert parsed.rows["line"].to_list() == [2, 5, 7]
    assert parsed.ignored == [
        {
            "line": 4,
            "reason": "the header row again (as on line 1): not a supplier",
            "held": "Supplier Ref | ABN | Supplier Name | State",
        },
        {
            "line": 6,
            "reason": "the header row again (as on line 1): not a supplier",
            "held": "supplier ref | abn | SUPPLIER NAME | state",
        },
    ]


def test_a_second_header_with_other_columns_refuses_the_file_naming_its_line(
    tmp_path: Path,
) -> None:
    text = (
        "Supplier Ref,ABN,Supplier Name\n"
        f"S1,{ACME},Acme\n"
        "Supplier Name,ABN,Supplier Ref\n"
        f"Jane,{SOLE},S2\n"
    )
    with pytest.raises(LedgerError, match=r"line 3: .*header.*'Supplier Name' in column A"):
        read_ledger(write(tmp_path, text))


def test_totals_rows_and_their_look_alikes(tmp_path: Path) -> None:
    text = (
        f"{HEADER}\n"
        f"S1,{ACME},Acme,QLD,4000,100,\n"
        "S2,,Total Tools Pty Ltd,,,,\n"  # a supplier whose name starts with "Total"
        ',,Total Fire Solutions,,,"$2,000.00",\n'  # one without a ref either
        f"Total,{SOLE},Jane,VIC,3000,,\n"  # a ref "Total" with an ABN: a supplier
        'Sub-total: NSW,,,,,"$2,100.00",\n'
        ',,Grand Total,,,"$2,100.00",\n'
        "TOTAL (AUD),,,,,2100,\n"
    )
    parsed = read_ledger(write(tmp_path, text))
    assert parsed.rows["line"].to_list() == [2, 3, 4, 5]
    assert parsed.ignored == [
        {"line": 6, "reason": "a totals row, not a supplier (no ABN)",
         "held": "Sub-total: NSW | $2,100.00"},
        {"line": 7, "reason": "a totals row, not a supplier (no ABN)",
         "held": "Grand Total | $2,100.00"},
        {"line": 8, "reason": "a totals row, not a supplier (no ABN)", "held": "TOTAL (AUD) | 2100"},
    ]  # fmt: skip


# ------------------------------------------------------------------- the usual column names


@pytest.mark.parametrize(
    ("header", "row", "used", "ignored"),
    [
        pytest.param(
            "*ContactName,AccountNumber,EmailAddress,POAddressLine1,PORegion,POPostalCode,"
            "TaxNumber,Website,LegalName",
            f"Acme,X1,ap@acme.example,1 Main St,QLD,4000,{ACME},acme.example,Acme Pty Ltd",
            {"supplier_ref": "AccountNumber", "abn": "TaxNumber", "supplier_name": "*ContactName",
             "domain": "Website", "email": "EmailAddress", "state": "PORegion",
             "postcode": "POPostalCode"},
            ["POAddressLine1", "LegalName"],
            id="Xero contacts",
        ),
        pytest.param(
            "Vendor,Name 1,Name 2,Tax Number 1,Region,Postal Code,Telephone 1",
            f"100042,Acme,Acme Plumbing,{ACME},QLD,4000,07 5555 0000",
            {"abn": "Tax Number 1", "supplier_name": "Name 1", "state": "Region",
             "postcode": "Postal Code", "phone": "Telephone 1"},
            ["Vendor", "Name 2"],
            id="SAP vendors (Tax Number 1)",
        ),
        pytest.param(
            "Name 1,Tax ID",
            f"Acme,{ACME}",
            {"abn": "Tax ID", "supplier_name": "Name 1"},
            [],
            id="SAP vendors (Tax ID)",
        ),
        pytest.param(
            "Supplier Name,ABN No.,Total Spend (AUD),Contact Email,Notes",
            f'Acme,{ACME},"$1,000.00",ap@acme.example,call first',
            {"abn": "ABN No.", "supplier_name": "Supplier Name",
             "annual_spend_aud": "Total Spend (AUD)", "email": "Contact Email"},
            ["Notes"],
            id="a finance sheet",
        ),
    ],
)  # fmt: skip
def test_the_usual_names_of_each_column(
    tmp_path: Path, header: str, row: str, used: dict[str, str], ignored: list[str]
) -> None:
    parsed = read_ledger(write(tmp_path, f"{header}\n{row}\n"))
    assert parsed.columns["used"] == used
    assert [c["header"] for c in parsed.columns["ignored"]] == ignored
    supplier = parsed.rows.row(0, named=True)
    assert (supplier["abn"], supplier["supplier_name"], supplier["issues"]) == (ACME, "Acme", [])


def test_a_column_read_twice_is_used_once_and_the_other_listed(tmp_path: Path) -> None:
    parsed = read_ledger(write(tmp_path, f"Tax Number,Supplier Name,ABN\n{SOLE},Acme,{ACME}\n"))
    assert parsed.columns["used"] == {"abn": "ABN", "supplier_name": "Supplier Name"}
    assert parsed.columns["ignored"] == [
        {"column": "A", "header": "Tax Number", "reason": "also read as abn: 'ABN' is used"}
    ]
    assert parsed.rows["abn"].to_list() == [ACME]


def test_import_prints_the_columns_used_and_ignored_and_the_ignored_rows(tmp_path: Path) -> None:
    path = write(tmp_path, f"Supplier Name,ABN No.,Notes\nAcme,{ACME},x\nTotal,,\n")
    parsed = read_ledger(path)
    summary = intake_summary("c", "l", parsed, supplier_rows(parsed, {}))
    assert summary["columns"] == {
        "used": {"abn": "ABN No.", "supplier_name": "Supplier Name"},
        "ignored": [{"column": "C", "header": "Notes", "reason": "not a ledger column"}],
    }
    assert summary["ignored"] == [
        {"line": 3, "reason": "a totals row, not a supplier (no ABN)", "held": "Total"}
    ]
    assert summary["rows"] + len(summary["ignored"]) == 2


@pytest.mark.parametrize(
    ("header", "hints"),
    [
        pytest.param(
            "Vendor,ABN Number (11 digits),Spend",
            ["rename 'ABN Number (11 digits)' to 'ABN'", "rename 'Vendor' to 'Supplier Name'"],
            id="both missing, a likely column for each",
        ),
        pytest.param(
            "Supplier Name,Amount",
            ["no 'abn' column", "add a column 'ABN'", "ABN No."],
            id="no likely column: the names read as the ABN",
        ),
    ],
)
def test_a_refusal_says_which_header_to_rename_to_what(
    tmp_path: Path, header: str, hints: list[str]
) -> None:
    path = write(tmp_path, f"{header}\nAcme,{ACME},1\n")
    with pytest.raises(LedgerError) as raised:
        read_ledger(path)
    for hint in hints:
        assert hint in str(raised.value)


# ----------------------------------------------------------------------- an ACN for an ABN


def test_an_acn_in_the_abn_column_is_named_and_its_company_offered(tmp_path: Path) -> None:
    text = (
        f"{HEADER}\n"
        "S1,004 085 616,Acme Pty Ltd,QLD,4000,,\n"
        "S2,004085617,Acme Pty Ltd,QLD,4000,,\n"  # 9 digits, not an ACN either
        "S3,000000019,Nobody Pty Ltd,QLD,4000,,\n"  # an ACN no company in the register has
    )
    parsed = read_ledger(write(tmp_path, text))
    rows = {r["supplier_ref"]: r for r in parsed.rows.iter_rows(named=True)}
    assert rows["S1"]["issues"] == ["abn_is_acn"] and rows["S1"]["acn"] == ACME_ACN
    assert rows["S1"]["issue_text"] == [
        "the ABN column holds 004 085 616, an ACN (a company's 9-digit number), not an ABN"
    ]
    assert rows["S2"]["issues"] == ["abn_not_11_digits"] and rows["S2"]["acn"] is None
    candidate = {"abn": ACME, "name": "ACME PTY LTD", "legal_name": "ACME PTY LTD",
                 "abn_status": "ACT", "state": "QLD", "acn": ACME_ACN, "found_by": "acn"}  # fmt: skip
    suppliers = supplier_rows(
        parsed,
        {n: NameResolution(n, None, 0, []) for n in ("Acme Pty Ltd", "Nobody Pty Ltd")},
        {ACME_ACN: [candidate], "000000019": []},
    )
    out = {r["supplier_ref"]: r for r in suppliers.iter_rows(named=True)}
    assert out["S1"]["resolution"] == "needs_review" and out["S1"]["abn"] is None
    assert '"abn": "53004085616"' in out["S1"]["candidates"]
    assert out["S1"]["review_reason"].startswith("the ABN column holds 004 085 616, an ACN")
    assert f"the company with the ACN {ACME_ACN} has the ABN {ACME}" in out["S1"]["review_reason"]
    assert "no company in the register has the ACN 000000019" in out["S3"]["review_reason"]


def test_resolve_acns_finds_the_entity_whose_acn_it_is(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "snap.duckdb"))
    con.execute("create schema marts")
    con.execute(
        "create table marts.entities as select * from (values"
        " ('53004085616', 'ACME PTY LTD', 'ACT', 'QLD', '004085616'),"
        " ('99004085616', 'NOT ACME', 'ACT', 'QLD', null)"
        ") t(abn, legal_name, abn_status, state, acn)"
    )
    found = resolve_acns(con, ["004085616", "000000019"])
    assert found == {
        "004085616": [
            {"abn": "53004085616", "name": "ACME PTY LTD", "legal_name": "ACME PTY LTD",
             "abn_status": "ACT", "state": "QLD", "acn": "004085616", "found_by": "acn"}
        ],
        "000000019": [],
    }  # fmt: skip


def test_a_column_without_a_header_that_holds_values_is_listed(tmp_path: Path) -> None:
    parsed = read_ledger(write(tmp_path, f"ABN,Supplier Name,\n{ACME},Acme,call first\n"))
    assert parsed.columns["ignored"] == [
        {"column": "C", "header": "", "reason": "no header: its 1 value(s) are not read"}
    ]
