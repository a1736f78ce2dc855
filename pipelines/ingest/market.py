"""Market files (LANDING.md A): ASIC daily aggregated short positions and end-of-day prices.

* **Short positions**, ``RRYYYYMMDD-VVV-SSDailyAggShortPos.csv``: one file per trading day;
  ``YYYYMMDD`` is the position date (the data's date, not the publication date) and ``VVV``
  a version (``002`` replaces ``001`` for the same day: both load, staging keeps the newest).
  Older files are UTF-16 LE with a BOM and tab-separated, newer ones UTF-8 and comma-
  separated: :mod:`pipelines.ingest.delimited` detects both from the bytes and the header
  line, so the two give the same rows. Columns are matched by header name; the percentage
  is a percent (1.92 means 1.92 %).
* **Prices**, ``prices/<market>/YYYYMMDD.txt``: no header, ``ticker,YYYYMMDD,open,high,low,
  close,volume``. A row with the wrong number of fields, a bad date or a non-numeric value
  is quarantined with its line; the rest load.

Both folders accumulate one file per day: a load reads only the files it has not loaded
(``Source.incremental``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.ingest import tables as t
from pipelines.ingest.base import Batch, FileInfo, LandingFile, Quarantined, SourceFileError
from pipelines.ingest.delimited import declared_spec, parse_typed, read_delimited

SHORT_POSITIONS_PATTERN = "*DailyAggShortPos.csv"
_SHORT_NAME = re.compile(r"^RR(\d{8})-(\d{3})-SSDailyAggShortPos\.csv$", re.IGNORECASE)

# position_date and version come from the file name; the rest by header name.
SHORT_POSITIONS = declared_spec(
    "ASIC daily aggregated short positions",
    "positions",
    t.ASIC_SHORT_POSITIONS,
    delimiter=None,  # tab (UTF-16 files) or comma (UTF-8 files), read from the header
    quoted=True,
)


def short_positions_day(name: str) -> tuple[dt.date, int]:
    """(position date, version) from the file name; SourceFileError when it is not one."""
    found = _SHORT_NAME.match(name)
    if not found:
        raise SourceFileError(
            name, "not a daily short-position file name RRYYYYMMDD-VVV-SSDailyAggShortPos.csv"
        )
    try:
        day = dt.datetime.strptime(found[1], "%Y%m%d").date()
    except ValueError as exc:
        raise SourceFileError(name, f"no such position date {found[1]}") from exc
    return day, int(found[2])


def parse_short_positions(file: LandingFile, batch_rows: int = 100_000) -> Iterator[Batch]:
    day, version = short_positions_day(file.inner_name)
    for batch in read_delimited(file, SHORT_POSITIONS, batch_rows):
        rows = batch.tables["positions"]
        n = rows.num_rows
        rows = rows.add_column(0, "version", pa.array(np.full(n, version, dtype=np.int64)))
        rows = rows.add_column(0, "position_date", pa.array([day] * n, type=pa.date32()))
        batch.tables["positions"] = rows.select(t.ASIC_SHORT_POSITIONS.schema.names).cast(
            t.ASIC_SHORT_POSITIONS.schema
        )
        yield batch


def short_positions_info(file: LandingFile) -> FileInfo:
    day, _ = short_positions_day(file.inner_name)
    return FileInfo(extract_date=day)


# --- prices ---------------------------------------------------------------------------------

PRICES_PATTERN = "*.txt"
# the fields of a line, in the declared order (no header)
_PRICE_FIELDS = tuple(c.name for c in t.PRICES_DAILY.loaded)
_PRICE_NAME = re.compile(r"^(\d{8})\.txt$", re.IGNORECASE)


def parse_prices(file: LandingFile, batch_rows: int = 100_000) -> Iterator[Batch]:
    """One day's prices; rows with a wrong field count or a bad value are quarantined."""
    with file.open() as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceFileError(file.name, f"not UTF-8 text: {exc}") from exc
    quarantine: list[Quarantined] = []
    fields: list[list[str]] = []
    lines: list[int] = []
    raws: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != len(_PRICE_FIELDS):
            quarantine.append(
                Quarantined(file.name, number, f"expected 7 fields, found {len(parts)}", line)
            )
            continue
        fields.append(parts)
        lines.append(number)
        raws.append(line)
    if not fields and not quarantine:
        raise SourceFileError(file.name, "no prices in the file (a trading day's file is empty)")
    columns = list(zip(*fields, strict=True)) if fields else [()] * len(_PRICE_FIELDS)
    text_columns = {
        name: pa.array(values, type=pa.string())
        for name, values in zip(_PRICE_FIELDS, columns, strict=True)
    }
    bad_reasons: list[list[str]] = [[] for _ in lines]
    dates = pc.strptime(text_columns["trade_date"], format="%Y%m%d", unit="s", error_is_null=True)
    # strptime rolls impossible days over (20260230 -> 2 March): a real date reads back as written
    as_written = pc.equal(pc.strftime(dates, format="%Y%m%d"), text_columns["trade_date"])
    bad_date = ~np.asarray(as_written.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
    typed: dict[str, pa.Array] = {
        "ticker": text_columns["ticker"],
        "trade_date": pc.cast(dates, pa.date32()),
    }
    for i in np.flatnonzero(bad_date):
        bad_reasons[i].append(f"trade_date: not a date YYYYMMDD: {columns[1][i]!r}")
    for name in ("open", "high", "low", "close", "volume"):
        values, bad = parse_typed(text_columns[name], pa.float64())
        typed[name] = values
        for i in np.flatnonzero(bad):
            bad_reasons[i].append(
                f"{name}: not a number: {columns[_PRICE_FIELDS.index(name)][i]!r}"
            )
    for row, parts in enumerate(fields):
        if not parts[0] or not parts[5]:
            bad_reasons[row].append("ticker and close are required")
    keep = np.array([not reasons for reasons in bad_reasons], dtype=bool)
    for i in np.flatnonzero(~keep):
        quarantine.append(Quarantined(file.name, lines[i], "; ".join(bad_reasons[i]), raws[i]))
    table = pa.table(typed).filter(pa.array(keep, type=pa.bool_())) if lines else None
    kept_lines = np.asarray(lines, dtype=np.int64)[keep] if lines else np.zeros(0, np.int64)
    if table is None:
        rows = t.PRICES_DAILY.schema.empty_table()
    else:
        rows = table.append_column(
            "source_file", pa.array([file.name] * table.num_rows, pa.string())
        )
        rows = rows.append_column("source_line", pa.array(kept_lines, pa.int64()))
        rows = rows.cast(t.PRICES_DAILY.schema)
    for start in range(0, max(rows.num_rows, 1), batch_rows):
        yield Batch(
            tables={"daily": rows.slice(start, batch_rows)},
            quarantine=quarantine if start == 0 else [],
        )


def prices_info(file: LandingFile) -> FileInfo:
    found = _PRICE_NAME.match(file.inner_name)
    if not found:
        return FileInfo()
    try:
        return FileInfo(extract_date=dt.datetime.strptime(found[1], "%Y%m%d").date())
    except ValueError:
        return FileInfo()
