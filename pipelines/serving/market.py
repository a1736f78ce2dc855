"""The squeeze, viper and activist-profile responses (docs/market.md), read from the
serving snapshot.

Everything is precomputed by the dbt marts ``squeeze_latest`` / ``squeeze_scores`` (the
Squeeze Score) and ``viper`` / ``activist_campaigns`` / ``activist_entities`` (activist
campaigns); this module only shapes and filters it. Errors are ``ServingError`` with the
HTTP status the API answers.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import duckdb

from pipelines.matching import ACTIVIST_NAME_THRESHOLD, NameMatch, match_names
from pipelines.serving import notices
from pipelines.serving.verify import VerifyError, parse_abn

MARKETS = ("asx", "crypto", "forex")
# The one tier vocabulary of the squeeze answers (docs/market.md `signal_tier`, whose value
# extreme is a filter): extreme above 85, high 70-85, medium 40-69, low below 40. The
# verify tile `squeeze_signal` keeps CONTRACT's HIGH/MED/LOW (extreme and high are HIGH).
TIERS = ("extreme", "high", "medium", "low")
MAX_LIMIT = 500
DEFAULT_LIMIT = 50
# What `short_interest` measures in each market; every value is a percent (1.92 = 1.92 %).
# ASX: ASIC's reported short positions as a percent of the product in issue (docs/market.md's
# "percentage of float"); crypto: the short share of open interest; forex: the
# non-commercial short share of open interest (LANDING.md positioning files).
SHORT_INTEREST_UNITS = {
    "asx": "percent_of_shares_on_issue",
    "crypto": "percent_of_open_interest",
    "forex": "percent_of_open_interest_non_commercial",
}
# A campaign is live when reported within the 30 days before the as-of date and its outcome
# is not known yet (int_activist__campaigns_matched); only a live campaign has a pattern
# match score (docs/market.md). The words below say why a score is null; they do not decide it.
LIVE_DAYS = 30
KNOWN_OUTCOMES = ("SUBSTANTIATED", "PARTLY_SUBSTANTIATED", "REFUTED")
PATTERN_ELEMENTS = ("publication", "amplification", "positioning", "price_move")
ACTIVISTS_PATH = "/api/robot/activists"
VIPER_PATH = "/api/robot/viper"
# docs/market.md names an activist's regulatory status; no landing file carries it (LANDING.md
# activist/), so the answers say so rather than guess.
REGULATORY_STATUS_NOTE = (
    "Not known: no register of activists' regulatory status is loaded (the activist campaign"
    " files carry none), so regulatory_status is always null."
)


class ServingError(VerifyError):
    """A request the caller must fix (400) or something not found (404)."""


def _rows(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _updated_at(day: dt.date | None) -> str | None:
    return None if day is None else f"{day.isoformat()}T00:00:00Z"


def _names(listed: str | None) -> list[str]:
    """A comma-separated list of a mart (``signals_used``) as a list; none: empty."""
    return listed.split(", ") if listed else []


def _iso(day: dt.date | None) -> str | None:
    return None if day is None else day.isoformat()


def _ticker(ticker: str) -> str:
    symbol = ticker.strip().upper().replace("/", "")
    if not symbol or not symbol.isalnum():
        raise ServingError(f"malformed ticker {ticker!r}")
    return symbol


def squeeze_ticker(con: duckdb.DuckDBPyConnection, ticker: str) -> dict[str, Any]:
    """One instrument's latest Squeeze Score (docs/market.md, ticker form)."""
    symbol = _ticker(ticker)
    rows = _rows(
        con.execute("select * from marts.squeeze_latest where ticker = ? order by market", [symbol])
    )
    if not rows:
        raise ServingError(f"no squeeze score for {symbol}", status=404)
    row = rows[0]
    return {
        "ticker": row["ticker"],
        "market": row["market"],
        "score": row["score"],
        "signal_tier": row["signal_tier"],
        "short_interest": row["short_interest_pct"],
        "short_interest_unit": SHORT_INTEREST_UNITS[row["market"]],
        "days_to_cover": row["days_to_cover"],
        "momentum": row["momentum"],
        "volume_ratio": row["volume_ratio"],
        "signals": {
            "short_interest": row["short_interest_signal"],
            "days_to_cover": row["days_to_cover_signal"],
            "momentum": row["momentum_signal"],
            "volume_ratio": row["volume_ratio_signal"],
        },
        "missing_signals": row["missing_signals"].split(", ") if row["missing_signals"] else [],
        "signals_used": _names(row["signals_used"]),
        "score_ceiling": row["score_ceiling"],
        "short_interest_as_of": None
        if row["short_interest_as_of"] is None
        else row["short_interest_as_of"].isoformat(),
        "updated_at": _updated_at(row["score_date"]),
        "notice": notices.SQUEEZE,
    }


def squeeze_list(
    con: duckdb.DuckDBPyConnection,
    *,
    market: str | None = None,
    tier: str | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """The latest scores, highest first (docs/market.md, list form). Without a market or tier the
    core coverage list; with a market every product of it that has a score."""
    where = ["score is not null"]
    params: list[Any] = []
    if market is not None:
        if market.lower() not in MARKETS:
            raise ServingError(f"unknown market {market!r}; one of {', '.join(MARKETS)}")
        where.append("market = ?")
        params.append(market.lower())
    if tier is not None:
        if tier.lower() not in TIERS:
            raise ServingError(f"unknown tier {tier!r}; one of {', '.join(TIERS)}")
        where.append("signal_tier = ?")
        params.append(tier.lower())
    if market is None and tier is None:
        where.append("is_core")
    count = DEFAULT_LIMIT if limit is None else limit
    if not 1 <= count <= MAX_LIMIT:
        raise ServingError(f"limit must be between 1 and {MAX_LIMIT}")
    rows = _rows(
        con.execute(
            f"select * from marts.squeeze_latest where {' and '.join(where)}"  # fixed clauses
            " order by score desc, ticker limit ?",
            [*params, count],
        )
    )
    return {
        "signals": [
            {
                "ticker": r["ticker"],
                "market": r["market"],
                "squeeze_score": r["score"],
                "signal_tier": r["signal_tier"],
                "short_interest": r["short_interest_pct"],
                "short_interest_unit": SHORT_INTEREST_UNITS[r["market"]],
                "days_to_cover": r["days_to_cover"],
                "momentum": r["momentum"],
                "volume_ratio": r["volume_ratio"],
                "signals_used": _names(r["signals_used"]),
                "updated_at": _updated_at(r["score_date"]),
            }
            for r in rows
        ],
        "notice": notices.SQUEEZE,
    }


def _campaign_reason(campaign: dict[str, Any]) -> str | None:
    """Why a campaign has no pattern match score (None when it has one)."""
    if campaign["pattern_match_score"] is not None:
        return None
    outcome, reported, as_of = campaign["outcome"], campaign["report_date"], campaign["as_of_date"]
    if outcome in KNOWN_OUTCOMES:
        return f"not live: its outcome is known ({outcome}); only a live campaign is scored"
    if reported is None:
        return "not live: no report date"
    if reported > as_of:
        return (
            f"not live: reported {reported.isoformat()}, after the as-of date {as_of.isoformat()}"
        )
    days = (as_of - reported).days
    return (
        f"not live: reported {reported.isoformat()}, {days} days before the as-of date"
        f" {as_of.isoformat()}; only a campaign reported within {LIVE_DAYS} days whose outcome"
        " is not yet known is scored"
    )


def _campaign(c: dict[str, Any]) -> dict[str, Any]:
    """One campaign as the viper and activist answers show it."""
    evidence = json.loads(c["pattern_evidence"]) if c.get("pattern_evidence") else None
    present = None
    if evidence is not None:
        present = sum(1 for e in PATTERN_ELEMENTS if (evidence.get(e) or {}).get("present"))
    body = {
        "campaign_id": c["campaign_id"],
        "activist_id": c["activist_id"],
        "activist": c["activist"],
        "activist_profile": f"{ACTIVISTS_PATH}/{c['activist_id']}",
        "target_name": c["target_name"],
        "target_ticker": c["target_ticker"],
        "target_abn": c["target_abn"],
        "report_date": _iso(c["report_date"]),
        "report_title": c["report_title"],
        "allegation_type": c["allegation_type"],
        "report_url": c["report_url"],
        "outcome": c["outcome"],
        "settled": c["settled"],
        "is_live": bool(c["is_live"]),
        "pattern_match_score": c["pattern_match_score"],
        "pattern_match_reason": _campaign_reason(c),
        "pattern_elements_present": present,
        "pattern_evidence": evidence,
    }
    if c["target_ticker"]:
        body["viper"] = f"{VIPER_PATH}/{c['target_ticker']}"
    return body


_CAMPAIGN_COLUMNS = (
    "campaign_id, activist_id, activist, target_name, target_ticker, target_abn, report_date,"
    " report_title, allegation_type, report_url, outcome, settled, is_live,"
    " pattern_match_score, pattern_evidence, as_of_date"
)
_ENTITY_COLUMNS = (
    "activist_id, activist, campaign_count, live_campaign_count, is_tracked,"
    " first_report_date, latest_report_date, accuracy_rate, decided_campaign_count,"
    " settlement_rate, settlement_known_count, campaigns_per_year, frequency_score,"
    " integrity_index"
)


def _entity(e: dict[str, Any]) -> dict[str, Any]:
    """An activist entity's integrity index with its parts and regulatory status (docs/market.md)."""
    return {
        "activist_id": e["activist_id"],
        "activist": e["activist"],
        "profile": f"{ACTIVISTS_PATH}/{e['activist_id']}",
        "is_tracked": bool(e["is_tracked"]),
        "campaign_count": e["campaign_count"],
        "live_campaign_count": e["live_campaign_count"],
        "first_report_date": _iso(e["first_report_date"]),
        "latest_report_date": _iso(e["latest_report_date"]),
        "integrity_index": e["integrity_index"],
        "integrity_components": {
            "accuracy_rate": e["accuracy_rate"],
            "decided_campaigns": e["decided_campaign_count"],
            "settlement_rate": e["settlement_rate"],
            "settlement_known_campaigns": e["settlement_known_count"],
            "campaigns_per_year": e["campaigns_per_year"],
            "frequency_score": e["frequency_score"],
        },
        "regulatory_status": None,
        "regulatory_status_note": REGULATORY_STATUS_NOTE,
    }


def activist(con: duckdb.DuckDBPyConnection, activist_id: str) -> dict[str, Any]:
    """One activist entity's profile (docs/market.md entity detail): integrity index and its
    parts, every documented campaign, and regulatory status (not known: no register)."""
    key = activist_id.strip().lower()
    found = _rows(
        con.execute(
            f"select {_ENTITY_COLUMNS} from marts.activist_entities where activist_id = ?", [key]
        )
    )
    if not found:
        raise ServingError(f"no activist with id {activist_id!r}", status=404)
    campaigns = _rows(
        con.execute(
            f"select {_CAMPAIGN_COLUMNS} from marts.activist_campaigns where activist_id = ?"
            " order by report_date desc, campaign_id",
            [key],
        )
    )
    return {
        **_entity(found[0]),
        "campaigns": [_campaign(c) for c in campaigns],
        "notice": notices.DECISION_SUPPORT,
    }


def _known_asx_ticker(con: duckdb.DuckDBPyConnection, symbol: str) -> bool:
    """An ASX product the snapshot knows: it has prices (every ASX product with prices has a
    row in squeeze_latest) or a documented campaign targets it (a landmark campaign's
    target may have left the exchange since)."""
    row = con.execute(
        "select exists (select 1 from marts.squeeze_latest where market = 'asx' and ticker = ?)"
        " or exists (select 1 from marts.viper where ticker = ?)",
        [symbol, symbol],
    ).fetchone()
    return bool(row and row[0])


def _viper_reason(row: dict[str, Any], newest: dict[str, Any] | None) -> str | None:
    """Why the viper answer has no pattern match score (None when it has one)."""
    if row["pattern_match_score"] is not None:
        return None
    if newest is None:
        return "no live campaign: no documented campaign"
    why = _campaign_reason(newest) or ""
    return f"no live campaign; the newest, {newest['campaign_id']}, is {why}"


def viper(
    con: duckdb.DuckDBPyConnection,
    *,
    ticker: str | None = None,
    name: str | None = None,
    abn: str | None = None,
) -> dict[str, Any]:
    """The activist pattern result for one target (docs/market.md): by ticker, name or ABN. A ticker
    the snapshot does not know as an ASX product is a 404, like squeeze; a known one with no
    campaign, or a name or ABN no campaign names, has a zero risk score. A name is matched,
    not searched (docs/decisions/20-names-given-are-matched.md): the target whose company name is at least 0.65
    similar after normalisation, the best; the answer names the name it matched and the
    other targets that met the threshold."""
    given = [v for v in (ticker, name, abn) if v]
    if len(given) != 1:
        raise ServingError("give exactly one of ticker, name or abn")
    if ticker:
        key = _ticker(ticker)
        found = _rows(con.execute("select * from marts.viper where ticker = ?", [key]))
        if not found and not _known_asx_ticker(con, key):
            raise ServingError(f"no ASX-listed instrument with ticker {key}", status=404)
    elif abn:
        key = parse_abn(abn)
        found = _rows(con.execute("select * from marts.viper where abn = ?", [key]))
    else:
        assert name is not None
        key = name.strip()
        matches = _targets_named(con, key)
        found = []
        if matches:
            found = _rows(
                con.execute("select * from marts.viper where ticker = ?", [matches[0].key])
            )
    if not found:
        return {
            "query": key,
            "ticker": key if ticker else None,
            "current_risk_score": 0.0,
            "active_campaigns": False,
            "active_campaign_count": 0,
            "historical_campaign_count": 0,
            "pattern_match_score": None,
            "pattern_match_reason": "no live campaign: no documented campaign against it",
            "campaigns": [],
            "activists": [],
            "notice": notices.DECISION_SUPPORT,
        }
    row = found[0]
    campaigns = _rows(
        con.execute(
            f"select {_CAMPAIGN_COLUMNS} from marts.activist_campaigns where target_ticker = ?"
            " order by report_date desc, campaign_id",
            [row["ticker"]],
        )
    )
    activists = _rows(
        con.execute(
            f"select {_ENTITY_COLUMNS} from marts.activist_entities"
            " where activist_id in (select activist_id from marts.activist_campaigns"
            " where target_ticker = ?) order by activist_id",
            [row["ticker"]],
        )
    )
    answer: dict[str, Any] = {
        "notice": notices.DECISION_SUPPORT,
        "query": key,
        "ticker": row["ticker"],
        "target_name": row["target_name"],
        "abn": row["abn"],
        "current_risk_score": row["current_risk_score"],
        "active_campaigns": bool(row["is_under_active_campaign"]),
        "active_campaign_count": row["active_campaign_count"],
        "historical_campaign_count": row["historical_campaign_count"],
        "pattern_match_score": row["pattern_match_score"],
        "pattern_match_reason": _viper_reason(row, campaigns[0] if campaigns else None),
        "report_author": row["report_author"],
        "report_date": _iso(row["report_date"]),
        "allegation_type": row["allegation_type"],
        "campaigns": [_campaign(c) for c in campaigns],
        "activists": [_entity(a) for a in activists],
    }
    if name:
        best, *others = matches
        answer["name_match"] = {"name": best.name, "similarity": best.similarity}
        answer["other_name_matches"] = [
            {"ticker": m.key, "name": m.name, "similarity": m.similarity} for m in others
        ]
    return answer


def _targets_named(con: duckdb.DuckDBPyConnection, name: str) -> list[NameMatch]:
    """The targeted tickers whose company name (as the campaigns name it, or the viper row)
    is at least 0.65 similar to ``name`` after normalisation, best first (docs/decisions/20-names-given-are-matched.md; docs/rules.md activist check)."""
    candidates = con.execute(
        "select target_ticker, target_name from marts.activist_campaigns"
        " where target_ticker is not null and target_name is not null"
        " union select ticker, target_name from marts.viper where target_name is not null"
    ).fetchall()
    return match_names(name, candidates, ACTIVIST_NAME_THRESHOLD)
