"""Market files: short positions in both encodings, versions, prices; daily incremental loads."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest

from pipelines.ingest.base import LandingFile, SourceFileError
from pipelines.ingest.market import parse_prices, parse_short_positions
from pipelines.ingest.sources import SOURCES
from pipelines.settings import Settings
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.loader import LoadError, load_source

HEADER = [
    "Product",
    "Product Code",
    "Reported Short Positions",
    "Total Product in Issue",
    "% of Total Product in Issue Reported as Short Positions",
]
ROWS = [
    ["BHP GROUP LIMITED ORDINARY", "BHP", "30485732", "5071259231", "0.60"],
    ["PILBARA MINERALS LIMITED ORDINARY", "PLS", "613084210", "3012018876", "20.35"],
    ["COMPANY, WITH COMMA LIMITED", "CWC", "1000", "100000", "1.00"],
]


def _utf16_tab(path: Path, rows: list[list[str]]) -> Path:
    text = "\r\n".join("\t".join(r) for r in [HEADER, *rows]) + "\r\n"
    path.write_bytes(text.encode("utf-16"))  # BOM FF FE, little endian
    return path


def _utf8_comma(path: Path, rows: list[list[str]]) -> Path:
    def field(value: str) -> str:
        return f'"{value}"' if "," in value else value

    text = "\r\n".join(",".join(field(v) for v in r) for r in [HEADER, *rows]) + "\r\n"
    path.write_bytes(text.encode("utf-8"))
    return path


def _rows(path: Path) -> tuple[list[dict], list]:
    rows: list[dict] = []
    quarantine: list = []
    for batch in parse_short_positions(LandingFile(path)):
        rows += batch.tables["positions"].drop_columns(["source_file"]).to_pylist()
        quarantine += batch.quarantine
    return rows, quarantine


def test_utf16_tab_and_utf8_comma_files_give_the_same_rows(tmp_path: Path) -> None:
    old = _utf16_tab(tmp_path / "RR20250102-001-SSDailyAggShortPos.csv", ROWS)
    assert old.read_bytes()[:2] == b"\xff\xfe"
    new = _utf8_comma(tmp_path / "RR20250102-002-SSDailyAggShortPos.csv", ROWS)
    old_rows, _ = _rows(old)
    new_rows, _ = _rows(new)
    assert [{**r, "version": 0} for r in old_rows] == [{**r, "version": 0} for r in new_rows]
    assert old_rows[1] == {
        "position_date": dt.date(2025, 1, 2),  # the position date, from the file name
        "version": 1,
        "product": "PILBARA MINERALS LIMITED ORDINARY",
        "product_code": "PLS",
        "reported_short_positions": 613084210,
        "total_product_in_issue": 3012018876,
        "short_position_pct": 20.35,  # a percent, as published
        "source_line": 3,
    }
    assert new_rows[0]["version"] == 2


def test_a_bad_short_position_row_is_quarantined_and_a_wrong_column_fails_the_file(
    tmp_path: Path,
) -> None:
    bad = [*ROWS, ["ACME LIMITED", "ACM", "lots", "1000", "0.10"]]
    rows, quarantine = _rows(_utf8_comma(tmp_path / "RR20250103-001-SSDailyAggShortPos.csv", bad))
    assert len(rows) == 3
    assert [(q.line, "Reported Short Positions" in q.reason) for q in quarantine] == [(5, True)]
    wrong = tmp_path / "RR20250106-001-SSDailyAggShortPos.csv"
    wrong.write_text("Product,Code,Reported Short Positions\r\nBHP GROUP,BHP,1\r\n")
    with pytest.raises(SourceFileError, match="RR20250106-001-SSDailyAggShortPos.csv"):
        _rows(wrong)
    misnamed = _utf8_comma(tmp_path / "shorts.csv", ROWS)
    with pytest.raises(SourceFileError, match="not a daily short-position file name"):
        _rows(misnamed)


def test_prices_load_good_rows_and_quarantine_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "20250102.txt"
    path.write_text(
        "AAC,20250102,1.85,1.91,1.825,1.91,204866\n"
        "BHP,20250102,40.1,40.5,39.8,n/a,1000\n"
        "CBA,20250102,150,151\n"
        "XYZ,20251302,1,1,1,1,1\n"
        "FEB,20260230,1,1,1,1,1\n"
        "FMG,20250102,20.0,20.4,19.9,20.2,0\n"
    )
    rows: list[dict] = []
    quarantine: list = []
    for batch in parse_prices(LandingFile(path)):
        rows += batch.tables["daily"].to_pylist()
        quarantine += batch.quarantine
    assert [(r["ticker"], r["close"], r["source_line"]) for r in rows] == [
        ("AAC", 1.91, 1),
        ("FMG", 20.2, 6),
    ]
    assert rows[0]["trade_date"] == dt.date(2025, 1, 2)
    reasons = {q.line: q.reason for q in quarantine}
    assert sorted(reasons) == [2, 3, 4, 5]
    assert "close: not a number" in reasons[2]
    assert "expected 7 fields" in reasons[3]
    assert "trade_date" in reasons[4]
    assert "trade_date" in reasons[5]  # 30 February is not rolled over to March


def _day(folder: Path, day: str, rows: list[list[str]], version: str = "001") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return _utf8_comma(folder / f"RR{day}-{version}-SSDailyAggShortPos.csv", rows)


def _loads(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.execute(
        "select status, message from meta.loads where source = 'asic_short_positions'"
        " order by finished_at"
    ).fetchall()


def test_a_new_day_loads_without_reading_the_old_days_again(settings: Settings) -> None:
    source = SOURCES["asic_short_positions"]
    folder = settings.landing_dir / "asic_short_positions"
    bad = [*ROWS, ["ACME LIMITED", "ACM", "lots", "1000", "0.10"]]
    _day(folder, "20250102", bad)
    _day(folder, "20250103", ROWS)
    with warehouse(settings) as con:
        first = load_source(con, source, settings)
        assert first.rows == {"asic__short_positions": 6}
        assert first.extract_date == dt.date(2025, 1, 3)

        _day(folder, "20250106", ROWS[:2])
        _day(folder, "20250103", ROWS[:1], version="002")  # a correction of an old day
        second = load_source(con, source, settings)
        assert second.status == "loaded"
        assert second.rows == {"asic__short_positions": 9}  # 6 carried + 2 + 1 new
        assert second.extract_date == dt.date(2025, 1, 6)
        assert _loads(con)[-1][1] == "9 rows from 4 files (2 new, the rest carried over)"
        assert con.execute("select count(*) from raw.asic__short_positions").fetchone() == (9,)
        # the manifest lists every file the table holds; the old quarantine stays
        assert con.execute(
            "select count(*) from meta.manifest where load_id = ?", [second.load_id]
        ).fetchone() == (4,)
        assert con.execute(
            "select count(*) from meta.quarantine where source = 'asic_short_positions'"
        ).fetchone() == (1,)
        assert load_source(con, source, settings).status == "unchanged"

        # an old file rewritten: everything is read again
        _day(folder, "20250102", ROWS)
        third = load_source(con, source, settings)
        assert third.rows == {"asic__short_positions": 9}
        assert _loads(con)[-1][1] == "9 rows from 4 files"


def test_a_bad_new_day_fails_and_keeps_the_days_loaded(settings: Settings) -> None:
    source = SOURCES["asic_short_positions"]
    folder = settings.landing_dir / "asic_short_positions"
    _day(folder, "20250102", ROWS)
    with warehouse(settings) as con:
        load_source(con, source, settings)
        (folder / "RR20250103-001-SSDailyAggShortPos.csv").write_text("Product,Code\r\nX,Y\r\n")
        with pytest.raises(LoadError, match="RR20250103-001-SSDailyAggShortPos.csv"):
            load_source(con, source, settings)
        assert con.execute("select count(*) from raw.asic__short_positions").fetchone() == (3,)


def test_a_day_with_no_prices_fails_naming_the_file_and_keeps_the_loaded_days(
    settings: Settings,
) -> None:
    source = SOURCES["prices_asx"]
    folder = settings.landing_dir / "prices" / "asx"
    folder.mkdir(parents=True)
    (folder / "20250102.txt").write_text("AAC,20250102,1.85,1.91,1.825,1.91,204866\n")
    with warehouse(settings) as con:
        assert load_source(con, source, settings).rows == {"prices__asx": 1}
        (folder / "20250103.txt").write_text("\n")
        with pytest.raises(LoadError, match="20250103.txt: no prices in the file"):
            load_source(con, source, settings)
        assert con.execute("select count(*) from raw.prices__asx").fetchone() == (1,)
