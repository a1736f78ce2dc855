"""Market landing files: ASIC daily short positions, end-of-day prices, positioning, activists.

One year of daily data ending on the extract date (the last ASX/forex day is the extract
date or the weekday before it; crypto trades every calendar day), written as the publishers
write it (folders and names relative to the landing folder):

* ``asic_short_positions/RRYYYYMMDD-VVV-SSDailyAggShortPos.csv``: one file per weekday
  (``VVV`` = ``001``; a few days also get a ``002`` that corrects some rows of the ``001``).
  Before the cut-over date (four months into the year) UTF-16 LE with a BOM and
  tab-separated; from it on UTF-8 without a BOM and comma-separated (RFC 4180 quoting).
  CRLF line ends, a header row; rows sorted by product name.
* ``prices/{asx,crypto,forex}/YYYYMMDD.txt``: no header, ``ticker,YYYYMMDD,open,high,low,
  close,volume``, LF line ends, rows sorted by ticker. ASX and forex on weekdays, crypto every
  day.
* ``positioning/crypto.csv`` (daily) and ``positioning/forex.csv`` (weekly, Tuesdays, as the
  CFTC reports): ``date,symbol,short_interest_pct,source``.
* ``activist/campaigns.csv`` (the 12 real campaigns of ``REAL_CAMPAIGNS_CSV`` verbatim, then
  the generated ones) and ``activist/amplification.csv`` (mentions per campaign, day and
  channel).

The ASX universe is the 20 core liquid names, then the generated listed companies of
``asx_listed/ASXListedCompanies.csv`` (in file order, names ending LIMITED or LTD), then
new codes with coined names; the core and new names are appended to the ASX list
(:func:`build_universe`), so every ticker with prices is listed.

Planted: ASX squeezers and calm names, a crypto squeezer, a live activist campaign (all
listed in ``planted.json`` under ``market``, with the last day's values as written), a
corrected ``002`` file per correction day (``market_corrections``), and one malformed row
per market source (``market_malformed``, also in ``planted``). Every draw comes from
generators seeded with the seed, so the same seed gives the same bytes.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bvs_sample import words as W
from bvs_sample.families.asx import (
    ASX_CODE_CAPACITY,
    GICS,
    RESERVED_ASX_CODES,
    asx_codes,
)
from bvs_sample.registers import REAL_SCALE
from pipelines.ingest import tables as T

PRODUCTS_AT_REAL_SCALE = 2_500  # ASX products with prices at 20M ABN records
MIN_PRODUCTS = 40
CASE_ASX_CODES = 64  # codes after the chunks' slices left to the planted cases (bvs_sample.cases)
CALENDAR_DAYS = 365  # one year, ending on the extract date
CUTOVER_MONTHS = 4  # short-position files switch from UTF-16/tab to UTF-8/comma

SQUEEZERS = 3
CALM = 3
CORRECTION_DAYS = 3  # days with a 002 short-position file
QUIET_TAIL = 25  # last trading days kept free of corrections and malformed rows

# ticker, company name (as the ASX list spells it), GICS industry group, price (AUD), shares
CORE_ASX: tuple[tuple[str, str, str, float, int], ...] = (
    ("BHP", "BHP GROUP LIMITED", "Materials", 44.0, 5_070_000_000),
    ("CBA", "COMMONWEALTH BANK OF AUSTRALIA", "Banks", 160.0, 1_673_000_000),
    ("CSL", "CSL LIMITED", "Pharmaceuticals, Biotechnology & Life Sciences", 250.0, 484_000_000),
    ("NAB", "NATIONAL AUSTRALIA BANK LIMITED", "Banks", 38.0, 3_060_000_000),
    ("WBC", "WESTPAC BANKING CORPORATION", "Banks", 33.0, 3_430_000_000),
    ("ANZ", "ANZ GROUP HOLDINGS LIMITED", "Banks", 31.0, 2_970_000_000),
    ("WES", "WESFARMERS LIMITED", "Consumer Discretionary Distribution & Retail", 80.0, 1_134_000_000),
    ("MQG", "MACQUARIE GROUP LIMITED", "Financial Services", 215.0, 382_000_000),
    ("WOW", "WOOLWORTHS GROUP LIMITED", "Consumer Staples Distribution & Retail", 30.0, 1_222_000_000),
    ("TLS", "TELSTRA GROUP LIMITED", "Telecommunication Services", 4.6, 11_400_000_000),
    ("RIO", "RIO TINTO LIMITED", "Materials", 120.0, 371_000_000),
    ("FMG", "FORTESCUE LTD", "Materials", 19.0, 3_079_000_000),
    ("GMG", "GOODMAN GROUP", "Equity Real Estate Investment Trusts (REITs)", 34.0, 2_020_000_000),
    ("TCL", "TRANSURBAN GROUP", "Transportation", 14.0, 3_110_000_000),
    ("WDS", "WOODSIDE ENERGY GROUP LTD", "Energy", 24.0, 1_899_000_000),
    ("ALL", "ARISTOCRAT LEISURE LIMITED", "Consumer Services", 65.0, 624_000_000),
    ("REA", "REA GROUP LTD", "Media & Entertainment", 230.0, 132_000_000),
    ("COL", "COLES GROUP LIMITED", "Consumer Staples Distribution & Retail", 21.0, 1_341_000_000),
    ("STO", "SANTOS LIMITED", "Energy", 6.8, 3_248_000_000),
    ("QBE", "QBE INSURANCE GROUP LIMITED", "Insurance", 21.0, 1_503_000_000),
)  # fmt: skip
# symbol, price in AUD, daily volatility, mean daily volume (coins), decimals
CRYPTO: tuple[tuple[str, float, float, float, int], ...] = (
    ("BTC", 150_000.0, 0.025, 25_000, 2),
    ("ETH", 5_500.0, 0.032, 350_000, 2),
    ("XRP", 3.5, 0.045, 1.5e9, 4),
    ("SOL", 300.0, 0.045, 4e6, 2),
    ("ADA", 1.2, 0.045, 8e8, 4),
    ("DOGE", 0.35, 0.055, 3e9, 4),
    ("AVAX", 50.0, 0.05, 5e6, 2),
    ("LINK", 30.0, 0.045, 1.2e7, 2),
)  # fmt: skip
# symbol, rate, daily volatility, decimals
FOREX: tuple[tuple[str, float, float, int], ...] = (
    ("AUDUSD", 0.655, 0.0055, 5),
    ("AUDGBP", 0.497, 0.0045, 5),
    ("AUDEUR", 0.585, 0.0045, 5),
    ("AUDJPY", 98.4, 0.0070, 3),
    ("AUDCAD", 0.905, 0.0045, 5),
    ("AUDNZD", 1.092, 0.0030, 5),
    ("AUDCHF", 0.548, 0.0050, 5),
)  # fmt: skip

SHORT_HEADER = T.ASIC_SHORT_POSITIONS.header
POSITIONING_HEADER = ",".join(T.POSITIONING_SHORT_INTEREST.header)
AMPLIFICATION_HEADER = ",".join(T.ACTIVIST_AMPLIFICATION.header)
CHANNELS = ("forum", "news", "reddit", "twitter")
ALLEGATIONS = ("accounting", "business_model", "asset_valuation", "governance", "fraud",
               "related_party", "operational")  # fmt: skip
OUTCOMES = ("SUBSTANTIATED", "PARTLY_SUBSTANTIATED", "REFUTED", "PENDING")
# Fictional activist short sellers (the real ones appear only in the real campaigns).
ACTIVIST_PREFIXES = (
    "Harbourline", "Kestrel Bay", "Southerly", "Ironbark", "Blackwood Street", "Granite Peak",
    "Redback", "Meridian Forensic", "Osprey", "Tasman Ridge", "Saltbush", "Coldwater",
    "Brightline", "Stormfront", "Longreach", "Quartz Hill", "Nightjar", "Greywater", "Cinder",
    "Foxglove", "Lantern", "Vantage Point", "Boxthorn", "Sandpiper",
)  # fmt: skip
ACTIVIST_SUFFIXES = ("Research", "Capital", "Partners", "Analytics", "Short Research")
TITLES = (
    "{name}: smoke and mirrors",
    "Why we are short {name}",
    "{name}, a house of cards",
    "{name}: receivables that never arrive",
    "{name}: the emperor's new {thing}",
    '{name}: "growth" bought with related parties',
)  # fmt: skip
SECTOR_WORDS = (
    "RESOURCES", "MINERALS", "MINING", "GOLD", "LITHIUM", "ENERGY", "EXPLORATION", "METALS",
    "TECHNOLOGY", "THERAPEUTICS", "HEALTH", "CAPITAL", "PROPERTY", "AGRICULTURE", "URANIUM",
    "COPPER", "BIOTECH", "SOFTWARE", "INVESTMENTS", "HOLDINGS", "GROUP", "OIL & GAS",
)  # fmt: skip

# The real, public campaigns (sources cited per row): written verbatim, before the generated.
REAL_CAMPAIGNS_CSV = """\
campaign_id,activist,target_name,ticker,abn,report_date,report_title,allegation_type,report_url,outcome,settled,source
GLAUCUS-TFC-2017,Glaucus Research,TFS Corporation (renamed Quintis),TFC,,2017-03-22,,business_model,,,,"Business News, 'TFS rejects Ponzi claims' (22 Mar 2017)"
GLAUCUS-BLA-2018,Glaucus Research,Blue Sky Alternative Investments,BLA,,2018-03-28,,asset_valuation,,,,"Bloomberg, 'Blue Sky Plunges After Short Seller Glaucus Questions Fund'; AFR, 'Glaucus targets Blue Sky Alternative Investments as next Australian short'"
VGI-CTD-2018,VGI Partners,Corporate Travel Management,CTD,,2018-10-28,,accounting,,,,"AFR, 'Corporate Travel Management bunkers down after VGI strikes'"
GMT-CIM-2019,GMT Research,CIMIC Group,CIM,,2019-05-01,,accounting,,,,"AFR, 'Activist short sellers profit in local raids'; SMH, 'Hedge funds may be behind CIMIC's $1.9b share plunge, investor claims' (month known, day not)"
BAYBERRY-TWE-2019,Bayberry Capital Partners,Treasury Wine Estates,TWE,,2019-05-01,,accounting,,,,"SMH, 'Treasury Wine blasted by US hedge fund' (month known, day not)"
GMT-TWE-2019,GMT Research,Treasury Wine Estates,TWE,,2019-08-07,,accounting,,,,"AFR, 'Bulls and bears: Trash or Treasury?'"
BONITAS-RFF-2019,Bonitas Research,Rural Funds Group,RFF,,2019-08-06,,related_party,,REFUTED,,"Business News, 'Rural Funds hits back at short seller Bonitas'; Clayton Utz, 'Activist short selling campaigns in Australia under regulatory scrutiny' (NSW Supreme Court [2020] NSWSC 61 found the report false)"
JCAP-WTC-2019,J Capital Research,WiseTech Global,WTC,,2019-10-17,,accounting,,,,"AFR, 'How WiseTech silenced the shorts'"
BLUEORCA-SEK-2020,Blue Orca Capital,SEEK,SEK,,2020-10-01,,accounting,,,,"AICD Company Director, 'Short selling' (July 2021) (month known, day not)"
VICEROY-TYR-2021,Viceroy Research,Tyro Payments,TYR,,2021-01-15,"Tyro by name, Tyro by nature",operational,,,,"Viceroy, 'Tyro by name, Tyro by nature'; Business News, 'Viceroy shorts Tyro amid EFTPOS outage chaos'"
JCAP-NEA-2021,J Capital Research,Nearmap,NEA,,2021-02-10,,accounting,,,,"Brisbane Times, 'Short-seller J Capital takes aim at Nearmap'"
JCAP-VUL-2021,J Capital Research,Vulcan Energy Resources,VUL,,2021-10-27,,asset_valuation,,,,"Mining.com, 'Vulcan Energy accused of misleading investors with positive PFS report'"
"""


assert {c[0] for c in CORE_ASX} | {
    row[3] for row in csv.reader(REAL_CAMPAIGNS_CSV.splitlines()[1:])
} <= set(RESERVED_ASX_CODES), "real tickers must be reserved in families.asx.RESERVED_ASX_CODES"


# -- universe ---------------------------------------------------------------------------------


def product_count(scale: int) -> int:
    """ASX products with prices: 2,500 at 20M ABN records, scaled, at least 40."""
    return max(MIN_PRODUCTS, round(PRODUCTS_AT_REAL_SCALE * scale / REAL_SCALE))


@dataclass(frozen=True)
class Universe:
    tickers: tuple[str, ...]  # core first, then listed background names, then new codes
    names: tuple[str, ...]  # company names as the ASX list spells them
    core: int  # the first ``core`` tickers are CORE_ASX
    listed_rows: tuple[tuple[str, str, str], ...]  # rows to append to the ASX list


def read_listed(parts: Sequence[Path]) -> list[list[str]]:
    """Rows (company name, code, GICS group) of the ASX list's background part files."""
    rows: list[list[str]] = []
    for path in parts:
        with open(path, encoding="utf-8", newline="") as fh:
            rows += [row for row in csv.reader(fh) if len(row) == 3]
    return rows


_LISTED_NAME = re.compile(r" (LIMITED|LTD)$")


def build_universe(scale: int, seed: int, listed: Sequence[Sequence[str]]) -> Universe:
    """The ASX products: core names, listed background companies, then new codes."""
    wanted = product_count(scale)
    tickers = [c[0] for c in CORE_ASX]
    names = [c[1] for c in CORE_ASX]
    rows = [(name, code, gics) for code, name, gics, _, _ in CORE_ASX]
    taken = set(tickers) | {row[1] for row in listed}
    used = set(tickers)
    for name, code, _ in listed:
        if len(tickers) >= wanted:
            break
        clean = " ".join(name.split())
        if code in used or not _LISTED_NAME.search(clean) or '"' in clean:
            continue
        tickers.append(code)
        names.append(clean)
        used.add(code)
    rng = random.Random(f"bvs-sample-market-universe:{seed}")
    codes = asx_codes(seed)
    # new codes: the tail the planted cases leave, then (never needed below MAX_SCALE) the
    # chunks' slices, whose used codes are all in ``taken``
    chunks = 20 * ASX_CODE_CAPACITY
    pool = codes[chunks + CASE_ASX_CODES : len(codes) - len(RESERVED_ASX_CODES)] + codes[:chunks]
    used_names = set(names)
    for code in pool:
        if len(tickers) >= wanted:
            break
        if code in taken:
            continue
        name = _company_name(rng)
        while name in used_names:
            name = _company_name(rng)
        tickers.append(code)
        names.append(name)
        rows.append((name, code, rng.choice(GICS)))
        taken.add(code)
        used_names.add(name)
    return Universe(tuple(tickers), tuple(names), len(CORE_ASX), tuple(rows))


def _company_name(rng: random.Random) -> str:
    form = "LIMITED" if rng.random() < 0.7 else "LTD"
    u = rng.random()
    if u < 0.5:
        return f"{rng.choice(W.COINED)} {rng.choice(SECTOR_WORDS)} {form}"
    if u < 0.8:
        return f"{rng.choice(W.PLACES)} {rng.choice(SECTOR_WORDS)} {form}"
    return f"{rng.choice(W.COINED)} {rng.choice(W.COINED)} {rng.choice(SECTOR_WORDS)} {form}"


# -- output records ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MarketFile:
    rel: str  # relative to the landing folder
    rows: int  # data rows (header excluded)


@dataclass(frozen=True)
class MarketFault:
    """A deliberately malformed row: the ingest quarantines exactly these."""

    source: str  # source name (pipelines.ingest.sources)
    file: str  # file name as the parser names it
    line: int  # 1-based physical line (a header is line 1)
    reason_kind: str
    rel: str  # relative to the landing folder


@dataclass
class MarketOutput:
    files: list[MarketFile] = field(default_factory=list)
    faults: list[MarketFault] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    cases: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[str, int, int], None]


# -- helpers ----------------------------------------------------------------------------------


def _rng(seed: int, what: str) -> np.random.Generator:
    digest = hashlib.sha256(f"bvs-sample-market:{seed}:{what}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def _add_months(day: dt.date, months: int) -> dt.date:
    y, m = divmod(day.year * 12 + day.month - 1 + months, 12)
    return dt.date(y, m + 1, min(day.day, 28))


def _quote(value: str) -> str:
    """RFC 4180: quote a field holding a comma, a quote or a line break."""
    if any(c in value for c in ',"\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def _tick_round(p: np.ndarray) -> np.ndarray:
    """ASX price steps: 0.1c below 10c, 0.5c below $2, 1c above; at least one step."""
    tick = np.where(p < 0.1, 0.001, np.where(p < 2.0, 0.005, 0.01))
    return np.round(np.maximum(np.rint(p / tick), 1.0) * tick, 3)


def _ohlc(
    rng: np.random.Generator,
    start: np.ndarray,
    r: np.ndarray,
    sigma: np.ndarray,
    gap: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Open, high, low, close (unrounded) from log returns ``r`` (days x symbols)."""
    close = start * np.exp(np.cumsum(r, axis=0))
    prev = np.vstack([start[None, :], close[:-1]])
    if gap is None:
        gap = rng.normal(0.0, 0.25, r.shape) * sigma
    open_ = prev * np.exp(gap)
    top = np.maximum(open_, close) * np.exp(np.abs(rng.normal(0.0, 0.5, r.shape)) * sigma)
    bottom = np.minimum(open_, close) * np.exp(-np.abs(rng.normal(0.0, 0.5, r.shape)) * sigma)
    return open_, top, bottom, close


def _bound(o: np.ndarray, h: np.ndarray, lo: np.ndarray, c: np.ndarray) -> None:
    """After rounding: high >= max(open, close), low <= min(open, close) (in place)."""
    np.maximum(h, np.maximum(o, c), out=h)
    np.minimum(lo, np.minimum(o, c), out=lo)


def _metrics(close: np.ndarray, volume: np.ndarray, short: int | None) -> dict[str, float | None]:
    """The last day's signals, from one symbol's written closes and volumes."""
    v = volume.astype(np.float64)
    return {
        "days_to_cover": None if short is None else round(short / float(v[-20:].mean()), 4),
        "momentum_5d": round(float(close[-1]) / float(close[-6]) - 1.0, 4),
        "volume_ratio": round(float(v[-1]) / float(v[-21:-1].mean()), 4),
    }


def _ratio_into(v: np.ndarray, lo: float, hi: float, target: float) -> None:
    """Set the last volume so last / mean(previous 20) lies in [lo, hi] (in place)."""
    prev = float(v[-21:-1].mean())
    if not lo <= v[-1] / prev <= hi:
        v[-1] = round(target * prev)


# -- the plan: which tickers carry which story ------------------------------------------------


@dataclass
class Campaign:
    campaign_id: str
    activist: str
    slug: str
    ticker: int  # index into the universe
    report: int  # trading-day index of the report
    title: str
    allegation: str
    outcome: str
    settled: str
    drop: float  # price fall on the report day
    live: bool = False


@dataclass
class Plan:
    squeezers: list[int]
    calm: list[int]
    live: int
    campaigns: list[Campaign]


def _plan(u: Universe, days: list[dt.date], rng: random.Random) -> Plan:
    others = list(range(u.core, len(u.tickers)))
    rng.shuffle(others)
    squeezers = sorted(others[:SQUEEZERS])
    calm = sorted(others[SQUEEZERS : SQUEEZERS + CALM])
    live = others[SQUEEZERS + CALM]
    eligible = sorted(others[SQUEEZERS + CALM + 1 :])
    n_campaigns = min(60, max(8, (len(u.tickers) - u.core) // 40))
    prefixes = list(ACTIVIST_PREFIXES)
    rng.shuffle(prefixes)
    counts: list[int] = []
    left = n_campaigns
    while left > 0:  # two activists with one campaign, then 1-6 each
        n = 1 if len(counts) < 2 else rng.choice((1, 1, 2, 2, 3, 3, 4, 4, 5, 6))
        after = len(prefixes) - len(counts) - 1  # activists still available after this one
        n = min(max(n, left - 6 * after), 6, left, len(eligible))
        counts.append(n)
        left -= n
    last = len(days) - 1
    live_owner = next((i for i, n in enumerate(counts) if n >= 2), 0)
    campaigns: list[Campaign] = []
    ids: set[str] = set()
    for a, n in enumerate(counts):
        prefix = prefixes[a % len(prefixes)]
        activist = f"{prefix} {ACTIVIST_SUFFIXES[a % len(ACTIVIST_SUFFIXES)]}"
        slug = re.sub(r"[^a-z]+", "-", activist.lower())
        tag = prefix.split()[0].upper()
        targets = rng.sample(eligible, n - 1) if a == live_owner else rng.sample(eligible, n)
        reports = [rng.randrange(25, last - 14) for _ in targets]
        if a == live_owner:
            targets.append(live)
            reports.append(last - 5)  # 5 trading days before the last: within 10 days
        for ticker, report in zip(targets, reports, strict=True):
            is_live = ticker == live
            day = days[report]
            base = f"{tag}-{u.tickers[ticker]}-{day.year}"
            cid = base
            while cid in ids:
                cid += "B"
            ids.add(cid)
            if is_live or (days[last] - day).days <= 60:
                outcome = "PENDING"
            else:
                outcome = rng.choices(OUTCOMES, (25, 25, 30, 20))[0]
            settled = "" if outcome == "PENDING" else rng.choice(("true", "false", "false", ""))
            short_name = _LISTED_NAME.sub("", u.names[ticker]).title()
            title = rng.choice(TITLES).format(
                name=short_name, thing=rng.choice(("mine", "platform", "pipeline"))
            )
            campaigns.append(
                Campaign(
                    campaign_id=cid,
                    activist=activist,
                    slug=slug,
                    ticker=ticker,
                    report=report,
                    title=title,
                    allegation=rng.choice(ALLEGATIONS),
                    outcome=outcome,
                    settled=settled,
                    drop=rng.uniform(0.18, 0.3) if is_live else rng.uniform(0.06, 0.25),
                    live=is_live,
                )
            )
    campaigns.sort(key=lambda c: (c.report, c.campaign_id))
    return Plan(squeezers, calm, live, campaigns)


# -- ASX simulation ---------------------------------------------------------------------------


@dataclass
class Asx:
    open: np.ndarray  # days x tickers, rounded as written
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray
    volume: np.ndarray  # int64
    short: np.ndarray  # reported short positions, int64
    issued: np.ndarray  # total product in issue, int64
    pct: np.ndarray  # % of issue short, rounded to 2 decimals as written


def _simulate_asx(u: Universe, days: int, plan: Plan, seed: int) -> Asx:
    rng = _rng(seed, "asx")
    n, t, c = len(u.tickers), days, u.core
    is_core = np.zeros(n, dtype=bool)
    is_core[:c] = True
    price0 = np.clip(np.exp(rng.normal(np.log(0.5), 1.4, n)), 0.008, 80.0)
    price0[:c] = [x[3] for x in CORE_ASX]
    shares0 = np.exp(rng.uniform(np.log(4e7), np.log(3e9), n))
    shares0[:c] = [x[4] for x in CORE_ASX]
    sigma = np.clip(0.028 * price0**-0.12 * np.exp(rng.normal(0.0, 0.25, n)), 0.01, 0.08)
    sigma[:c] = rng.uniform(0.009, 0.018, c)
    beta = np.where(is_core, rng.uniform(0.8, 1.2, n), rng.uniform(0.3, 1.3, n))
    turnover = np.clip(np.exp(rng.normal(np.log(0.0018), 0.7, n)), 0.0002, 0.02)
    turnover[:c] = rng.uniform(0.0015, 0.004, c)
    si_mean = np.clip(np.exp(rng.normal(np.log(0.9), 0.8, n)), 0.08, 7.0)
    si_mean[:c] = rng.uniform(0.3, 2.5, c)
    for i in plan.squeezers:
        price0[i], sigma[i], turnover[i] = rng.uniform(0.8, 6.0), 0.025, rng.uniform(0.0015, 0.003)
        si_mean[i] = rng.uniform(3.0, 5.0)
    for i in plan.calm:
        price0[i], sigma[i], beta[i] = rng.uniform(3.0, 20.0), rng.uniform(0.006, 0.009), 0.3
        turnover[i], si_mean[i] = rng.uniform(0.002, 0.004), rng.uniform(0.12, 0.3)
    price0[plan.live], si_mean[plan.live] = rng.uniform(1.0, 8.0), rng.uniform(1.5, 3.0)

    # returns: a market factor, the ticker's own noise, half the volatility drag given back
    market = rng.normal(0.0002, 0.008, t)
    r = market[:, None] * beta + rng.standard_normal((t, n)) * sigma + 0.5 * sigma**2
    gap = rng.normal(0.0, 0.25, (t, n)) * sigma
    vol_mult = np.exp(rng.normal(0.0, 0.45, (t, n)) - 0.1) * (0.7 + 0.3 * np.abs(r / sigma))
    # short interest: log-AR(1) around the ticker's mean (percent of issue)
    noise = rng.normal(0.0, 0.06, (t, n))
    dev = np.empty((t, n))
    dev[0] = noise[0] / np.sqrt(1 - 0.97**2)
    for d in range(1, t):
        dev[d] = 0.97 * dev[d - 1] + noise[d]
    pct = si_mean * np.exp(dev)
    # capital raisings: some tickers issue 3-25% more shares on one day
    issued = np.tile(shares0, (t, 1))
    raising = (rng.random(n) < 0.12) & ~is_core
    raising[plan.squeezers + plan.calm + [plan.live]] = False
    raise_day = rng.integers(1, t, n)
    raise_size = rng.uniform(1.03, 1.25, n)
    for j in np.flatnonzero(raising).tolist():
        issued[raise_day[j] :, j] *= raise_size[j]

    for camp in plan.campaigns:
        i, d = camp.ticker, camp.report
        if camp.live:
            continue
        r[d, i] += np.log(1 - camp.drop)
        gap[d, i] = np.log(1 - camp.drop) * 0.8
        if camp.outcome == "REFUTED":
            r[d + 1 : d + 21, i] -= np.log(1 - camp.drop) * 0.6 / 20
        vol_mult[d : d + 3, i] *= (rng.uniform(3.0, 5.0), 2.5, 1.8)
        bump = rng.uniform(1.0, 3.0)
        pct[d - 10 : d, i] += np.linspace(bump / 10, bump, 10)
        fade = np.maximum(0.0, 1.0 - np.arange(min(30, t - d)) / 30)
        pct[d : d + 30, i] += bump * fade

    for i in plan.squeezers:  # shorts pile in while the price sags, then the squeeze
        start, end = pct[t - 41, i], rng.uniform(15.0, 25.0)
        pct[t - 40 :, i] = np.linspace(start, end, 40) + rng.normal(0.0, 0.15, 40)
        pct[-1, i] = end
        r[t - 25 : t - 5, i] = rng.normal(-0.006, 0.015, 20)
        weights = rng.uniform(0.5, 1.5, 5)
        r[t - 5 :, i] = np.log(1 + rng.uniform(0.25, 0.6)) * weights / weights.sum()
        gap[t - 5 :, i] = 0.2 * r[t - 5 :, i]
        vol_mult[t - 25 : t - 5, i] = np.exp(rng.normal(0.0, 0.12, 20))
        vol_mult[t - 5 :, i] = np.sort(rng.uniform(3.0, 6.0, 5))
    for i in plan.calm:  # low short interest, normal volume, flat price
        pct[:, i] = si_mean[i] * np.exp(0.3 * dev[:, i])
        r[t - 25 :, i] = rng.normal(0.0, 0.003, 25)
        r[t - 5 :, i] = rng.normal(0.0, 0.0015, 5)
        gap[t - 25 :, i] = 0.0
        vol_mult[t - 25 :, i] = np.exp(rng.normal(0.0, 0.1, 25))
    live, d = plan.live, next(c.report for c in plan.campaigns if c.live)
    start = min(float(pct[d - 11, live]), 3.0)
    pct[d - 10 :, live] = np.linspace(start, rng.uniform(6.0, 9.0), t - d + 10)
    pct[d:, live] += np.linspace(0.0, 1.5, t - d)
    r[d, live] = np.log(1 - next(c.drop for c in plan.campaigns if c.live))
    r[d + 1 :, live] = -rng.uniform(0.005, 0.03, t - d - 1)
    gap[d, live] = 0.8 * r[d, live]
    vol_mult[d, live] = rng.uniform(6.0, 9.0)
    vol_mult[d + 1 :, live] = rng.uniform(2.5, 4.0, t - d - 1)

    o, h, lo, cl = _ohlc(rng, price0, r, sigma, gap)
    o, h, lo, cl = (_tick_round(x) for x in (o, h, lo, cl))
    _bound(o, h, lo, cl)
    volume = np.rint(turnover * shares0 * vol_mult).astype(np.int64)
    volume = np.maximum(volume, 1)
    for i in plan.squeezers:
        _ratio_into(volume[:, i], 3.1, 6.0, rng.uniform(3.5, 5.0))
    for i in plan.calm:
        _ratio_into(volume[:, i], 0.85, 1.15, rng.uniform(0.92, 1.08))
    issued_i = np.rint(issued).astype(np.int64)
    pct = np.clip(pct, 0.0, 60.0)
    short = np.floor(pct * issued_i / 100.0).astype(np.int64)
    pct_written = np.round(short * 100.0 / issued_i, 2)
    return Asx(o, h, lo, cl, volume, short, issued_i, pct_written)


# -- writing ----------------------------------------------------------------------------------


def _clear(folder: Path, pattern: re.Pattern[str], keep: set[str]) -> None:
    """Remove this generator's files of another run (other days) so the folder holds one sample."""
    if folder.is_dir():
        for path in folder.iterdir():
            if path.is_file() and pattern.match(path.name) and path.name not in keep:
                path.unlink()


_SHORT_NAME = re.compile(r"^RR\d{8}-\d{3}-SSDailyAggShortPos\.csv$")
_PRICE_NAME = re.compile(r"^\d{8}\.txt$")


def write_market(
    out_dir: Path,
    universe: Universe,
    *,
    seed: int,
    extract_date: dt.date,
    progress: Progress | None = None,
) -> MarketOutput:
    """Write every market file into ``out_dir`` (the landing folder); see the module doc."""
    out = MarketOutput()
    calendar_days = [
        extract_date - dt.timedelta(days=CALENDAR_DAYS - 1 - i) for i in range(CALENDAR_DAYS)
    ]
    days = [d for d in calendar_days if d.weekday() < 5]
    cutover = next(d for d in days if d >= _add_months(calendar_days[0], CUTOVER_MONTHS))
    plan_rng = random.Random(f"bvs-sample-market-plan:{seed}")
    plan = _plan(universe, days, plan_rng)
    asx = _simulate_asx(universe, len(days), plan, seed)
    total_files = 2 * len(days) + CORRECTION_DAYS + len(calendar_days) + len(days) + 4
    done = 0

    def tick(k: int = 1) -> None:
        nonlocal done
        done += k
        if progress is not None and (done % 50 == 0 or done == total_files):
            progress("market", done, total_files)

    planted = set(plan.squeezers) | set(plan.calm) | {plan.live}
    background = [i for i in range(len(universe.tickers)) if i not in planted]
    t = len(days)
    quiet = list(range(10, t - QUIET_TAIL))
    fault_days = plan_rng.sample(quiet, 2 + CORRECTION_DAYS)
    short_fault_day, price_fault_day = fault_days[:2]
    correction_days = sorted(fault_days[2:])

    # -- short positions
    folder = out_dir / "asic_short_positions"
    folder.mkdir(parents=True, exist_ok=True)
    products = [f"{name} ORDINARY" for name in universe.names]
    order = sorted(range(len(products)), key=lambda i: (products[i], universe.tickers[i]))
    at = {i: k for k, i in enumerate(order)}  # universe index -> row position
    prod_tsv = [products[i] for i in order]
    prod_csv = [_quote(p) for p in prod_tsv]
    codes = [universe.tickers[i] for i in order]
    short_cols = (asx.short[:, order], asx.issued[:, order], asx.pct[:, order])
    short_fault_ticker = plan_rng.choice(background)
    names: set[str] = set()
    rows_written = 0
    for d, day in enumerate(days):
        versions: list[tuple[int, dict[int, tuple[int, float]]]] = [(1, {})]
        if d in correction_days:  # 001 holds a few wrong rows, 002 the right ones
            wrong = {}
            for i in plan_rng.sample(background, min(4, len(background))):
                k = at[i]
                s, issued = int(short_cols[0][d, k]), int(short_cols[1][d, k])
                bad = s * 10 if asx.pct[d, i] < 5 else s // 10
                wrong[k] = (bad, round(bad * 100.0 / issued, 2))
            versions = [(1, wrong), (2, {})]
            out.corrections.append(
                {
                    "file": f"RR{day:%Y%m%d}-002-SSDailyAggShortPos.csv",
                    "replaces": f"RR{day:%Y%m%d}-001-SSDailyAggShortPos.csv",
                    "position_date": day.isoformat(),
                    "tickers": sorted(codes[k] for k in wrong),
                }
            )
        utf16 = day < cutover
        sep = "\t" if utf16 else ","
        prods = prod_tsv if utf16 else prod_csv
        for version, wrong in versions:
            s_list = list(map(str, short_cols[0][d].tolist()))
            i_list = list(map(str, short_cols[1][d].tolist()))
            p_list = list(map("{:.2f}".format, short_cols[2][d].tolist()))
            for k, (bad, bad_pct) in wrong.items():
                s_list[k], p_list[k] = str(bad), f"{bad_pct:.2f}"
            name = f"RR{day:%Y%m%d}-{version:03d}-SSDailyAggShortPos.csv"
            if d == short_fault_day and version == 1:
                k = at[short_fault_ticker]
                s_list[k] = "n/a"
                out.faults.append(
                    MarketFault(
                        "asic_short_positions",
                        name,
                        k + 2,
                        "non_numeric_reported_short_positions",
                        f"asic_short_positions/{name}",
                    )
                )
            lines = [sep.join(SHORT_HEADER)]
            lines += [
                f"{p}{sep}{c}{sep}{s}{sep}{i}{sep}{q}"
                for p, c, s, i, q in zip(prods, codes, s_list, i_list, p_list, strict=True)
            ]
            text = "\r\n".join(lines) + "\r\n"
            data = b"\xff\xfe" + text.encode("utf-16-le") if utf16 else text.encode("utf-8")
            (folder / name).write_bytes(data)
            names.add(name)
            out.files.append(MarketFile(f"asic_short_positions/{name}", len(codes)))
            rows_written += len(codes)
            tick()
    _clear(folder, _SHORT_NAME, names)
    n_short = len(days) + len(correction_days)
    out.counts["asic_short_positions"] = {
        "files": n_short,
        "files_002": len(correction_days),
        "files_utf16": sum(
            (d < cutover) * (2 if k in correction_days else 1) for k, d in enumerate(days)
        ),
        "rows": rows_written,
        "malformed": 1,
        "valid_rows": rows_written - 1,
        "products": len(codes),
    }

    # -- ASX prices
    p_order = sorted(range(len(universe.tickers)), key=lambda i: universe.tickers[i])
    p_at = {i: k for k, i in enumerate(p_order)}
    price_fault_ticker = plan_rng.choice(background)
    _write_prices(
        out,
        out_dir,
        "asx",
        days,
        [universe.tickers[i] for i in p_order],
        (asx.open[:, p_order], asx.high[:, p_order], asx.low[:, p_order]),
        asx.close[:, p_order],
        asx.volume[:, p_order],
        (price_fault_day, p_at[price_fault_ticker], "non_numeric_close"),
        tick,
    )
    out.counts["prices_asx"]["tickers"] = len(universe.tickers)

    # -- crypto and forex prices, positioning
    crypto_close, crypto_volume, crypto_squeezer, crypto_si = _crypto(
        out, out_dir, calendar_days, seed, plan_rng, tick
    )
    _forex(out, out_dir, days, seed, plan_rng, tick)
    _positioning(out, out_dir, calendar_days, seed, plan_rng, crypto_squeezer, crypto_si, tick)

    # -- activist campaigns and amplification
    mentions = _activist(out, out_dir, universe, plan, days, calendar_days, seed, plan_rng, tick)

    # -- planted market cases: the last day's values as written
    last = days[-1]
    for kind, indexes in (("squeezer", plan.squeezers), ("calm", plan.calm)):
        for i in indexes:
            out.cases.append(
                {
                    "ticker": universe.tickers[i],
                    "market": "asx",
                    "kind": kind,
                    "date": last.isoformat(),
                    "short_interest_pct": float(asx.pct[-1, i]),
                    "short_position": int(asx.short[-1, i]),
                    **_metrics(asx.close[:, i], asx.volume[:, i], int(asx.short[-1, i])),
                }
            )
    k = [s for s, *_ in CRYPTO].index(crypto_squeezer)
    out.cases.append(
        {
            "ticker": crypto_squeezer,
            "market": "crypto",
            "kind": "squeezer",
            "date": calendar_days[-1].isoformat(),
            "short_interest_pct": crypto_si,  # short share of open interest (positioning)
            "short_position": None,
            **_metrics(crypto_close[:, k], crypto_volume[:, k], None),
        }
    )
    camp = next(c for c in plan.campaigns if c.live)
    i, d = camp.ticker, camp.report
    out.cases.append(
        {
            "campaign_id": camp.campaign_id,
            "ticker": universe.tickers[i],
            "market": "asx",
            "kind": "live_campaign",
            "date": last.isoformat(),
            "report_date": days[d].isoformat(),
            "short_interest_pct": float(asx.pct[-1, i]),
            "short_interest_pct_before": float(asx.pct[d - 10, i]),  # 10 trading days before
            "short_interest_pct_at_report": float(asx.pct[d, i]),
            "close_before_report": float(asx.close[d - 1, i]),
            "price_change_after": round(float(asx.close[-1, i] / asx.close[d - 1, i]) - 1.0, 4),
            "mentions_around_report": mentions,  # report day -1 .. +2, every channel
            "short_position": int(asx.short[-1, i]),
            **_metrics(asx.close[:, i], asx.volume[:, i], int(asx.short[-1, i])),
        }
    )
    if progress is not None:
        progress("market", total_files, total_files)
    return out


def _write_prices(
    out: MarketOutput,
    out_dir: Path,
    market: str,
    days: list[dt.date],
    tickers: list[str],
    ohl: tuple[np.ndarray, np.ndarray, np.ndarray],
    close: np.ndarray,
    volume: np.ndarray,
    fault: tuple[int, int, str] | None,
    tick: Callable[[], None],
) -> None:
    """One headerless file per day: ``ticker,YYYYMMDD,open,high,low,close,volume``."""
    folder = out_dir / "prices" / market
    folder.mkdir(parents=True, exist_ok=True)
    source = f"prices_{market}"
    names: set[str] = set()
    rows = 0
    for d, day in enumerate(days):
        ymd = f"{day:%Y%m%d}"
        # repr: the shortest text that reads back as the rounded value ("1.825", "45.0")
        o, h, lo = (list(map(repr, a[d].tolist())) for a in ohl)
        c = list(map(repr, close[d].tolist()))
        v = list(map(str, volume[d].tolist()))
        lines = [
            f"{tk},{ymd},{a},{b},{e},{f},{g}\n"
            for tk, a, b, e, f, g in zip(tickers, o, h, lo, c, v, strict=True)
        ]
        name = f"{ymd}.txt"
        if fault is not None and fault[0] == d:
            k, kind = fault[1], fault[2]
            if kind == "non_numeric_close":
                lines[k] = f"{tickers[k]},{ymd},{o[k]},{h[k]},{lo[k]},n/a,{v[k]}\n"
            elif kind == "wrong_field_count":
                lines[k] = lines[k].rstrip("\n") + ",USD\n"
            else:  # bad_date: month 13 (Arrow's strptime rolls 30 February over to March)
                lines[k] = lines[k].replace(f",{ymd},", f",{day:%Y}13{day:%d},", 1)
            out.faults.append(MarketFault(source, name, k + 1, kind, f"prices/{market}/{name}"))
        (folder / name).write_bytes("".join(lines).encode("ascii"))
        names.add(name)
        out.files.append(MarketFile(f"prices/{market}/{name}", len(lines)))
        rows += len(lines)
        tick()
    _clear(folder, _PRICE_NAME, names)
    bad = 1 if fault is not None else 0
    out.counts[source] = {"files": len(days), "rows": rows, "malformed": bad,
                          "valid_rows": rows - bad, "tickers": len(tickers)}  # fmt: skip


def _crypto(
    out: MarketOutput,
    out_dir: Path,
    days: list[dt.date],
    seed: int,
    plan_rng: random.Random,
    tick: Callable[[], None],
) -> tuple[np.ndarray, np.ndarray, str, float]:
    """Crypto in AUD, every calendar day, with one squeezer; returns its closes, volumes,
    symbol and the last-day short share the positioning file will carry."""
    rng = _rng(seed, "crypto")
    t, n = len(days), len(CRYPTO)
    price0 = np.array([c[1] for c in CRYPTO]) * np.exp(rng.normal(0.0, 0.1, n))
    sigma = np.array([c[2] for c in CRYPTO])
    base_volume = np.array([c[3] for c in CRYPTO])
    decimals = [c[4] for c in CRYPTO]
    factor = rng.normal(0.0005, 0.022, t)  # crypto moves together
    beta = np.linspace(1.0, 0.8, n)
    r = factor[:, None] * beta + rng.standard_normal((t, n)) * sigma * 0.6
    vol_mult = np.exp(rng.normal(0.0, 0.35, (t, n)) - 0.06) * (0.7 + 0.3 * np.abs(r / sigma))
    symbols = [c[0] for c in CRYPTO]
    squeezer = plan_rng.choice(symbols[2:])  # not BTC or ETH
    k = symbols.index(squeezer)
    r[t - 20 : t - 5, k] = rng.normal(-0.01, 0.02, 15)
    weights = rng.uniform(0.5, 1.5, 5)
    r[t - 5 :, k] = np.log(1 + rng.uniform(0.2, 0.4)) * weights / weights.sum()
    vol_mult[t - 25 : t - 5, k] = np.exp(rng.normal(0.0, 0.12, 20))
    vol_mult[t - 5 :, k] = np.sort(rng.uniform(3.0, 6.0, 5))
    o, h, lo, c = _ohlc(rng, price0, r, sigma * 0.6)
    for a in (o, h, lo, c):
        for j, places in enumerate(decimals):
            a[:, j] = np.round(a[:, j], places)
    _bound(o, h, lo, c)
    volume = np.maximum(np.rint(base_volume * vol_mult), 1).astype(np.int64)
    _ratio_into(volume[:, k], 3.1, 6.0, rng.uniform(3.5, 5.0))
    order = sorted(range(n), key=lambda j: symbols[j])
    fault = (plan_rng.randrange(10, t - QUIET_TAIL), order.index(0), "wrong_field_count")
    _write_prices(
        out, out_dir, "crypto", days, [symbols[j] for j in order],
        (o[:, order], h[:, order], lo[:, order]), c[:, order], volume[:, order], fault, tick,
    )  # fmt: skip
    return c, volume, squeezer, round(rng.uniform(68.0, 75.0), 2)


def _forex(
    out: MarketOutput,
    out_dir: Path,
    days: list[dt.date],
    seed: int,
    plan_rng: random.Random,
    tick: Callable[[], None],
) -> None:
    rng = _rng(seed, "forex")
    t, n = len(days), len(FOREX)
    rate0 = np.array([f[1] for f in FOREX]) * np.exp(rng.normal(0.0, 0.02, n))
    sigma = np.array([f[2] for f in FOREX])
    aud = rng.normal(0.0, 0.004, t)  # the AUD leg moves every pair
    r = aud[:, None] + rng.standard_normal((t, n)) * sigma * 0.6
    o, h, lo, c = _ohlc(rng, rate0, r, sigma * 0.7)
    for a in (o, h, lo, c):
        for j, f in enumerate(FOREX):
            a[:, j] = np.round(a[:, j], f[3])
    _bound(o, h, lo, c)
    symbols = [f[0] for f in FOREX]
    order = sorted(range(n), key=lambda j: symbols[j])
    fault = (plan_rng.randrange(10, t - QUIET_TAIL), plan_rng.randrange(n), "bad_date")
    _write_prices(
        out, out_dir, "forex", days, [symbols[j] for j in order],
        (o[:, order], h[:, order], lo[:, order]), c[:, order],
        np.zeros((t, n), dtype=np.int64), fault, tick,
    )  # fmt: skip


def _positioning(
    out: MarketOutput,
    out_dir: Path,
    days: list[dt.date],
    seed: int,
    plan_rng: random.Random,
    squeezer: str,
    squeezer_last: float,
    tick: Callable[[], None],
) -> None:
    """Daily crypto short share of open interest; weekly (Tuesday) forex non-commercial
    short share of open interest. The crypto squeezer's share climbs to ``squeezer_last``."""
    rng = _rng(seed, "positioning")
    folder = out_dir / "positioning"
    folder.mkdir(parents=True, exist_ok=True)
    symbols = sorted(c[0] for c in CRYPTO)
    t = len(days)
    share = np.empty((t, len(symbols)))
    share[0] = rng.normal(50.0, 3.0, len(symbols))
    for d in range(1, t):
        share[d] = 50.0 + 0.9 * (share[d - 1] - 50.0) + rng.normal(0.0, 1.3, len(symbols))
    k = symbols.index(squeezer)
    share[t - 20 :, k] = np.linspace(share[t - 21, k], squeezer_last, 20)
    written = np.round(np.clip(share, 1.0, 99.0), 2)
    fault_row = (
        plan_rng.randrange(10, t - QUIET_TAIL),
        plan_rng.choice([j for j in range(len(symbols)) if j != k]),
    )
    lines = [POSITIONING_HEADER]
    for d, day in enumerate(days):
        for j, sym in enumerate(symbols):
            value = "n/a" if (d, j) == fault_row else f"{written[d, j]:.2f}"
            lines.append(f"{day.isoformat()},{sym},{value},exchange-aggregate")
    fault_line = 2 + fault_row[0] * len(symbols) + fault_row[1]
    (folder / "crypto.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out.faults.append(
        MarketFault("positioning", "crypto.csv", fault_line, "non_numeric_short_interest",
                    "positioning/crypto.csv")
    )  # fmt: skip
    crypto_rows = len(lines) - 1
    tick()

    fx = sorted(f[0] for f in FOREX)
    weeks = [d for d in days if d.weekday() == 1]
    means = rng.uniform(30.0, 70.0, len(fx))
    level = means + rng.normal(0.0, 5.0, len(fx))
    lines = [POSITIONING_HEADER]
    for day in weeks:
        level = means + 0.8 * (level - means) + rng.normal(0.0, 3.0, len(fx))
        level = np.clip(level, 5.0, 95.0)
        for j, sym in enumerate(fx):
            lines.append(f"{day.isoformat()},{sym},{level[j]:.2f},cftc-cot")
    (folder / "forex.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    forex_rows = len(lines) - 1
    tick()
    out.files += [
        MarketFile("positioning/crypto.csv", crypto_rows),
        MarketFile("positioning/forex.csv", forex_rows),
    ]
    rows = crypto_rows + forex_rows
    out.counts["positioning"] = {"files": 2, "rows": rows, "rows.crypto": crypto_rows,
                                 "rows.forex": forex_rows, "malformed": 1,
                                 "valid_rows": rows - 1}  # fmt: skip


def _activist(
    out: MarketOutput,
    out_dir: Path,
    u: Universe,
    plan: Plan,
    days: list[dt.date],
    calendar_days: list[dt.date],
    seed: int,
    plan_rng: random.Random,
    tick: Callable[[], None],
) -> int:
    """campaigns.csv (real rows verbatim, then the generated) and amplification.csv.
    Returns the live campaign's mentions from the day before its report to two days after."""
    rng = _rng(seed, "activist")
    folder = out_dir / "activist"
    folder.mkdir(parents=True, exist_ok=True)
    lines = REAL_CAMPAIGNS_CSV.splitlines()
    real = len(lines) - 1
    generated: list[list[str]] = []
    for c in plan.campaigns:
        day = days[c.report]
        values = [
            c.campaign_id, c.activist, u.names[c.ticker], u.tickers[c.ticker], "",
            day.isoformat(), c.title, c.allegation,
            f"https://{c.slug.strip('-')}.example/reports/{u.tickers[c.ticker].lower()}-{day:%Y-%m}",
            c.outcome, c.settled, "generated sample (bvs sample)",
        ]  # fmt: skip
        generated.append(values)
        lines.append(",".join(_quote(v) for v in values))
    # a malformed campaign of its own: a copy of the first past one, with a date that does
    # not exist and an id of its own
    bad = list(next(v for v, c in zip(generated, plan.campaigns, strict=True) if not c.live))
    bad[0] += "X"
    bad[5] = f"{days[-1].year}-02-30"
    lines.append(",".join(_quote(v) for v in bad))
    (folder / "campaigns.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    campaign_rows = len(lines) - 1
    out.faults.append(
        MarketFault("activist_campaigns", "campaigns.csv", len(lines), "bad_date",
                    "activist/campaigns.csv")
    )  # fmt: skip
    tick()

    last = calendar_days[-1]
    peaks = np.array([40.0, 8.0, 60.0, 250.0])  # forum, news, reddit, twitter
    baseline = np.array([1.0, 0.3, 1.0, 3.0])
    rows: list[tuple[str, dt.date, str, int]] = []
    live_mentions = 0
    for c in sorted(plan.campaigns, key=lambda c: c.campaign_id):
        report = days[c.report]
        scale = rng.uniform(0.5, 2.0)
        first = report - dt.timedelta(days=10 if c.live else 5)
        stop = min(last, report + dt.timedelta(days=7))
        day = first
        while day <= stop:
            j = (day - report).days
            if c.live:  # coordinated: chatter, a build-up two days before, then the burst
                level = (
                    10.0 * scale * (0.0 if j < -3 else 0.1 if j < -1 else 0.4 if j == -1 else 1.0)
                )
                lam = baseline * 3 + peaks * level * np.exp(-max(j, 0) / 6)
            else:
                lam = baseline + (peaks * scale * np.exp(-max(j, 0) / 2) if j >= 0 else 0)
            counts = rng.poisson(lam)
            for ch, m in zip(CHANNELS, counts.tolist(), strict=True):
                rows.append((c.campaign_id, day, ch, m))
                if c.live and -1 <= j <= 2:
                    live_mentions += m
            day += dt.timedelta(days=1)
    live_id = next(c.campaign_id for c in plan.campaigns if c.live)
    candidates = [k for k, row in enumerate(rows) if row[0] != live_id]
    fault = plan_rng.choice(candidates)
    text = [AMPLIFICATION_HEADER]
    for k, (cid, day, ch, m) in enumerate(rows):
        text.append(f"{cid},{day.isoformat()},{ch},{'many' if k == fault else m}")
    (folder / "amplification.csv").write_text("\n".join(text) + "\n", encoding="utf-8")
    out.faults.append(
        MarketFault("activist_amplification", "amplification.csv", fault + 2,
                    "non_integer_mentions", "activist/amplification.csv")
    )  # fmt: skip
    tick()
    out.files += [
        MarketFile("activist/campaigns.csv", campaign_rows),
        MarketFile("activist/amplification.csv", len(rows)),
    ]
    out.counts["activist_campaigns"] = {
        "files": 1, "rows": campaign_rows, "malformed": 1, "valid_rows": campaign_rows - 1,
        "real_campaigns": real, "generated_campaigns": len(plan.campaigns),
    }  # fmt: skip
    out.counts["activist_amplification"] = {
        "files": 1, "rows": len(rows), "malformed": 1, "valid_rows": len(rows) - 1,
    }  # fmt: skip
    return live_mentions
