"""The market sample: short positions, prices, positioning and activist files in their
landing formats, planted cases whose recorded values are what the files hold, reproducible
bytes, and the real activist campaigns copied unchanged."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from bvs_sample import DEFAULT_EXTRACT_DATE, write_sample
from bvs_sample import market as M

SCALE = 3_000
SEED = 9
EXTRACT = DEFAULT_EXTRACT_DATE  # a Wednesday
SHARED_CAMPAIGNS = Path("/work/shared/data/activist_campaigns.csv")
SHORT_HEADER = [
    "Product",
    "Product Code",
    "Reported Short Positions",
    "Total Product in Issue",
    "% of Total Product in Issue Reported as Short Positions",
]


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("market")
    write_sample(root, scale=SCALE, seed=SEED, workers=2)
    return root


@pytest.fixture(scope="module")
def doc(landing: Path) -> dict:
    return json.loads((landing / "_sample" / "planted.json").read_text())


def _short_text(path: Path) -> tuple[str, str]:
    """(text, delimiter) of a short-position file, from its bytes."""
    data = path.read_bytes()
    if data.startswith(b"\xff\xfe"):
        return data[2:].decode("utf-16-le"), "\t"
    return data.decode("utf-8"), ","


def _short_rows(path: Path) -> list[list[str]]:
    text, delimiter = _short_text(path)
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


def _short_day(landing: Path, day: dt.date) -> dict[str, list[str]]:
    """Rows by ticker of the newest version of a day's short-position file."""
    versions = sorted((landing / "asic_short_positions").glob(f"RR{day:%Y%m%d}-*.csv"))
    return {row[1]: row for row in _short_rows(versions[-1])[1:]}


def _prices(landing: Path, market: str) -> dict[dt.date, dict[str, list[str]]]:
    out = {}
    for path in sorted((landing / "prices" / market).glob("*.txt")):
        day = dt.datetime.strptime(path.stem, "%Y%m%d").date()
        out[day] = {line.split(",")[0]: line.split(",") for line in path.read_text().splitlines()}
    return out


def _series(prices: dict[dt.date, dict[str, list[str]]], ticker: str, field: int) -> list[float]:
    return [float(prices[day][ticker][field]) for day in sorted(prices)]


# -- formats ----------------------------------------------------------------------------------


def test_short_position_files_switch_from_utf16_tab_to_utf8_comma(landing: Path) -> None:
    files = sorted((landing / "asic_short_positions").iterdir())
    names = [p.name for p in files]
    assert all(M._SHORT_NAME.match(n) for n in names)
    first, last = files[0], files[-1]
    data = first.read_bytes()
    assert data[:2] == b"\xff\xfe", "UTF-16 LE with a BOM"
    text = data[2:].decode("utf-16-le")
    assert text.split("\r\n")[0].split("\t") == SHORT_HEADER
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    data = last.read_bytes()
    assert not data.startswith((b"\xff\xfe", b"\xef\xbb\xbf")), "UTF-8, no BOM"
    text = data.decode("utf-8")
    assert text.split("\r\n")[0] == ",".join(SHORT_HEADER)
    assert text.endswith("\r\n") and "\t" not in text
    # the cut-over is about four months into the year, and every file is one or the other
    utf16 = [f for f in files if f.read_bytes()[:2] == b"\xff\xfe"]
    cutover = min(
        dt.datetime.strptime(f.name[2:10], "%Y%m%d").date() for f in files if f not in utf16
    )
    start = EXTRACT - dt.timedelta(days=364)
    assert 110 <= (cutover - start).days <= 130
    assert all(f.name[2:10] < f"{cutover:%Y%m%d}" for f in utf16)
    for f in (files[0], files[-1]):
        rows = _short_rows(f)
        assert {len(r) for r in rows} == {5}
    last_rows = _short_rows(last)[1:]
    for product, code, short, issued, pct in last_rows:
        assert product.endswith(" ORDINARY") and len(code) == 3 and code.isupper()
        assert abs(float(pct) - int(short) * 100 / int(issued)) <= 0.005 + 1e-9
        assert pct == f"{float(pct):.2f}"


def test_a_002_file_corrects_some_rows_of_its_day(landing: Path, doc: dict) -> None:
    corrections = doc["market_corrections"]
    assert len(corrections) == M.CORRECTION_DAYS
    folder = landing / "asic_short_positions"
    for fix in corrections:
        old, new = _short_rows(folder / fix["replaces"]), _short_rows(folder / fix["file"])
        assert fix["file"].replace("-002-", "-001-") == fix["replaces"]
        assert old[0] == new[0] == SHORT_HEADER and len(old) == len(new)
        changed = sorted(a[1] for a, b in zip(old, new, strict=True) if a != b)
        assert changed == fix["tickers"] and changed


def test_price_files_have_seven_fields_and_no_header(landing: Path) -> None:
    last_weekday = EXTRACT if EXTRACT.weekday() < 5 else EXTRACT - dt.timedelta(days=1)
    for market in ("asx", "crypto", "forex"):
        files = sorted((landing / "prices" / market).iterdir())
        days = [dt.datetime.strptime(f.stem, "%Y%m%d").date() for f in files]
        weekend = [d for d in days if d.weekday() >= 5]
        if market == "crypto":
            assert len(days) == 365 and weekend and days[-1] == EXTRACT
        else:
            assert not weekend and days[-1] == last_weekday
            assert len(days) == sum(
                (EXTRACT - dt.timedelta(days=i)).weekday() < 5 for i in range(365)
            )
        for f in files[-3:]:
            for line in f.read_text("ascii").splitlines():
                fields = line.split(",")
                assert len(fields) == 7 and fields[1] == f.stem
                o, h, lo, c = (float(x) for x in fields[2:6])
                assert h >= max(o, c) and lo <= min(o, c) and lo > 0
                assert fields[6].isdigit()
                if market == "forex":
                    assert fields[6] == "0"
    forex = {line.split(",")[0] for line in files[-1].read_text().splitlines()}
    assert forex == {"AUDUSD", "AUDGBP", "AUDEUR", "AUDJPY", "AUDCAD", "AUDNZD", "AUDCHF"}
    symbols = (landing / "prices" / "crypto" / f"{EXTRACT:%Y%m%d}.txt").read_text().splitlines()
    assert {s.split(",")[0] for s in symbols} == set(
        ["BTC", "ETH", "XRP", "SOL", "ADA", "DOGE", "AVAX", "LINK"]
    )


def test_every_priced_ticker_is_in_the_asx_list(landing: Path) -> None:
    text = (landing / "asx_listed" / "ASXListedCompanies.csv").read_bytes().decode("utf-8")
    rows = list(csv.reader(io.StringIO(text.split("\r\n", 2)[2], newline="")))
    listed = {r[1]: r[0] for r in rows[1:] if len(r) == 3 and r[1]}
    prices = (landing / "prices" / "asx" / f"{EXTRACT:%Y%m%d}.txt").read_text().splitlines()
    tickers = [line.split(",")[0] for line in prices]
    assert len(tickers) == len(set(tickers)) == M.product_count(SCALE) == 40
    assert set(tickers) <= set(listed)
    assert all(len(t) == 3 and t.isalpha() and t.isupper() for t in tickers)
    core = "BHP CBA CSL NAB WBC ANZ WES MQG WOW TLS RIO FMG GMG TCL WDS ALL REA COL STO QBE"
    assert set(core.split()) <= set(tickers)
    assert listed["BHP"] == "BHP GROUP LIMITED"
    others = [t for t in tickers if t not in core.split()]
    assert all(listed[t].endswith((" LIMITED", " LTD")) for t in others)
    shorts = _short_day(landing, dt.date(2026, 11, 18))
    assert shorts["BHP"][0] == "BHP GROUP LIMITED ORDINARY"
    assert set(shorts) == set(tickers)


def test_positioning_files(landing: Path) -> None:
    for name, source, symbols in (
        ("crypto", "exchange-aggregate", 8),
        ("forex", "cftc-cot", 7),
    ):
        rows = list(csv.DictReader((landing / "positioning" / f"{name}.csv").open()))
        assert list(rows[0]) == ["date", "symbol", "short_interest_pct", "source"]
        assert {r["source"] for r in rows} == {source}
        assert len({r["symbol"] for r in rows}) == symbols
        dates = sorted({dt.date.fromisoformat(r["date"]) for r in rows})
        if name == "crypto":
            assert len(dates) == 365 and dates[-1] == EXTRACT
        else:
            assert {d.weekday() for d in dates} == {1} and 50 <= len(dates) <= 53
        values = [float(r["short_interest_pct"]) for r in rows if r["short_interest_pct"] != "n/a"]
        assert min(values) > 0 and max(values) < 100


# -- planted cases ----------------------------------------------------------------------------


def test_planted_cases_hold_what_the_files_hold(landing: Path, doc: dict) -> None:
    cases = doc["market"]
    kinds = Counter((c["market"], c["kind"]) for c in cases)
    assert kinds == {("asx", "squeezer"): 3, ("asx", "calm"): 3, ("crypto", "squeezer"): 1,
                     ("asx", "live_campaign"): 1}  # fmt: skip
    asx = _prices(landing, "asx")
    crypto = _prices(landing, "crypto")
    last = max(asx)
    shorts = _short_day(landing, last)
    for case in cases:
        prices = asx if case["market"] == "asx" else crypto
        closes = _series(prices, case["ticker"], 5)
        volumes = _series(prices, case["ticker"], 6)
        momentum = closes[-1] / closes[-6] - 1
        ratio = volumes[-1] / (sum(volumes[-21:-1]) / 20)
        assert case["momentum_5d"] == pytest.approx(momentum, abs=1e-4)
        assert case["volume_ratio"] == pytest.approx(ratio, abs=1e-4)
        if case["market"] == "asx":
            row = shorts[case["ticker"]]
            assert case["short_interest_pct"] == float(row[4])
            assert case["short_position"] == int(row[2])
            cover = int(row[2]) / (sum(volumes[-20:]) / 20)
            assert case["days_to_cover"] == pytest.approx(cover, abs=1e-4)
        else:
            positioning = list(csv.DictReader((landing / "positioning" / "crypto.csv").open()))
            mine = [r for r in positioning if r["symbol"] == case["ticker"]]
            assert mine[-1]["date"] == EXTRACT.isoformat()
            assert case["short_interest_pct"] == float(mine[-1]["short_interest_pct"])
            assert case["days_to_cover"] is None
            share = [float(r["short_interest_pct"]) for r in mine[-20:]]
            assert share[-1] > share[0] + 10, "short share climbing"
        if case["kind"] == "squeezer":
            assert momentum > 0.15 and 3 <= ratio <= 6
            assert all(v >= 2.5 * (sum(volumes[-25:-5]) / 20) for v in volumes[-5:])
            if case["market"] == "asx":
                assert 15 <= case["short_interest_pct"] <= 25 and case["days_to_cover"] > 5
            else:
                assert case["short_interest_pct"] > 65
        elif case["kind"] == "calm":
            assert case["short_interest_pct"] < 1 and abs(momentum) < 0.02
            assert 0.8 <= ratio <= 1.2 and case["days_to_cover"] < 5


def test_live_campaign(landing: Path, doc: dict) -> None:
    live = next(c for c in doc["market"] if c["kind"] == "live_campaign")
    campaigns = list(csv.DictReader((landing / "activist" / "campaigns.csv").open()))
    row = next(r for r in campaigns if r["campaign_id"] == live["campaign_id"])
    assert row["outcome"] == "PENDING" and row["settled"] == ""
    assert row["ticker"] == live["ticker"] and row["report_date"] == live["report_date"]
    report = dt.date.fromisoformat(row["report_date"])
    assert 0 <= (EXTRACT - report).days <= 9
    asx = _prices(landing, "asx")
    days = sorted(asx)
    r = days.index(report)
    pct = [float(_short_day(landing, d)[live["ticker"]][4]) for d in days[r - 10 : r + 1]]
    assert all(b > a for a, b in zip(pct, pct[1:], strict=False)), "short interest rising"
    assert live["short_interest_pct_before"] == pct[0]
    closes = _series(asx, live["ticker"], 5)
    assert max(closes[r:]) < closes[r - 1] * 0.9, "the price drops on the report and stays down"
    amp = list(csv.DictReader((landing / "activist" / "amplification.csv").open()))
    mine = [a for a in amp if a["campaign_id"] == live["campaign_id"]]
    assert {a["channel"] for a in mine} == {"twitter", "reddit", "news", "forum"}
    around = [a for a in mine if -1 <= (dt.date.fromisoformat(a["date"]) - report).days <= 2]
    before = [a for a in mine if (dt.date.fromisoformat(a["date"]) - report).days < -5]
    total = sum(int(a["mentions"]) for a in around)
    assert total == live["mentions_around_report"]
    assert total / len(around) > 10 * sum(int(a["mentions"]) for a in before) / len(before)
    for channel in ("twitter", "reddit", "forum"):
        assert sum(int(a["mentions"]) for a in around if a["channel"] == channel) > 100


# -- activist files ---------------------------------------------------------------------------


def test_the_real_campaigns_are_copied_unchanged(landing: Path) -> None:
    lines = (landing / "activist" / "campaigns.csv").read_text("utf-8").splitlines()
    real = M.REAL_CAMPAIGNS_CSV.splitlines()
    assert len(real) == 13 and lines[:13] == real
    if SHARED_CAMPAIGNS.exists():
        assert SHARED_CAMPAIGNS.read_text("utf-8").splitlines() == real


def test_generated_campaigns(landing: Path, doc: dict) -> None:
    rows = list(csv.DictReader((landing / "activist" / "campaigns.csv").open()))
    bad = {p["line"] for p in doc["market_malformed"] if p["source"] == "activist_campaigns"}
    generated = [r for k, r in enumerate(rows[12:], start=14) if k not in bad]
    assert len(generated) >= 8
    assert len({r["campaign_id"] for r in rows}) == len(rows)
    per_activist = Counter(r["activist"] for r in generated)
    assert all(1 <= n <= 6 for n in per_activist.values()) and 1 in per_activist.values()
    prices = (landing / "prices" / "asx" / f"{EXTRACT:%Y%m%d}.txt").read_text().splitlines()
    tickers = {line.split(",")[0] for line in prices}
    for r in generated:
        assert r["ticker"] in tickers
        assert r["outcome"] in ("SUBSTANTIATED", "PARTLY_SUBSTANTIATED", "REFUTED", "PENDING")
        assert r["settled"] in ("true", "false", "")
        assert r["allegation_type"] in M.ALLEGATIONS
        dt.date.fromisoformat(r["report_date"])
    amp = list(csv.DictReader((landing / "activist" / "amplification.csv").open()))
    assert {a["campaign_id"] for a in amp} == {r["campaign_id"] for r in generated}


# -- planted.json -----------------------------------------------------------------------------


def test_malformed_rows_are_listed_and_are_the_only_bad_ones(landing: Path, doc: dict) -> None:
    bad = doc["market_malformed"]
    assert {p["source"] for p in bad} == {
        "asic_short_positions", "prices_asx", "prices_crypto", "prices_forex", "positioning",
        "activist_campaigns", "activist_amplification",
    }  # fmt: skip
    planted = {(p["source"], p["file"], p["line"]) for p in doc["planted"]}
    assert {(p["source"], p["file"], p["line"]) for p in bad} <= planted
    short = next(p for p in bad if p["source"] == "asic_short_positions")
    assert {"source", "file", "line", "reason_kind", "path"} <= set(short)
    rows = _short_rows(landing / short["path"])
    assert not rows[short["line"] - 1][2].isdigit()
    bad_short = [r for f in (landing / "asic_short_positions").iterdir()
                 for r in _short_rows(f)[1:] if not r[2].isdigit()]  # fmt: skip
    assert len(bad_short) == 1
    price = next(p for p in bad if p["source"] == "prices_asx")
    line = (landing / price["path"]).read_text().splitlines()[price["line"] - 1]
    with pytest.raises(ValueError):
        float(line.split(",")[5])
    bad_close = 0
    for f in (landing / "prices" / "asx").iterdir():
        for fields in (x.split(",") for x in f.read_text().splitlines()):
            try:
                float(fields[5])
            except ValueError:
                bad_close += 1
    assert bad_close == 1


def test_files_and_counts_in_planted_json(landing: Path, doc: dict) -> None:
    files = {f["path"]: f["rows"] for f in doc["files"]}
    counts = doc["counts"]
    for source, folder in (
        ("asic_short_positions", "asic_short_positions"),
        ("prices_asx", "prices/asx"),
        ("prices_crypto", "prices/crypto"),
        ("prices_forex", "prices/forex"),
    ):
        on_disk = sorted(p.name for p in (landing / folder).iterdir())
        listed = sorted(p.rpartition("/")[2] for p in files if p.startswith(folder + "/"))
        assert on_disk == listed and counts[source]["files"] == len(on_disk)
        assert counts[source]["rows"] == sum(v for p, v in files.items() if p.startswith(folder))
        assert counts[source]["valid_rows"] == counts[source]["rows"] - 1
    assert counts["asic_short_positions"]["files_002"] == M.CORRECTION_DAYS
    assert counts["activist_campaigns"]["real_campaigns"] == 12
    assert files["activist/campaigns.csv"] == counts["activist_campaigns"]["rows"]


# -- determinism ------------------------------------------------------------------------------


def _digests(root: Path) -> dict[str, str]:
    short = sorted((root / "asic_short_positions").iterdir())
    picks = [
        short[0], short[-1], *sorted((root / "asic_short_positions").glob("*-002-*")),
        *sorted((root / "prices" / "asx").iterdir())[-2:],
        *sorted((root / "prices" / "crypto").iterdir())[-2:],
        *sorted((root / "prices" / "forex").iterdir())[:1],
        *sorted((root / "positioning").iterdir()), *sorted((root / "activist").iterdir()),
        root / "asx_listed" / "ASXListedCompanies.csv",
    ]  # fmt: skip
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in picks
    }


def test_same_seed_same_bytes(landing: Path, doc: dict, tmp_path: Path) -> None:
    again = tmp_path / "again"
    write_sample(again, scale=SCALE, seed=SEED, workers=1)
    assert _digests(again) == _digests(landing)
    other = json.loads((again / "_sample" / "planted.json").read_text())
    for key in ("market", "market_malformed", "market_corrections"):
        assert other[key] == doc[key]


def test_the_market_universe_scales(tmp_path: Path) -> None:
    assert M.product_count(20_000_000) == 2_500 and M.product_count(10_000) == 40
    listed = [[f"COMPANY {i} LIMITED", f"X{i // 26 % 26 + 65:c}{i % 26 + 65:c}", "Banks"]
              for i in range(300)]  # fmt: skip
    universe = M.build_universe(2_000_000, 3, listed)
    assert len(universe.tickers) == len(set(universe.tickers)) == 250
    assert universe.tickers[20:250] == tuple(row[1] for row in listed[:230])
    assert universe.listed_rows == tuple(
        (name, code, gics) for code, name, gics, _, _ in M.CORE_ASX
    ), "only the core names are new when the list holds enough companies"
