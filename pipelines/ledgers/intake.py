"""Reading a customer's supplier ledger: the file as a finance team exports it.

A ledger is ``ledgers/<customer_id>/<ledger_name>.csv`` or ``.xlsx`` (first sheet) with the
columns of LANDING.md (section B): ``supplier_ref, abn, supplier_name, domain, email, phone,
state, postcode, annual_spend_aud, gst_charged``. Spreadsheet exports are messy, so this
module reads what finance tools write and says, row by row, what it could not use:

* encodings: UTF-8 with or without a BOM, UTF-16 with a BOM (Excel's "Unicode text"),
  else Windows-1252 (older Excel on Windows); the delimiter is read from the header line
  (comma, semicolon or tab);
* header names in any case and spacing (``Supplier Ref``, ``ABN``); ``abn`` and
  ``supplier_name`` are required, the rest optional; unknown columns are ignored;
* ABNs with spaces, hyphens or a leading apostrophe (Excel's "keep as text" mark); an ABN
  a spreadsheet turned into a number in scientific notation (``5.1824753556E+10``) is
  reported, never guessed at; ``0``, ``N/A``, ``TBA`` and the like mean "no ABN";
* amounts with ``$``, ``A$``, ``AUD``, thousands separators and accounting negatives
  ``(1,200.00)``; booleans as ``true/false``, ``yes/no``, ``Y/N``, ``1/0``;
* state names spelled out (``New South Wales``), postcodes that lost their leading zero
  (``800`` for ``0800``);
* blank lines (counted) and totals rows (``Total``, ``Grand total``; no ABN) (listed as
  ignored, with their line).

Every other row is kept, with the problems found (``issues``), so nothing a customer sent
is dropped silently. A file that cannot be read at all (unknown encoding, no header, no
``abn`` or ``supplier_name`` column, no supplier row) raises :class:`LedgerError` naming
the file. Validation is vectorised with polars; the CSV reader keeps each row's first
physical line so a finance person can find it.
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

from pipelines.identifiers import ABN_WEIGHTS

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
# A row whose reference or name reads as a totals line (and has no ABN) is not a supplier.
_TOTALS = r"(?i)^\s*(grand\s+|sub\s*-?\s*)?totals?\b"
# A number in scientific notation: what a spreadsheet makes of an 11-digit ABN.
_SCIENTIFIC = r"^[0-9](\.[0-9]+)?[eE]\+?[0-9]+$"

# Issue kinds. Those that leave no ABN to verify are "unusable".
UNUSABLE_ABN = ("spreadsheet_number", "abn_not_11_digits", "abn_check_digit", "no_abn_no_name")
ISSUE_TEXT = {
    "spreadsheet_number": (
        "the ABN was turned into a number by a spreadsheet ({abn}) and its digits cannot be"
        " recovered: export the ABN column as text"
    ),
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
}


class LedgerError(ValueError):
    """A ledger file that cannot be read at all; the message names the file."""


@dataclass
class ParsedLedger:
    """One ledger file, read. ``rows`` holds one row per supplier line (strings cleaned,
    ``abn`` the 11 digits when usable, ``issues`` a list of issue kinds, ``issue_text`` the
    reasons a finance person reads)."""

    path: Path
    sha256: str
    encoding: str
    rows: pl.DataFrame
    ignored: list[dict[str, Any]] = field(default_factory=list)
    blank_lines: int = 0
    columns_found: list[str] = field(default_factory=list)


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


def _header_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lstrip("\ufeff").lower()).strip("_")


def _delimiter(header_line: str) -> str:
    counts = {d: header_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _read_csv(path: Path, data: bytes) -> tuple[list[tuple[int, list[str]]], str]:
    text, encoding = _decode(data, path)
    if "\x00" in text:
        raise LedgerError(f"{path}: holds NUL characters; not a text (CSV) file")
    first = next((line for line in text.splitlines() if line.strip()), "")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(first))
    rows: list[tuple[int, list[str]]] = []
    line = 1
    try:
        for record in reader:
            rows.append((line, record))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise LedgerError(f"{path}: not a readable CSV file near line {line}: {exc}") from exc
    return rows, encoding


def _read_xlsx(path: Path) -> list[tuple[int, list[str]]]:
    import fastexcel

    try:
        reader = fastexcel.read_excel(path)
        sheet = reader.load_sheet(0, header_row=None, skip_rows=0, dtypes="string")
        frame = sheet.to_polars()
    except Exception as exc:  # fastexcel raises its own error types for broken workbooks
        raise LedgerError(f"{path}: not a readable .xlsx workbook ({exc})") from exc
    rows: list[tuple[int, list[str]]] = []
    for index, record in enumerate(frame.iter_rows()):
        rows.append((index + 1, ["" if v is None else str(v) for v in record]))
    return rows


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
        records, encoding = _read_xlsx(path), "xlsx"
    else:
        records, encoding = _read_csv(path, data)
    sha = hashlib.sha256(data).hexdigest()

    blank = 0
    header: list[str] | None = None
    body: list[tuple[int, list[str]]] = []
    for line, record in records:
        if not "".join(record).strip():
            blank += 1
            continue
        if header is None:
            header = [_header_key(v) for v in record]
            continue
        body.append((line, record))
    if header is None:
        raise LedgerError(f"{path}: empty file (no header row)")
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise LedgerError(
            f"{path}: no {' and no '.join(repr(c) for c in missing)} column in the header"
            f" (found: {', '.join(h for h in header if h) or 'nothing'})"
        )
    positions = {name: header.index(name) for name in COLUMNS if name in header}
    width = len(header)
    # trailing empty cells beyond the header are not a fault (spreadsheets pad rows)
    fields = []
    for _, record in body:
        n = len(record)
        while n > width and not record[n - 1].strip():
            n -= 1
        fields.append(n)
    columns = list(zip(*(r[:width] + [""] * (width - len(r)) for _, r in body), strict=True))
    empty = pa.array([""] * len(body), type=pa.string())
    raw = pl.from_arrow(
        pa.table(
            {
                "line": pa.array([line for line, _ in body], type=pa.int64()),
                **{
                    name: pa.array(columns[positions[name]], type=pa.string())
                    if name in positions and columns
                    else empty
                    for name in COLUMNS
                },
                "fields": pa.array(fields, type=pa.int64()),
            }
        )
    )
    assert isinstance(raw, pl.DataFrame)
    rows, ignored = _validate(raw, width)
    if rows.height == 0:
        raise LedgerError(f"{path}: no supplier row (only a header, blank or totals lines)")
    return ParsedLedger(
        path=path,
        sha256=sha,
        encoding=encoding,
        rows=rows,
        ignored=ignored,
        blank_lines=blank,
        columns_found=[c for c in COLUMNS if c in positions],
    )


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


def _validate(raw: pl.DataFrame, width: int) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    trimmed = raw.with_columns(
        pl.col(c).str.replace_all("\u00a0", " ").str.strip_chars() for c in COLUMNS
    )
    abn_text = pl.col("abn").str.strip_chars_start("'").str.strip_chars()
    abn_digits = abn_text.str.replace_all(r"[\s\-\.]", "").str.replace(r"^([0-9]{11})0*$", "$1")
    # "51824753556.0": a number cell written with its (exact) decimal point
    abn_digits = (
        pl.when(abn_text.str.contains(r"^[0-9 ]{11,14}\.0+$"))
        .then(abn_text.str.replace(r"\.0+$", "").str.replace_all(" ", ""))
        .otherwise(abn_digits)
    )
    no_abn = abn_text.str.to_uppercase().str.replace_all(" ", "").is_in(_NO_ABN) | (
        abn_digits.str.contains(r"^0+$")
    )
    frame = trimmed.with_columns(
        abn_given=pl.col("abn"),
        is_totals=(
            (
                pl.col("supplier_ref").str.contains(_TOTALS)
                | pl.col("supplier_name").str.contains(_TOTALS)
            )
            & no_abn
        ),
        abn_kind=(
            pl.when(no_abn)
            .then(pl.lit("none"))
            .when(abn_text.str.contains(_SCIENTIFIC))
            .then(pl.lit("spreadsheet_number"))
            .when(~abn_digits.str.contains(r"^[0-9]{11}$"))
            .then(pl.lit("abn_not_11_digits"))
            .when(~_abn_check_digits_ok(abn_digits))
            .then(pl.lit("abn_check_digit"))
            .otherwise(pl.lit("ok"))
        ),
        abn_clean=abn_digits,
    )
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
        ("spreadsheet_number", pl.col("abn_kind") == "spreadsheet_number"),
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
