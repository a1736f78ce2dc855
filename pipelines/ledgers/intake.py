"""Reading a customer's supplier ledger: the file as a finance team exports it.

A ledger is ``ledgers/<customer_id>/<ledger_name>.csv`` or ``.xlsx`` (first sheet) with the
columns of LANDING.md (section B): ``supplier_ref, abn, supplier_name, domain, email, phone,
state, postcode, annual_spend_aud, gst_charged``. Spreadsheet exports are messy, so this
module reads what finance tools write and accounts for every row: each data row becomes a
supplier (with the problems found, ``issues``), or an ignored row with its line, the reason
and what it held, or the file is refused naming the line. Nothing is dropped silently and
nothing is guessed:

* encodings: UTF-8 with or without a BOM, UTF-16 with a BOM (Excel's "Unicode text"),
  else Windows-1252 (older Excel on Windows); the delimiter is read from the header line
  (comma, semicolon or tab);
* header names as finance tools write them, in any case, spacing and punctuation: the
  project's own (``Supplier Ref``), Xero's contacts (``*ContactName``, ``TaxNumber``,
  ``PORegion``), SAP's vendors (``Name 1``, ``Tax Number 1``), finance sheets (``ABN No.``,
  ``Total Spend (AUD)``) (:data:`COLUMN_NAMES`); ``abn`` and ``supplier_name`` are required
  and a refusal says which header to rename to what; every other column is listed as ignored;
* a quoted cell may hold line breaks (Excel's Alt+Enter), but a quote left open, which would
  swallow the rows after it, refuses the file naming the line it opens on;
* the header row again further down (two exports pasted together) is an ignored row; a
  second header with the columns in another order refuses the file naming its line;
* ABNs with spaces, hyphens or a leading apostrophe (Excel's "keep as text" mark); an ABN
  a spreadsheet turned into a number in scientific notation (``5.1824753556E+10``) is
  reported, never guessed at; ``0``, ``N/A``, ``TBA`` and the like mean "no ABN"; an ACN
  (9 digits, its check digit right) is named as such;
* a cell a spreadsheet broke (an error such as ``#N/A`` or ``#DIV/0!``, a number formatted as
  a date) is never read as blank: the row goes to review saying what the cell held;
* amounts with ``$``, ``A$``, ``AUD``, thousands separators and accounting negatives
  ``(1,200.00)``; booleans as ``true/false``, ``yes/no``, ``Y/N``, ``1/0``;
* state names spelled out (``New South Wales``), postcodes that lost their leading zero
  (``800`` for ``0800``);
* blank lines (counted) and totals rows (``Total``, ``Grand total``, ``Sub-total: NSW``,
  with no ABN and nothing but amounts beside the label) (ignored rows).

A file that cannot be read at all (unknown encoding, no header, no ``abn`` or
``supplier_name`` column, no supplier row) raises :class:`LedgerError` naming the file.
Validation is vectorised with polars; the CSV reader keeps each row's first physical line
so a finance person can find it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from pipelines.identifiers import ABN_WEIGHTS, ACN_WEIGHTS

# a row's own fields beyond its identity: what the ledger rules and overrides read
LEDGER_ROW_FIELDS = (
    "domain",
    "email",
    "phone",
    "state",
    "postcode",
    "annual_spend_aud",
    "gst_charged",
)
COLUMNS = ("supplier_ref", "abn", "supplier_name", *LEDGER_ROW_FIELDS)
REQUIRED = ("abn", "supplier_name")
EXTENSIONS = (".csv", ".xlsx")

# The names finance tools give each column, compared without case, spaces or punctuation
# ("ABN No." is "abnno", Xero's "*ContactName" is "contactname"). When several columns of a
# file read as one, the one whose name comes first here is used and the others are listed
# as ignored. Names that mean different things in different tools ("Vendor", "Supplier",
# "Amount") are left out: such a column is listed as ignored, never guessed at.
COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "supplier_ref": (
        "supplierref", "supplierreference", "supplierid", "suppliercode", "suppliernumber",
        "supplierno", "vendorref", "vendorid", "vendorcode", "vendornumber", "vendorno",
        "creditorid", "creditorcode", "creditornumber", "creditorno", "accountnumber",
        "accountno", "accountcode", "cardid", "ref", "reference",
    ),
    "abn": (
        "abn", "abnno", "abnnumber", "supplierabn", "vendorabn", "australianbusinessnumber",
        "taxnumber", "taxnumber1", "taxno", "taxid", "abnacn",
    ),
    "supplier_name": (
        "suppliername", "name", "vendorname", "contactname", "name1", "creditorname",
        "payeename", "companyname", "businessname", "tradingname", "accountname", "legalname",
        "entityname", "organisationname", "organizationname",
    ),
    "domain": ("domain", "website", "websiteurl", "webaddress", "web", "url", "homepage"),
    "email": (
        "email", "emailaddress", "contactemail", "accountsemail", "remittanceemail", "email1",
    ),
    "phone": (
        "phone", "phonenumber", "phoneno", "telephone", "telephone1", "tel", "contactphone",
        "mobile", "mobilenumber",
    ),
    "state": ("state", "stateterritory", "poregion", "saregion", "region", "province"),
    "postcode": ("postcode", "postalcode", "popostalcode", "sapostalcode", "zip", "zipcode"),
    "annual_spend_aud": (
        "annualspendaud", "annualspend", "annualspendinaud", "totalspendaud", "totalspend",
        "spendaud", "spend", "ytdspend", "spendytd", "spendlast12months",
    ),
    "gst_charged": ("gstcharged", "gst", "chargesgst", "gstapplicable"),
}  # fmt: skip
_COLUMN_OF = {name: column for column, names in COLUMN_NAMES.items() for name in names}
# What a refusal tells a finance person to call the column, and other names it could have.
HEADER_SHOWN = {
    "abn": ("ABN", "ABN No., Tax Number, TaxNumber (Xero), Tax Number 1 or Tax ID (SAP)"),
    "supplier_name": (
        "Supplier Name",
        "Name, Vendor Name, *ContactName (Xero), Name 1 (SAP), Company Name",
    ),
}
# Words of a header that probably holds the column (a refusal's "rename ... to ...").
_LIKELY = {
    "abn": ("abn", "tax", "gst", "businessnumber"),
    "supplier_name": ("name", "supplier", "vendor", "creditor", "payee", "company", "contact"),
}

CUSTOMER_ID = re.compile(r"^[a-z0-9-]{1,64}$")  # CONTRACT.md, Ledgers
LEDGER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")

STATES = ("NSW", "VIC", "QLD", "WA", "SA", "TAS", "ACT", "NT")
_STATE_NAMES = {
    "NEW SOUTH WALES": "NSW",
    "VICTORIA": "VIC",
    "QUEENSLAND": "QLD",
    "QLD.": "QLD",
    "WESTERN AUSTRALIA": "WA",
    "SOUTH AUSTRALIA": "SA",
    "TASMANIA": "TAS",
    "AUSTRALIAN CAPITAL TERRITORY": "ACT",
    "NORTHERN TERRITORY": "NT",
}
# Finance spellings of "there is no ABN" (upper-cased, spaces removed).
_NO_ABN = ("", "0", "00000000000", "-", "NA", "N/A", "NIL", "NONE", "TBA", "TBC", "UNKNOWN")
_TRUE = ("TRUE", "YES", "Y", "1", "T")
_FALSE = ("FALSE", "NO", "N", "0", "F")
# A totals label: "Total", "Totals", "Grand total", "Sub-total", optionally followed by a
# colon, a bracket or dash ("Total (AUD)", "Sub-total: NSW") or a word such as "for"
# ("Total for FY2026"); "Total Tools Pty Ltd" is a supplier's name, not a label.
_TOTALS = (
    r"(?i)^(grand\s*|sub\s*-?\s*)?totals?"
    r"(\s*[:(\-\u2013].*|\s+(for|of|spend|amount|aud|all|suppliers?|fy)\b.*)?$"
)
# A number in scientific notation: what a spreadsheet makes of an 11-digit ABN.
_SCIENTIFIC = r"^[0-9](\.[0-9]+)?[eE]\+?[0-9]+$"
# The error values a spreadsheet shows in a cell whose formula failed.
_ERROR_CELL = (
    r"^#(N/A|DIV/0!|VALUE!|REF!|NAME\?|NUM!|NULL!|SPILL!|CALC!|GETTING_DATA|FIELD!|BLOCKED!"
    r"|CONNECT!|BUSY!|UNKNOWN!|EXTERNAL!|PYTHON!)$"
)
# calamine's names of the error values (fastexcel reports them as "Error(Div0)")
_EXCEL_ERRORS = {
    "Div0": "#DIV/0!", "NA": "#N/A", "Name": "#NAME?", "Null": "#NULL!", "Num": "#NUM!",
    "Ref": "#REF!", "Value": "#VALUE!", "GettingData": "#GETTING_DATA",
}  # fmt: skip
# A date cell as the workbook reader gives it ("2023-03-15 00:00:00").
_DATE_CELL = r"^([0-9]{4}-[0-9]{2}-[0-9]{2})( 00:00:00)?$|^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+$"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

# Issue kinds. Those that leave no ABN to verify are "unusable".
UNUSABLE_ABN = (
    "abn_unreadable", "spreadsheet_number", "abn_is_acn", "abn_not_11_digits",
    "abn_check_digit", "no_abn_no_name",
)  # fmt: skip
ISSUE_TEXT = {
    "abn_unreadable": "{abn_held}",
    "spreadsheet_number": (
        "the ABN was turned into a number by a spreadsheet ({abn}) and its digits cannot be"
        " recovered: export the ABN column as text"
    ),
    "abn_is_acn": "the ABN column holds {abn}, an ACN (a company's 9-digit number), not an ABN",
    "abn_not_11_digits": "the ABN {abn} is not 11 digits",
    "abn_check_digit": "the ABN {abn} fails the ABN check-digit test (a typing error?)",
    "no_abn_no_name": "no ABN and no supplier name",
    "duplicate_ref": "the supplier_ref {supplier_ref} is also on line {first_line}",
    "duplicate_abn": "the same ABN as line {first_line} (supplier_ref {first_ref})",
    "unknown_state": "unknown state {state!r} (one of NSW, VIC, QLD, WA, SA, TAS, ACT, NT)",
    "bad_postcode": "the postcode {postcode!r} is not 4 digits",
    "bad_amount": "annual_spend_aud {annual_spend_aud!r} is not an amount",
    "bad_boolean": "gst_charged {gst_charged!r} is not yes or no",
    "ragged_row": "the row has {fields} fields where the header has {columns}",
    **{
        f"{column}_unreadable": f"the {column} cell holds {{held_{column}}}"
        for column in COLUMNS
        if column != "abn"
    },
}
IGNORED_HELD_CHARS = 200  # what an ignored row held, as shown


class LedgerError(ValueError):
    """A ledger file that cannot be read at all; the message names the file."""


@dataclass
class ParsedLedger:
    """One ledger file, read. ``rows`` holds one row per supplier line (strings cleaned,
    ``abn`` the 11 digits when usable, ``acn`` the 9 digits of an ACN given for the ABN,
    ``issues`` a list of issue kinds, ``issue_text`` the reasons a finance person reads).
    ``ignored`` lists every other data row: ``{"line", "reason", "held"}``. ``columns``
    says which header each ledger column was read from (``used``) and which columns were
    not read (``ignored``: ``{"column", "header", "reason"}``)."""

    path: Path
    sha256: str
    encoding: str
    rows: pl.DataFrame
    ignored: list[dict[str, Any]] = field(default_factory=list)
    blank_lines: int = 0
    columns_found: list[str] = field(default_factory=list)
    columns: dict[str, Any] = field(default_factory=dict)
    header_line: int = 1


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_customer_id(customer: str) -> str:
    if not CUSTOMER_ID.match(customer or ""):
        raise LedgerError(
            f"customer id {customer!r}: use lower-case letters, digits and '-', at most 64"
        )
    return customer


def check_ledger_name(name: str) -> str:
    if not LEDGER_NAME.match(name or "") or name.endswith((".csv", ".xlsx")):
        raise LedgerError(
            f"ledger name {name!r}: use letters, digits, '_', '-' and '.', at most 100,"
            " without the file extension"
        )
    return name


# ------------------------------------------------------------------------------------ reading


@dataclass
class _Records:
    """A file's rows as text: ``(line, cells)`` with the line each row starts on."""

    rows: list[tuple[int, list[str]]]
    encoding: str
    # CSV: the rows whose cells hold line breaks (their index in ``rows``, first and last
    # line), checked for an unclosed quote once the header's width is known
    spans: list[tuple[int, int, int]] = field(default_factory=list)
    text: str = ""
    delimiter: str = ","
    # workbook cells that were not text: (line, column index) -> what the cell held
    notes: dict[tuple[int, int], str] = field(default_factory=dict)


def _decode(data: bytes, path: Path) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as exc:
            raise LedgerError(f"{path}: not readable as UTF-16 ({exc.reason})") from exc
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError as exc:
        raise LedgerError(
            f"{path}: unknown encoding (neither UTF-8, UTF-16 nor Windows-1252):"
            f" byte {data[exc.start]:#04x} at offset {exc.start}"
        ) from exc


def _name_key(header: str) -> str:
    """A header name compared without case, spaces or punctuation."""
    return re.sub(r"[^a-z0-9]+", "", header.lstrip("\ufeff").lower())


def _letter(index: int) -> str:
    """A spreadsheet's column letter (0 -> A, 26 -> AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _delimiter(header_line: str) -> str:
    counts = {d: header_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _read_csv(path: Path, data: bytes) -> _Records:
    text, encoding = _decode(data, path)
    if "\x00" in text:
        raise LedgerError(f"{path}: holds NUL characters; not a text (CSV) file")
    if text and not text.endswith(("\n", "\r")):
        text += "\n"  # a quote left open on the last line then shows as a line break
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = _delimiter(first)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    found = _Records(rows=[], encoding=encoding, text=text, delimiter=delimiter)
    line = 1
    try:
        for record in reader:
            end = reader.line_num
            if end > line:
                found.spans.append((len(found.rows), line, end))
            found.rows.append((line, record))
            line = end + 1
    except csv.Error as exc:
        raise LedgerError(f"{path}: not a readable CSV file near line {line}: {exc}") from exc
    last = len(found.rows) - 1
    if last >= 0 and not (found.spans and found.spans[-1][0] == last):
        last_line, cells = found.rows[last]
        if any("\n" in cell or "\r" in cell for cell in cells):  # open to the end of the file
            found.spans.append((last, last_line, last_line))
    return found


def _number_text(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _read_xlsx(path: Path) -> _Records:
    import fastexcel

    try:
        reader = fastexcel.read_excel(path)
        sheet = reader.load_sheet(0, header_row=None, skip_rows=0, dtypes="string")
        table, errors = sheet.to_arrow_with_errors()
        frame = pl.from_arrow(table)
    except Exception as exc:  # fastexcel raises its own error types for broken workbooks
        raise LedgerError(f"{path}: not a readable .xlsx workbook ({exc})") from exc
    assert isinstance(frame, pl.DataFrame)
    found = _Records(
        rows=[
            (index + 1, ["" if v is None else str(v) for v in record])
            for index, record in enumerate(frame.iter_rows())
        ],
        encoding="xlsx",
    )
    # A cell the reader could not give as text (it gives None, which would read as blank):
    # an error value, or a number formatted as a date beyond the calendar (an ABN is).
    for error in errors.errors if errors is not None else []:
        row, column = error.position
        if row >= len(found.rows) or column >= len(found.rows[row][1]):
            continue  # outside the rows read: nothing of it is used
        cells = found.rows[row][1]
        if failed := re.search(r"'Error\((\w+)\)'", error.detail):
            cells[column] = _EXCEL_ERRORS.get(failed.group(1), f"#{failed.group(1).upper()}")
        elif dated := re.search(r"DateTime\(ExcelDateTime \{ value: ([-+0-9.eE]+)", error.detail):
            cells[column] = _number_text(float(dated.group(1)))
            found.notes[(row + 1, column)] = f"the number {cells[column]} formatted as a date"
        else:
            shown = error.detail.split(" but got ", 1)[-1].strip("'")
            found.notes[(row + 1, column)] = f"a value that is not text ({shown})"
    return found


# --------------------------------------------------------------------------------- the header


def _map_header(cells: Sequence[str]) -> tuple[dict[str, int], list[dict[str, str]]]:
    """The column each ledger column is read from, and the columns not read (with why)."""
    keys = [_name_key(cell) for cell in cells]
    best: dict[str, tuple[int, int]] = {}  # column -> (rank of the name, index)
    for index, key in enumerate(keys):
        column = _COLUMN_OF.get(key)
        if column is None:
            continue
        rank = COLUMN_NAMES[column].index(key)
        if column not in best or rank < best[column][0]:
            best[column] = (rank, index)
    positions = {column: best[column][1] for column in COLUMNS if column in best}
    used = set(positions.values())
    ignored = []
    for index, (cell, key) in enumerate(zip(cells, keys, strict=True)):
        if index in used or not cell.strip():
            continue
        column = _COLUMN_OF.get(key)
        reason = (
            f"also read as {column}: {cells[positions[column]].strip()!r} is used"
            if column is not None
            else "not a ledger column"
        )
        ignored.append({"column": _letter(index), "header": cell.strip(), "reason": reason})
    return positions, ignored


def _refuse_header(path: Path, line: int, cells: Sequence[str], positions: dict[str, int]) -> None:
    missing = [column for column in REQUIRED if column not in positions]
    if not missing:
        return
    used = set(positions.values())
    offered: set[int] = set()
    hints = []
    for column in missing:
        shown, others = HEADER_SHOWN[column]
        likely = [
            index
            for index, cell in enumerate(cells)
            if index not in used
            and index not in offered
            and cell.strip()
            and any(word in _name_key(cell) for word in _LIKELY[column])
        ]
        offered.update(likely)
        if len(likely) == 1:
            hints.append(f"rename {cells[likely[0]].strip()!r} to {shown!r}")
        elif likely:
            names = ", ".join(repr(cells[i].strip()) for i in likely)
            hints.append(f"rename the one of {names} that holds the {column} to {shown!r}")
        else:
            hints.append(f"add a column {shown!r} (also read as {column}: {others})")
    found = ", ".join(repr(cell.strip()) for cell in cells if cell.strip()) or "nothing"
    raise LedgerError(
        f"{path}: no {' and no '.join(repr(c) for c in missing)} column in the header on line"
        f" {line}: {'; '.join(hints)} (found: {found})"
    )


# ----------------------------------------------------------------------------- unclosed quotes


def _quote_problem(
    chunk: list[str], record: list[str], start: int, width: int, delimiter: str
) -> tuple[int, str] | None:
    """Whether the row starting on line ``start`` (its physical lines ``chunk``), whose cells
    hold line breaks, is a quote left open rather than cells written over several lines:
    ``(line the quote opens on, what is wrong)`` or None.

    A cell written over several lines (Excel's Alt+Enter) is quoted, closes with a quote
    followed by the delimiter or the end of the line, and no line of it reads as a whole
    row. A quote left open runs on over the next rows until some later quote closes it:
    then the file ends inside it, or the closing quote is followed by more text, or a line
    inside it holds a whole row's delimiters, or the row ends with more cells than the
    header (its cells and those of the row it ran into)."""
    opened = start
    for cell in record:
        if _LINE_BREAK.search(cell):
            break
        opened += len(_LINE_BREAK.findall(cell))
    strict = csv.reader(io.StringIO("".join(chunk), newline=""), delimiter=delimiter, strict=True)
    try:
        for _ in strict:
            pass
    except csv.Error as exc:
        if "end of data" in str(exc):
            return opened, "is not closed before the end of the file"
        return opened, f"closes on line {start + strict.line_num - 1} in the middle of a cell"
    cells = len(record)
    while cells > width and not record[cells - 1].strip():
        cells -= 1
    if cells > width:
        return opened, f"leaves its row with {cells} cells where the header has {width}"
    whole_row = max(width - 1, 1)  # the delimiters of a whole row
    at = start
    for cell in record:
        parts = _LINE_BREAK.split(cell)
        if len(parts) > 1:
            for k, part in enumerate(parts):
                if part.count(delimiter) >= whole_row:
                    return opened, f"holds line {at + k}, which reads as a whole row"
            closes = at + len(parts) - 1
            for line in range(at + 1, closes + 1):
                alone = next(csv.reader([chunk[line - start]], delimiter=delimiter), [])
                # the line a cell closes on may hold that row's cells after it
                ends_cell = line == closes and delimiter not in parts[-1]
                if len(alone) >= width and not ends_cell:
                    return opened, f"holds line {line}, which reads as a whole row"
        at += len(parts) - 1
    return None


def _check_quotes(path: Path, records: _Records, width: int) -> None:
    if not records.spans:
        return
    lines = list(io.StringIO(records.text, newline=""))
    for index, start, end in records.spans:
        problem = _quote_problem(
            lines[start - 1 : end], records.rows[index][1], start, width, records.delimiter
        )
        if problem is not None:
            opened, what = problem
            raise LedgerError(
                f"{path}: line {opened}: a quote opens a cell here that {what}; a quote left"
                " open swallows the rows after it. Close or remove the quote (a quote inside"
                ' a cell is written twice, "") and send the file again'
            )


# ------------------------------------------------------------------------------------ the file


def _held(record: Sequence[str]) -> str:
    text = " | ".join(cell.strip() for cell in record if cell.strip())
    return text if len(text) <= IGNORED_HELD_CHARS else text[: IGNORED_HELD_CHARS - 1] + "…"


def read_ledger(path: Path) -> ParsedLedger:
    """Read and validate one ledger file (see the module notes)."""
    path = Path(path)
    if path.suffix.lower() not in EXTENSIONS:
        raise LedgerError(f"{path}: a ledger is a .csv or .xlsx file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LedgerError(f"{path}: cannot be read ({exc.strerror})") from exc
    if path.suffix.lower() == ".xlsx":
        if not data.startswith(b"PK"):
            raise LedgerError(f"{path}: not a readable .xlsx workbook (not a zip archive)")
        records = _read_xlsx(path)
    else:
        records = _read_csv(path, data)
    sha = hashlib.sha256(data).hexdigest()

    blank = 0
    header: list[str] | None = None
    header_line = 0
    body: list[tuple[int, list[str]]] = []
    for line, record in records.rows:
        if not "".join(record).strip():
            blank += 1
            continue
        if header is None:
            header, header_line = record, line
            continue
        body.append((line, record))
    if header is None:
        raise LedgerError(f"{path}: empty file (no header row)")
    width = len(header)
    _check_quotes(path, records, width)
    positions, ignored_columns = _map_header(header)
    _refuse_header(path, header_line, header, positions)

    # trailing empty cells beyond the header are not a fault (spreadsheets pad rows)
    fields = []
    for _, record in body:
        n = len(record)
        while n > width and not record[n - 1].strip():
            n -= 1
        fields.append(n)
    columns = list(zip(*(r[:width] + [""] * (width - len(r)) for _, r in body), strict=True))
    cells = pl.from_arrow(
        pa.table({
            f"c{i}": pa.array(columns[i] if columns else [], type=pa.string())
            for i in range(width)
        })
    )  # fmt: skip
    assert isinstance(cells, pl.DataFrame)
    for index, cell in enumerate(header):
        values = cells.height - cells[f"c{index}"].str.strip_chars().eq("").sum()
        if not cell.strip() and values:
            ignored_columns.append({
                "column": _letter(index), "header": "",
                "reason": f"no header: its {values} value(s) are not read",
            })  # fmt: skip
    lines = [line for line, _ in body]
    row_of = {line: i for i, line in enumerate(lines)} if records.notes else {}
    notes: dict[str, list[str | None]] = {}
    by_position = {i: column for column, i in positions.items()}
    for (line, index), held in records.notes.items():
        if line in row_of and index in by_position:
            column = by_position[index]
            notes.setdefault(column, [None] * len(body))[row_of[line]] = held
    raw = cells.select(
        pl.Series("line", lines, dtype=pl.Int64),
        *(
            pl.col(f"c{positions[name]}").alias(name)
            if name in positions
            else pl.lit("", dtype=pl.String).alias(name)
            for name in COLUMNS
        ),
        *(
            pl.Series(f"note_{name}", notes.get(name, [None] * len(body)), dtype=pl.String)
            for name in COLUMNS
        ),
        pl.Series("fields", fields, dtype=pl.Int64),
    )
    headers = _repeated_headers(path, header_line, positions, body, cells)
    if headers:
        raw = raw.filter(~pl.col("line").is_in(list(headers)))
    rows, ignored = _validate(raw, width)
    ignored += [{"line": line, "reason": reason} for line, reason in headers.items()]
    records_at = dict(body)
    ignored = [
        {**entry, "held": _held(records_at[entry["line"]])}
        for entry in sorted(ignored, key=lambda entry: entry["line"])
    ]
    if rows.height == 0:
        raise LedgerError(f"{path}: no supplier row (only a header, blank or totals lines)")
    return ParsedLedger(
        path=path,
        sha256=sha,
        encoding=records.encoding,
        rows=rows,
        ignored=ignored,
        blank_lines=blank,
        columns_found=[c for c in COLUMNS if c in positions],
        columns={
            "used": {
                c: header[positions[c]].strip().lstrip("\ufeff") for c in COLUMNS if c in positions
            },
            "ignored": ignored_columns,
        },
        header_line=header_line,
    )


def _repeated_headers(
    path: Path,
    header_line: int,
    positions: dict[str, int],
    body: list[tuple[int, list[str]]],
    cells: pl.DataFrame,
) -> dict[int, str]:
    """Rows further down that are a header (two exports pasted together): the header again,
    with the same columns in the same places, is ignored (line -> reason); a header with
    the columns elsewhere refuses the file, since the rows after it would be read into
    the wrong columns."""
    if not body:
        return {}
    is_name = [
        pl.col(c).str.to_lowercase().str.replace_all(r"[^a-z0-9]+", "").is_in(list(_COLUMN_OF))
        for c in cells.columns
    ]
    candidates = (
        cells.with_row_index("at")
        .filter(pl.sum_horizontal(is_name) >= 2)
        .get_column("at")
        .to_list()
    )
    found: dict[int, str] = {}
    for at in candidates:
        line, record = body[at]
        again, _ = _map_header(record)
        if not {"abn", "supplier_name"} <= again.keys():
            continue  # cells that happen to be column names: a row like any other
        if again == positions:
            found[line] = f"the header row again (as on line {header_line}): not a supplier"
            continue
        moved = next(c for c in (*REQUIRED, *COLUMNS) if again.get(c) != positions.get(c))
        here = (
            f"{record[again[moved]].strip()!r} in column {_letter(again[moved])} here"
            if moved in again
            else f"no {moved} column here"
        )
        there = f"column {_letter(positions[moved])} there" if moved in positions else "none there"
        raise LedgerError(
            f"{path}: line {line}: a second header row, with other columns than the header on"
            f" line {header_line} ({here}, {there}); the rows after it would be read into"
            " the wrong columns: split the file in two, one header each"
        )
    return found


# ---------------------------------------------------------------------------------- validating


def _abn_check_digits_ok(abn: pl.Expr) -> pl.Expr:
    """The ABN check-digit rule (pipelines.identifiers) on 11-digit strings, vectorised."""
    total = pl.lit(0, dtype=pl.Int64)
    for i, weight in enumerate(ABN_WEIGHTS):
        digit = abn.str.slice(i, 1).cast(pl.Int64, strict=False)
        if i == 0:
            digit = digit - 1
        total = total + digit * weight
    return (total % 89) == 0


def _acn_check_digit_ok(acn: pl.Expr) -> pl.Expr:
    """The ACN check-digit rule (pipelines.identifiers) on 9-digit strings, vectorised."""
    total = pl.lit(0, dtype=pl.Int64)
    for i, weight in enumerate(ACN_WEIGHTS):
        total = total + acn.str.slice(i, 1).cast(pl.Int64, strict=False) * weight
    return ((10 - total % 10) % 10) == acn.str.slice(8, 1).cast(pl.Int64, strict=False)


def _held_cells(frame: pl.DataFrame) -> pl.DataFrame:
    """``held_<column>``: what a cell a spreadsheet broke held (an error value, a number
    formatted as a date), else null; such a cell is read as no value, and its row is
    reviewed. The ABN's is the whole reason (``abn_held``)."""
    held = {
        column: pl.coalesce(
            pl.col(f"note_{column}"),
            pl.when(pl.col(column).str.contains(_ERROR_CELL)).then(
                pl.format("the spreadsheet error {}", pl.col(column))
            ),
        )
        for column in COLUMNS
    }
    date = pl.col("abn").str.extract(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})( 00:00:00)?$", 1)
    abn_held = (
        pl.when(pl.col("abn").str.contains(_ERROR_CELL))
        .then(
            pl.format(
                "the ABN cell holds the spreadsheet error {} (a formula or lookup that failed),"
                " not an ABN: put the ABN itself in the cell",
                pl.col("abn"),
            )
        )
        .when(pl.col("note_abn").is_not_null())
        .then(
            pl.format(
                "the ABN cell holds {}, not an ABN: format the ABN column as text and send the"
                " file again",
                pl.col("note_abn"),
            )
        )
        .when(pl.col("abn").str.contains(_DATE_CELL))
        .then(
            pl.format(
                "the ABN cell holds the date {}, not an ABN", pl.coalesce(date, pl.col("abn"))
            )
        )
    )
    frame = frame.with_columns(
        abn_held=abn_held,
        **{f"held_{column}": held[column] for column in COLUMNS if column != "abn"},
    )
    return frame.with_columns(
        pl.when(pl.col(f"held_{column}").is_null()).then(pl.col(column)).otherwise(pl.lit(""))
        for column in COLUMNS
        if column != "abn"
    )


def _validate(raw: pl.DataFrame, width: int) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    trimmed = _held_cells(
        raw.with_columns(
            pl.col(c).str.replace_all("\u00a0", " ").str.strip_chars() for c in COLUMNS
        )
    )
    abn_text = pl.col("abn").str.strip_chars_start("'").str.strip_chars()
    abn_digits = abn_text.str.replace_all(r"[\s\-\.]", "").str.replace(r"^([0-9]{11})0*$", "$1")
    # "51824753556.0": a number cell written with its (exact) decimal point
    abn_digits = (
        pl.when(abn_text.str.contains(r"^[0-9 ]{11,14}\.0+$"))
        .then(abn_text.str.replace(r"\.0+$", "").str.replace_all(" ", ""))
        .otherwise(abn_digits)
    )
    no_abn = (
        abn_text.str.to_uppercase().str.replace_all(" ", "").is_in(_NO_ABN)
        | abn_digits.str.contains(r"^0+$")
    ) & pl.col("abn_held").is_null()
    label_ref = pl.col("supplier_ref").str.contains(_TOTALS)
    label_name = pl.col("supplier_name").str.contains(_TOTALS)
    frame = trimmed.with_columns(
        abn_given=pl.col("abn"),
        # a label, the other identity cell empty (or a label too), no ABN, and nothing
        # beside it but amounts
        is_totals=(
            ((label_ref & (label_name | (pl.col("supplier_name") == "")))
             | (label_name & (pl.col("supplier_ref") == "")))
            & no_abn
            & pl.all_horizontal(
                (pl.col(c) == "") & pl.col(f"held_{c}").is_null()
                for c in ("domain", "email", "phone", "state", "postcode")
            )
        ),
        abn_kind=(
            pl.when(pl.col("abn_held").is_not_null())
            .then(pl.lit("abn_unreadable"))
            .when(no_abn)
            .then(pl.lit("none"))
            .when(abn_text.str.contains(_SCIENTIFIC))
            .then(pl.lit("spreadsheet_number"))
            .when(abn_digits.str.contains(r"^[0-9]{9}$") & _acn_check_digit_ok(abn_digits))
            .then(pl.lit("abn_is_acn"))
            .when(~abn_digits.str.contains(r"^[0-9]{11}$"))
            .then(pl.lit("abn_not_11_digits"))
            .when(~_abn_check_digits_ok(abn_digits))
            .then(pl.lit("abn_check_digit"))
            .otherwise(pl.lit("ok"))
        ),
        abn_clean=abn_digits,
    )  # fmt: skip
    ignored = [
        {"line": line, "reason": "a totals row, not a supplier (no ABN)"}
        for line in frame.filter(pl.col("is_totals"))["line"].to_list()
    ]
    frame = frame.filter(~pl.col("is_totals"))

    state_upper = pl.col("state").str.to_uppercase().str.replace_all(r"\s+", " ")
    state = (
        pl.when(pl.col("state") == "")
        .then(None)
        .when(state_upper.is_in(STATES))
        .then(state_upper)
        .otherwise(state_upper.replace_strict(_STATE_NAMES, default=None, return_dtype=pl.String))
    )
    postcode_digits = pl.col("postcode").str.replace(r"\.0+$", "")
    postcode = (
        pl.when(pl.col("postcode") == "")
        .then(None)
        .when(postcode_digits.str.contains(r"^[0-9]{3,4}$"))
        .then(postcode_digits.str.zfill(4))
    )
    amount_text = (
        pl.col("annual_spend_aud").str.to_uppercase().str.replace_all(r"A\$|AUD|\$|,|\s", "")
    )
    negative = amount_text.str.contains(r"^\(.*\)$") | amount_text.str.starts_with("-")
    amount_value = amount_text.str.replace_all(r"[()\-]", "").cast(pl.Float64, strict=False)
    amount = (
        pl.when(pl.col("annual_spend_aud") == "")
        .then(None)
        .otherwise(pl.when(negative).then(-amount_value).otherwise(amount_value))
    )
    flag = pl.col("gst_charged").str.to_uppercase()
    gst_charged = (
        pl.when(flag.is_in(_TRUE)).then(True).when(flag.is_in(_FALSE)).then(False).otherwise(None)
    )
    frame = frame.with_columns(
        state_clean=state,
        postcode_clean=postcode,
        amount=amount,
        gst=gst_charged,
        abn=pl.when(pl.col("abn_kind") == "ok").then(pl.col("abn_clean")),
        acn=pl.when(pl.col("abn_kind") == "abn_is_acn").then(pl.col("abn_clean")),
    )

    # duplicates: every occurrence after the first is reported against the first
    first_ref = (
        frame.filter(pl.col("supplier_ref") != "")
        .group_by("supplier_ref")
        .agg(first_line=pl.col("line").min())
    )
    first_abn = (
        frame.filter(pl.col("abn").is_not_null())
        .sort("line")
        .group_by("abn", maintain_order=True)
        .agg(abn_first_line=pl.col("line").first(), abn_first_ref=pl.col("supplier_ref").first())
    )
    frame = frame.join(first_ref, on="supplier_ref", how="left").join(
        first_abn, on="abn", how="left"
    )

    checks: list[tuple[str, pl.Expr]] = [
        ("abn_unreadable", pl.col("abn_kind") == "abn_unreadable"),
        ("spreadsheet_number", pl.col("abn_kind") == "spreadsheet_number"),
        ("abn_is_acn", pl.col("abn_kind") == "abn_is_acn"),
        ("abn_not_11_digits", pl.col("abn_kind") == "abn_not_11_digits"),
        ("abn_check_digit", pl.col("abn_kind") == "abn_check_digit"),
        ("no_abn_no_name", (pl.col("abn_kind") == "none") & (pl.col("supplier_name") == "")),
        ("duplicate_ref", pl.col("first_line").is_not_null() & (pl.col("first_line") < pl.col("line"))),
        ("duplicate_abn", pl.col("abn_first_line").is_not_null() & (pl.col("abn_first_line") < pl.col("line"))),
        ("unknown_state", (pl.col("state") != "") & pl.col("state_clean").is_null()),
        ("bad_postcode", (pl.col("postcode") != "") & pl.col("postcode_clean").is_null()),
        ("bad_amount", (pl.col("annual_spend_aud") != "") & pl.col("amount").is_null()),
        ("bad_boolean", (pl.col("gst_charged") != "") & pl.col("gst").is_null()),
        ("ragged_row", pl.col("fields") > width),
        *((f"{c}_unreadable", pl.col(f"held_{c}").is_not_null()) for c in COLUMNS if c != "abn"),
    ]  # fmt: skip
    frame = frame.with_columns(
        issues=pl.concat_list(
            [
                pl.when(condition)
                .then(pl.lit([kind]))
                .otherwise(pl.lit([], dtype=pl.List(pl.String)))
                for kind, condition in checks
            ]
        )
    )
    with_issues = frame.with_row_index("position").filter(pl.col("issues").list.len() > 0)
    positions: list[int] = []
    texts: list[list[str]] = []
    for row in with_issues.select(
        "position", "issues", "abn_given", "supplier_ref", "first_line", "abn_first_line",
        "abn_first_ref", "state", "postcode", "annual_spend_aud", "gst_charged", "fields",
        "abn_held", *(f"held_{c}" for c in COLUMNS if c != "abn"),
    ).iter_rows(named=True):  # fmt: skip
        positions.append(row["position"])
        texts.append(
            [
                ISSUE_TEXT[kind].format(
                    abn=row["abn_given"],
                    supplier_ref=row["supplier_ref"],
                    first_line=row["first_line"]
                    if kind == "duplicate_ref"
                    else row["abn_first_line"],
                    first_ref=row["abn_first_ref"] or "(none)",
                    state=row["state"],
                    postcode=row["postcode"],
                    annual_spend_aud=row["annual_spend_aud"],
                    gst_charged=row["gst_charged"],
                    fields=row["fields"],
                    columns=width,
                    abn_held=row["abn_held"],
                    **{f"held_{c}": row[f"held_{c}"] for c in COLUMNS if c != "abn"},
                )
                for kind in row["issues"]
            ]
        )
    issue_texts = pl.DataFrame(
        {"position": positions, "issue_text": texts},
        schema={"position": pl.UInt32, "issue_text": pl.List(pl.String)},
    )
    frame = (
        frame.with_row_index("position")
        .join(issue_texts, on="position", how="left")
        .with_columns(pl.col("issue_text").fill_null(pl.lit([], dtype=pl.List(pl.String))))
        .sort("position")
    )
    rows = frame.select(
        "line",
        pl.col("supplier_ref").replace("", None),
        "abn",
        pl.col("abn_given").replace("", None),
        "acn",
        pl.col("supplier_name").replace("", None),
        pl.col("domain").str.to_lowercase().replace("", None),
        pl.col("email").replace("", None),
        pl.col("phone").replace("", None),
        pl.col("state_clean").alias("state"),
        pl.col("postcode_clean").alias("postcode"),
        pl.col("amount").alias("annual_spend_aud"),
        pl.col("gst").alias("gst_charged"),
        "issues",
        "issue_text",
    )
    return rows, ignored


def usable(issues: Sequence[str]) -> bool:
    """Whether a row's issues leave an ABN (given or to be found by name) to verify."""
    return not any(kind in UNUSABLE_ABN for kind in issues)
