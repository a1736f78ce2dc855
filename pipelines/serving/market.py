"""The squeeze and viper responses (SPEC 4.2, 4.3), read from the serving snapshot.

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

from pipelines.serving import notices
from pipelines.serving.verify import VerifyError, parse_abn

MARKETS = ("asx", "crypto", "forex")
TIERS = ("extreme", "high", "medium", "low")
MAX_LIMIT = 500
DEFAULT_LIMIT = 50


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


def squeeze_ticker(con: duckdb.DuckDBPyConnection, ticker: str) -> dict[str, Any]:
    """One instrument's latest Squeeze Score (SPEC 4.2, ticker form)."""
    symbol = ticker.strip().upper().replace("/", "")
    if not symbol or not symbol.isalnum():
        raise ServingError(f"malformed ticker {ticker!r}")
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
        "tier": row["tier"],
        "short_interest": row["short_interest_pct"],
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
    """The latest scores, highest first (SPEC 4.2, list form). Without a market or tier the
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


def viper(
    con: duckdb.DuckDBPyConnection,
    *,
    ticker: str | None = None,
    name: str | None = None,
    abn: str | None = None,
) -> dict[str, Any]:
    """The activist pattern result for one target (SPEC 4.3): by ticker, name or ABN."""
    given = [v for v in (ticker, name, abn) if v]
    if len(given) != 1:
        raise ServingError("give exactly one of ticker, name or abn")
    if ticker:
        symbol = ticker.strip().upper()
        found = _rows(con.execute("select * from marts.viper where ticker = ?", [symbol]))
        key = symbol
    elif abn:
        key = parse_abn(abn)
        found = _rows(con.execute("select * from marts.viper where abn = ?", [key]))
    else:
        assert name is not None
        key = name.strip()
        found = _rows(
            con.execute(
                "select * from marts.viper where upper(target_name) like '%' || upper(?) || '%'"
                " order by report_date desc limit 1",
                [key],
            )
        )
    if not found:
        return {
            "query": key,
            "current_risk_score": 0.0,
            "active_campaigns": False,
            "active_campaign_count": 0,
            "historical_campaign_count": 0,
            "pattern_match_score": None,
            "campaigns": [],
            "activists": [],
            "notice": notices.DECISION_SUPPORT,
        }
    row = found[0]
    campaigns = _rows(
        con.execute(
            "select campaign_id, activist, report_date, allegation_type, report_url, outcome,"
            " settled, is_live, pattern_match_score, pattern_evidence"
            " from marts.activist_campaigns where target_ticker = ? order by report_date desc",
            [row["ticker"]],
        )
    )
    activists = _rows(
        con.execute(
            "select activist, campaign_count, is_tracked, accuracy_rate, settlement_rate,"
            " campaigns_per_year, integrity_index from marts.activist_entities"
            " where activist in (select activist from marts.activist_campaigns"
            " where target_ticker = ?) order by activist",
            [row["ticker"]],
        )
    )
    return {
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
        "report_author": row["report_author"],
        "report_date": row["report_date"].isoformat() if row["report_date"] else None,
        "allegation_type": row["allegation_type"],
        "campaigns": [
            {
                **c,
                "report_date": c["report_date"].isoformat() if c["report_date"] else None,
                "pattern_evidence": json.loads(c["pattern_evidence"])
                if c["pattern_evidence"]
                else None,
            }
            for c in campaigns
        ],
        "activists": [
            {**a, "profile": f"/activists/{a['activist']}", "regulatory_status": None}
            for a in activists
        ],
    }
