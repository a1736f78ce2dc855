"""The incremental squeeze models: a build recomputes only the days whose files changed, and
gives what a whole recompute gives (macros/market/incremental.sql).

Real landing files, the real loader and the real dbt: six weeks of prices and short
positions for two ASX products, and three months of a crypto pair with its positioning (its
signals scaled on its own trailing year, read back from the days a build keeps), then a new
day, a version 002 of an older day, a build with nothing new, and a day's file taken away
again.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import duckdb
import pytest
from test_dbt_build import query, run_dbt

from pipelines.ingest.sources import SOURCES
from pipelines.settings import Settings
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.loader import load_source

SOURCES_READ = (
    "prices_asx",
    "prices_crypto",
    "prices_forex",
    "asic_short_positions",
    "positioning",
)
SQUEEZE = "int_squeeze__inputs squeeze_scores squeeze_latest"
DAYS = [d for d in (dt.date(2026, 9, 1) + dt.timedelta(n) for n in range(60)) if d.weekday() < 5]
FIRST, CORRECTED, NEW = DAYS[:30], DAYS[24], DAYS[30]
# the crypto pair trades every day for six weeks before, then on the ASX days
CRYPTO_DAYS = [dt.date(2026, 7, 20) + dt.timedelta(n) for n in range(43)] + DAYS
SHORT_HEADER = "Product,Product Code,Reported Short Positions,Total Product in Issue,% of Total Product in Issue Reported as Short Positions\r\n"  # noqa: E501


def _price_day(landing: Path, day: dt.date) -> Path:
    path = landing / "prices" / "asx" / f"{day:%Y%m%d}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    n = DAYS.index(day)
    lines = [
        # AAA climbs with a wobble, its volume growing; BBB is flat, its volume steady
        f"AAA,{day:%Y%m%d},1.0,1.1,0.9,{1 + 0.02 * n + 0.03 * (n % 3):.3f},{100000 + 5000 * n}",
        f"BBB,{day:%Y%m%d},5.0,5.1,4.9,5.000,200000",
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _crypto_day(landing: Path, day: dt.date) -> None:
    """CCC's price (a wave, its volume too) and its short share of open interest."""
    n = CRYPTO_DAYS.index(day)
    price = landing / "prices" / "crypto" / f"{day:%Y%m%d}.txt"
    price.parent.mkdir(parents=True, exist_ok=True)
    close = 10 + 2 * math.sin(n / 4) + 0.05 * n
    volume = int(1000 + 400 * math.cos(n / 3))
    price.write_text(
        f"CCC,{day:%Y%m%d},{close:.4f},{close + 1:.4f},{close - 1:.4f},{close:.4f},{volume}\n"
    )
    share = landing / "positioning" / f"crypto_{day:%Y%m%d}.csv"
    share.parent.mkdir(parents=True, exist_ok=True)
    share.write_text(
        "date,symbol,short_interest_pct,source\n"
        f"{day.isoformat()},CCC,{45 + 8 * math.sin(n / 6):.2f},exchange-aggregate\n"
    )


def _short_day(landing: Path, day: dt.date, aaa_pct: float, version: str = "001") -> Path:
    path = landing / "asic_short_positions" / f"RR{day:%Y%m%d}-{version}-SSDailyAggShortPos.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    issued = 10_000_000
    rows = [
        f"AAA LIMITED,AAA,{int(issued * aaa_pct / 100)},{issued},{aaa_pct:.2f}",
        f"BBB LIMITED,BBB,100000,{issued},1.00",
    ]
    path.write_text(SHORT_HEADER + "\r\n".join(rows) + "\r\n")
    return path


def _load(settings: Settings) -> None:
    with warehouse(settings) as con:
        for name in SOURCES_READ:
            load_source(con, SOURCES[name], settings)


def _build(
    settings: Settings, work: Path, as_of: dt.date, *args: str, select: str = SQUEEZE
) -> None:
    result = run_dbt(
        "run", settings.warehouse, work, "--select", select, *args,
        env={"BVS_AS_OF": as_of.isoformat()},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def _scores(settings: Settings) -> list[tuple]:
    """Every score row, doubles to 9 decimals (a window's sum may differ in its last bit)."""
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute(
            "select * exclude (built_at) replace (round(momentum, 9) as momentum,"
            " round(volume_ratio, 9) as volume_ratio, round(days_to_cover, 9) as days_to_cover)"
            " from marts.squeeze_scores order by market, ticker, score_date"
        ).fetchall()
    finally:
        con.close()


def _builds(settings: Settings) -> list[dict]:
    """The builds of the ASX rows."""
    return query(
        settings.warehouse,
        "select built_at, recomputed_from, min(trade_date) as first_day,"
        " max(trade_date) as last_day, count(*) as rows"
        " from intermediate.int_squeeze__inputs where market = 'asx'"
        " group by all order by built_at",
    )


@pytest.fixture
def built(settings: Settings, tmp_path: Path) -> tuple[Settings, Path]:
    """Thirty trading days loaded and built whole."""
    landing = settings.landing_dir
    for n, day in enumerate(FIRST):
        _price_day(landing, day)
        _short_day(landing, day, aaa_pct=2.0 + 0.1 * n)
    for day in CRYPTO_DAYS[: CRYPTO_DAYS.index(FIRST[-1]) + 1]:
        _crypto_day(landing, day)
    _load(settings)
    work = tmp_path / "dbt"
    work.mkdir()
    result = run_dbt("seed", settings.warehouse, work, "--select", "squeeze_coverage")
    assert result.returncode == 0, result.stdout + result.stderr
    _build(settings, work, FIRST[-1], select="+" + SQUEEZE.replace(" ", " +"))
    return settings, work


def test_a_new_day_and_a_correction_rebuild_from_the_correction_only(
    built: tuple[Settings, Path],
) -> None:
    settings, work = built
    [first_build] = _builds(settings)
    assert first_build["recomputed_from"] is None  # the first build is whole
    assert first_build["rows"] == 2 * len(FIRST)

    # a new day, and version 002 of an older day's short positions: AAA at 9.99 %
    _price_day(settings.landing_dir, NEW)
    _short_day(settings.landing_dir, NEW, aaa_pct=5.0)
    _short_day(settings.landing_dir, CORRECTED, aaa_pct=9.99, version="002")
    _crypto_day(settings.landing_dir, NEW)
    _load(settings)
    _build(settings, work, NEW)

    kept, rebuilt = _builds(settings)
    assert kept["built_at"] == first_build["built_at"]
    assert kept["last_day"] < CORRECTED  # the days before the correction were not touched
    assert rebuilt["recomputed_from"] == CORRECTED
    assert (rebuilt["first_day"], rebuilt["last_day"]) == (CORRECTED, NEW)
    assert rebuilt["rows"] == 2 * (DAYS.index(NEW) - DAYS.index(CORRECTED) + 1)
    assert query(
        settings.warehouse,
        "select short_interest_pct from intermediate.int_squeeze__inputs"
        f" where ticker = 'AAA' and trade_date = '{CORRECTED}'",
    ) == [{"short_interest_pct": 9.99}]
    latest = query(
        settings.warehouse,
        "select ticker, score_date, previous_score_date from marts.squeeze_latest"
        " where market = 'asx' order by ticker",
    )
    assert [(r["score_date"], r["previous_score_date"]) for r in latest] == [
        (NEW, FIRST[-1]),
        (NEW, FIRST[-1]),
    ]

    # the crypto pair's rescored days were scaled on their trailing year
    assert query(
        settings.warehouse,
        "select signals_used from marts.squeeze_scores where ticker = 'CCC'"
        f" and score_date >= '{CORRECTED}' group by all",
    ) == [{"signals_used": "short_interest, momentum, volume_ratio"}]

    # the same warehouse recomputed whole gives the same scores
    incremental = _scores(settings)
    _build(settings, work, NEW, "--full-refresh")
    assert _scores(settings) == incremental
    assert sum(row[0] == "asx" for row in incremental) == 2 * (len(FIRST) + 1)


def test_nothing_new_rewrites_nothing_and_a_day_whose_file_is_gone_leaves_the_scores(
    built: tuple[Settings, Path],
) -> None:
    settings, work = built
    before = _builds(settings)
    scores_built = query(settings.warehouse, "select max(built_at) as at from marts.squeeze_scores")
    _load(settings)  # every source unchanged
    _build(settings, work, FIRST[-1])
    assert _builds(settings) == before
    assert (
        query(settings.warehouse, "select max(built_at) as at from marts.squeeze_scores")
        == scores_built
    )

    _price_day(settings.landing_dir, NEW)
    _load(settings)
    _build(settings, work, NEW)
    assert query(settings.warehouse, "select max(score_date) as d from marts.squeeze_scores") == [
        {"d": NEW}
    ]
    # the new day's file taken away: the loader reads the rest again, the day's scores go
    (settings.landing_dir / "prices" / "asx" / f"{NEW:%Y%m%d}.txt").unlink()
    _load(settings)
    _build(settings, work, NEW)
    assert query(settings.warehouse, "select max(score_date) as d from marts.squeeze_scores") == [
        {"d": FIRST[-1]}
    ]
    assert query(
        settings.warehouse, "select score_date from marts.squeeze_latest where ticker = 'AAA'"
    ) == [{"score_date": FIRST[-1]}]
    scores = _scores(settings)
    _build(settings, work, NEW, "--full-refresh")
    assert _scores(settings) == scores
