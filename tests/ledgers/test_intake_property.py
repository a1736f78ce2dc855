"""Intake never loses or guesses a row, over generated ledgers (hypothesis): every data row
of a file ends as a supplier or an ignored row with its line, or the file is refused naming
a line. The generator writes what finance exports hold: the usual header names in any order,
random quoting and delimiters, blank lines and rows, totals rows, the header again mid-file,
cells a spreadsheet broke, quoted cells with line breaks, and sometimes a quote left open."""

from __future__ import annotations

import csv
import io
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.ledgers.intake import LedgerError, read_ledger

# Bounded and reproducible on a busy 2-core CI box: a fixed derandomised search, no example
# database, no per-example deadline (the machine's load is not the code's fault).
FAST = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SPELLINGS = {
    "supplier_ref": ["supplier_ref", "Supplier Ref", "AccountNumber", "Vendor ID"],
    "abn": ["abn", "ABN", "ABN No.", "TaxNumber", "Tax Number 1"],
    "supplier_name": ["supplier_name", "Supplier Name", "*ContactName", "Name 1"],
    "state": ["State", "PORegion"],
    "postcode": ["Postcode", "POPostalCode"],
    "annual_spend_aud": ["Annual Spend (AUD)", "Total Spend (AUD)"],
    "email": ["Email", "Contact Email"],
}
OPTIONAL = ("state", "postcode", "annual_spend_aud", "email")
ABNS = ["53004085616", "53 004 085 616", "51824753556", "'51824753556", "", "N/A",
        "53004085617", "5300408561", "004085616", "TBA"]  # fmt: skip
BROKEN_ABNS = ["#N/A", "#DIV/0!", "#VALUE!", "5.3004085616E+10"]
TOTALS = ["Total", "TOTAL", "Grand Total", "Sub-total", "Totals", "Total (AUD)"]
NAME_WORDS = ["Acme", "Blue", "Coral", "Dingo", "Emu"]
# a name's tail: delimiters, quotes and apostrophes a writer must quote, accents
NAME_TAIL = st.text(alphabet="abc XYZ,;\t\"'&.-é", max_size=10)


@dataclass
class Ledger:
    columns: list[str]  # ledger columns, in file order
    header: list[str]
    rows: list[tuple[str, list[str]]] = field(default_factory=list)  # (kind, cells)
    leading_blank: int = 0
    delimiter: str = ","
    quoting: int = csv.QUOTE_MINIMAL
    terminator: str = "\n"
    encoding: str = "utf-8"
    unclosed: int | None = None  # index of the supplier row whose quote is left open


@st.composite
def ledgers(draw: st.DrawFn) -> Ledger:
    optional = draw(st.lists(st.sampled_from(OPTIONAL), unique=True, max_size=len(OPTIONAL)))
    columns = draw(st.permutations(["supplier_ref", "abn", "supplier_name", *optional]))
    header = [draw(st.sampled_from(SPELLINGS[c])) for c in columns]
    ledger = Ledger(
        columns=list(columns),
        header=header,
        leading_blank=draw(st.integers(0, 2)),
        delimiter=draw(st.sampled_from([",", ";", "\t"])),
        quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])),
        terminator=draw(st.sampled_from(["\n", "\r\n"])),
        encoding=draw(st.sampled_from(["utf-8", "utf-8-sig", "cp1252"])),
    )
    refs = itertools.count(1)
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(
            st.sampled_from(["supplier", "supplier", "supplier", "blank", "total", "header",
                             "broken", "multiline"])
        )  # fmt: skip
        cells = dict.fromkeys(columns, "")
        if kind == "blank":
            ledger.rows.append((kind, [draw(st.sampled_from(["", " "]))] * len(columns)))
            continue
        if kind == "header":
            ledger.rows.append((kind, list(header)))
            continue
        if kind == "total":
            label = draw(st.sampled_from(TOTALS))
            cells["supplier_ref" if draw(st.booleans()) else "supplier_name"] = label
            if "annual_spend_aud" in cells:
                cells["annual_spend_aud"] = draw(st.sampled_from(["$1,234.00", "99", ""]))
            ledger.rows.append((kind, [cells[c] for c in columns]))
            continue
        cells["supplier_ref"] = f"S{next(refs)}"
        cells["abn"] = draw(st.sampled_from(ABNS))
        name = f"{draw(st.sampled_from(NAME_WORDS))} {draw(NAME_TAIL)}"
        if kind == "multiline":  # Excel's Alt+Enter inside the name
            name = f"{name}\n{draw(st.sampled_from(NAME_WORDS))}"
        cells["supplier_name"] = name if draw(st.integers(0, 9)) else ""
        for column in OPTIONAL:
            if column in cells:
                cells[column] = draw(st.sampled_from({
                    "state": ["QLD", "New South Wales", "", "XX"],
                    "postcode": ["4000", "800", "", "40000"],
                    "annual_spend_aud": ["$75,000.00", "(1,200.00)", "", "about 3k"],
                    "email": ["ap@acme.example", ""],
                }[column]))  # fmt: skip
        if kind == "broken":
            if "annual_spend_aud" in cells and draw(st.booleans()):
                cells["annual_spend_aud"] = "#DIV/0!"
            else:
                cells["abn"] = draw(st.sampled_from(BROKEN_ABNS))
        ledger.rows.append((kind, [cells[c] for c in columns]))
    suppliers = [i for i, (kind, _) in enumerate(ledger.rows) if kind == "supplier"]
    if suppliers and draw(st.integers(0, 3)) == 0:
        ledger.unclosed = draw(st.sampled_from(suppliers))
    return ledger


def render(ledger: Ledger) -> tuple[bytes, list[int]]:
    """The file's bytes, and the line each row of ``ledger.rows`` starts on."""
    out = io.StringIO(newline="")
    writer = csv.writer(
        out, delimiter=ledger.delimiter, quoting=ledger.quoting, lineterminator=ledger.terminator
    )
    out.write(ledger.terminator * ledger.leading_blank)
    writer.writerow(ledger.header)
    starts = []
    for i, (kind, cells) in enumerate(ledger.rows):
        starts.append(len(re.findall(r"\r\n|\r|\n", out.getvalue())) + 1)
        if kind == "blank" and not cells[0]:
            out.write(ledger.terminator)  # an empty line, not a row of empty cells
        elif i == ledger.unclosed:
            # a quote typed at the start of a plain cell and never closed
            plain = [re.sub(r"[^A-Za-z0-9 $.]", "", c) for c in cells]
            at = ledger.columns.index("supplier_name")
            plain[at] = '"' + (plain[at] or "Unclosed")
            out.write(ledger.delimiter.join(plain) + ledger.terminator)
        else:
            writer.writerow(cells)
    return out.getvalue().encode(ledger.encoding), starts


def _refused_line(exc: LedgerError) -> int:
    found = re.search(r"line (\d+)", str(exc))
    assert found, f"refused without naming a line: {exc}"
    return int(found.group(1))


@FAST
@given(ledger=ledgers())
def test_every_row_is_a_supplier_or_ignored_or_the_file_is_refused_naming_a_line(
    ledger: Ledger, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data, starts = render(ledger)
    path = tmp_path_factory.mktemp("ledger") / "generated.csv"
    path.write_bytes(data)
    kinds = [kind for kind, _ in ledger.rows]
    supplier_lines = [s for s, k in zip(starts, kinds, strict=True) if k in ("supplier", "broken", "multiline")]  # fmt: skip
    ignored_lines = [s for s, k in zip(starts, kinds, strict=True) if k in ("total", "header")]
    blank_rows = kinds.count("blank")

    if ledger.unclosed is not None:
        with pytest.raises(LedgerError) as raised:
            read_ledger(path)
        assert _refused_line(raised.value) == starts[ledger.unclosed], str(raised.value)
        return
    try:
        parsed = read_ledger(path)
    except LedgerError as exc:
        if not supplier_lines:
            assert "no supplier row" in str(exc)
            return
        # a line break inside a quoted name may be refused, naming the row that holds it
        multiline = [s for s, k in zip(starts, kinds, strict=True) if k == "multiline"]
        assert _refused_line(exc) in multiline, str(exc)
        return
    assert supplier_lines, "a file without a supplier row was not refused"
    rows_in = len(supplier_lines) + len(ignored_lines)
    assert parsed.rows.height + len(parsed.ignored) == rows_in  # never a row unaccounted for
    assert parsed.rows["line"].to_list() == supplier_lines
    assert [i["line"] for i in parsed.ignored] == ignored_lines
    assert all(i["reason"] and "held" in i for i in parsed.ignored)
    assert parsed.blank_lines == blank_rows + ledger.leading_blank
    issues_at = zip(parsed.rows["line"].to_list(), parsed.rows["issues"].to_list(), strict=True)
    for line, issues in issues_at:
        kind = kinds[starts.index(line)]
        if kind == "broken":  # a cell the spreadsheet broke is never read as blank
            assert issues, f"line {line}: a broken cell passed without review"


# ------------------------------------------------------------------------------ workbooks


@st.composite
def workbooks(draw: st.DrawFn) -> list[tuple[str, list[Any]]]:
    rows: list[tuple[str, list[Any]]] = []
    for i in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["supplier", "supplier", "blank", "total", "header", "broken"]))
        if kind == "blank":
            rows.append((kind, [None, None, None, None]))
        elif kind == "total":
            rows.append((kind, [draw(st.sampled_from(TOTALS)), None, None, 1234.5]))
        elif kind == "header":
            rows.append((kind, ["Supplier Ref", "ABN", "Supplier Name", "Annual Spend (AUD)"]))
        elif kind == "broken":
            cell = draw(st.sampled_from([("error", "#N/A"), ("error", "#DIV/0!"),
                                         ("date", 53004085616), ("date", 45000)]))  # fmt: skip
            spend: Any = 10.0
            abn: Any = cell
            if draw(st.booleans()):
                abn, spend = int("53004085616"), ("error", "#DIV/0!")
            rows.append((kind, [f"V{i}", abn, "Acme Pty Ltd", spend]))
        else:
            abn = draw(st.sampled_from([53004085616, "51 824 753 556", None, "N/A"]))
            rows.append((kind, [f"V{i}", abn, draw(st.sampled_from(NAME_WORDS)), 100]))
    return rows


@settings(FAST, max_examples=40)
@given(rows=workbooks())
def test_every_row_of_a_workbook_is_a_supplier_or_ignored(
    rows: list[tuple[str, list[Any]]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    import xlsxwriter

    path = tmp_path_factory.mktemp("workbook") / "generated.xlsx"
    book = xlsxwriter.Workbook(str(path))
    date = book.add_format({"num_format": "d mmm yyyy"})
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["Supplier Ref", "ABN", "Supplier Name", "Annual Spend (AUD)"])
    for r, (_, cells) in enumerate(rows, start=1):
        for c, value in enumerate(cells):
            if isinstance(value, tuple) and value[0] == "error":
                sheet.write_formula(r, c, {"#N/A": "=NA()", "#DIV/0!": "=1/0"}[value[1]], None,
                                    value[1])  # fmt: skip
            elif isinstance(value, tuple):
                sheet.write_number(r, c, value[1], date)
            elif value is not None:
                sheet.write(r, c, value)
    book.close()
    kinds = [kind for kind, _ in rows]
    supplier_lines = [r + 2 for r, k in enumerate(kinds) if k in ("supplier", "broken")]
    ignored_lines = [r + 2 for r, k in enumerate(kinds) if k in ("total", "header")]
    try:
        parsed = read_ledger(path)
    except LedgerError as exc:
        assert not supplier_lines and "no supplier row" in str(exc)
        return
    assert parsed.rows["line"].to_list() == supplier_lines
    assert [i["line"] for i in parsed.ignored] == ignored_lines
    issues_at = zip(parsed.rows["line"].to_list(), parsed.rows["issues"].to_list(), strict=True)
    for line, issues in issues_at:
        if kinds[line - 2] == "broken":
            assert issues, f"row {line}: a broken cell passed without review"
