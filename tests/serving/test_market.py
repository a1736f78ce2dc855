"""The squeeze, viper and activist answers (docs/market.md) on a small DuckDB.

The marts are written by hand with the columns the serving functions read, as of
2026-11-26. The rules behind them (scores, tiers, live campaigns) are the dbt models' and are
tested there and end to end; here: the shape of the answers, the one tier vocabulary, the
units, the 404s and the reasons given for a null pattern match score.

    UAS  Longreach Partners, 2026-11-11, PENDING: live, all four elements, score 100
    JVO  Longreach Partners, 2026-07-07, REFUTED: all four elements, not live (outcome known)
    BBN  Foxglove Analytics, 2026-02-19, PENDING: all four elements, not live (too old)
    ANZ  an ASX product with prices and no campaign; BTC and AUDUSD crypto and forex
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.serving import market
from pipelines.serving.market import ServingError

AS_OF = dt.date(2026, 11, 26)
D = dt.date


def _evidence(present: bool) -> str:
    return json.dumps(
        {
            e: {"present": present}
            for e in ("publication", "amplification", "positioning", "price_move")
        }
    )


SQUEEZE = [
    # market, ticker, score, tier, signal_tier, short_interest_pct
    ("asx", "ANZ", 55.0, "MED", "medium", 1.92),
    ("asx", "UAS", 88.0, "HIGH", "extreme", 9.5),
    ("asx", "JVO", 20.0, "LOW", "low", 0.4),
    ("crypto", "BTC", 90.5, "HIGH", "extreme", 48.2),
    ("forex", "AUDUSD", 72.0, "HIGH", "high", 61.0),
]
CAMPAIGNS = [
    # campaign_id, activist_id, activist, ticker, name, abn, report_date, outcome, settled,
    # is_live, pattern_match_score
    ("LONGREACH-UAS-2026", "longreach-partners", "Longreach Partners", "UAS", "INFINITY NOVA OIL & GAS LIMITED",
     "53004085616", D(2026, 11, 11), "PENDING", None, True, 100),
    ("LONGREACH-JVO-2026", "longreach-partners", "Longreach Partners", "JVO", "JVO LTD",
     None, D(2026, 7, 7), "REFUTED", True, False, None),
    ("FOXGLOVE-BBN-2026", "foxglove-analytics", "Foxglove Analytics", "BBN", "INFINITY NOVA OIL & GAS EXPLORATION LTD",
     None, D(2026, 2, 19), "PENDING", None, False, None),
]  # fmt: skip


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    db = duckdb.connect(str(tmp_path / "snapshot.duckdb"))
    db.execute("create schema marts")
    db.execute(
        """create table marts.squeeze_latest (
            market varchar, ticker varchar, score_date date, is_core boolean,
            short_interest_pct double, short_interest_as_of date, days_to_cover double,
            momentum double, volume_ratio double, short_interest_signal double,
            days_to_cover_signal double, momentum_signal double, volume_ratio_signal double,
            missing_signals varchar, score double, tier varchar, signal_tier varchar,
            signals_used varchar, score_ceiling double)"""
    )
    for mkt, ticker, score, tier, signal_tier, pct in SQUEEZE:
        db.execute(
            "insert into marts.squeeze_latest values"
            " (?, ?, ?, true, ?, ?, ?, 0.01, 1.5, 40, 30, 52, 17, ?, ?, ?, ?, ?, ?)",
            [
                mkt, ticker, AS_OF, pct, AS_OF if mkt == "asx" else None,
                3.0 if mkt == "asx" else None,
                None if mkt == "asx" else "days_to_cover: no short position size for this market",
                score, tier, signal_tier,
                "short_interest, days_to_cover, momentum, volume_ratio" if mkt == "asx"
                else "short_interest, momentum, volume_ratio",
                100.0 if mkt == "asx" else 85.0,
            ],
        )  # fmt: skip
    db.execute(
        """create table marts.activist_campaigns (
            campaign_id varchar, activist_id varchar, activist varchar, target_name varchar,
            target_ticker varchar, target_abn varchar, report_date date, report_title varchar,
            allegation_type varchar, report_url varchar, outcome varchar, settled boolean,
            is_live boolean, pattern_match_score integer, pattern_evidence json,
            as_of_date date)"""
    )
    for cid, aid, name, ticker, target, abn, day, outcome, settled, live, score in CAMPAIGNS:
        db.execute(
            "insert into marts.activist_campaigns values"
            " (?, ?, ?, ?, ?, ?, ?, 'a report', 'accounting', ?, ?, ?, ?, ?, ?, ?)",
            [
                cid, aid, name, target, ticker, abn, day, f"https://example.org/{cid}",
                outcome, settled, live, score, _evidence(True), AS_OF,
            ],
        )  # fmt: skip
    db.execute(
        """create table marts.activist_entities (
            activist_id varchar, activist varchar, campaign_count integer,
            live_campaign_count integer, is_tracked boolean, first_report_date date,
            latest_report_date date, accuracy_rate double, decided_campaign_count integer,
            settlement_rate double, settlement_known_count integer, campaigns_per_year double,
            frequency_score double, integrity_index double)"""
    )
    db.execute(
        """insert into marts.activist_entities values
            ('longreach-partners', 'Longreach Partners', 2, 1, true, DATE '2026-07-07',
             DATE '2026-11-11', 0.0, 1, 1.0, 1, 2.0, 0.5, 40.0),
            ('foxglove-analytics', 'Foxglove Analytics', 1, 0, false, DATE '2026-02-19',
             DATE '2026-02-19', null, 0, null, 0, 1.0, 0.25, 25.0)"""
    )
    db.execute(
        """create table marts.viper as
        select target_ticker as ticker, target_name, target_abn as abn,
            1 as historical_campaign_count, case when is_live then 1 else 0 end
                as active_campaign_count,
            is_live as is_under_active_campaign, pattern_match_score,
            cast(coalesce(pattern_match_score, 10) as double) as current_risk_score,
            activist as report_author, report_date, allegation_type, as_of_date
        from marts.activist_campaigns"""
    )
    yield db
    db.close()


# ------------------------------------------------------------------------------- squeeze


def test_single_and_list_squeeze_answers_use_one_tier_vocabulary(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """One vocabulary (docs/market.md signal_tier): a single answer no longer says MED beside medium."""
    one = market.squeeze_ticker(con, "ANZ")
    assert one["signal_tier"] == "medium"
    assert "tier" not in one
    assert not {"HIGH", "MED", "LOW"} & {str(v) for v in one.values()}
    listed = market.squeeze_list(con, market="asx")["signals"]
    assert {s["signal_tier"] for s in listed} <= set(market.TIERS)
    assert {s["ticker"]: s["signal_tier"] for s in listed}["ANZ"] == one["signal_tier"]
    assert [s["ticker"] for s in market.squeeze_list(con, tier="extreme")["signals"]] == [
        "BTC",
        "UAS",
    ]


@pytest.mark.parametrize(
    ("ticker", "unit", "value"),
    [
        ("ANZ", "percent_of_shares_on_issue", 1.92),
        ("BTC", "percent_of_open_interest", 48.2),
        ("AUD/USD", "percent_of_open_interest_non_commercial", 61.0),
    ],
)
def test_short_interest_states_its_unit_per_market(
    con: duckdb.DuckDBPyConnection, ticker: str, unit: str, value: float
) -> None:
    one = market.squeeze_ticker(con, ticker)
    assert (one["short_interest"], one["short_interest_unit"]) == (value, unit)
    (listed,) = [
        s for s in market.squeeze_list(con, limit=10)["signals"] if s["ticker"] == one["ticker"]
    ]
    assert (listed["short_interest"], listed["short_interest_unit"]) == (value, unit)


def test_squeeze_unknown_ticker_is_404(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ServingError) as raised:
        market.squeeze_ticker(con, "ZZZZ")
    assert raised.value.status == 404


# --------------------------------------------------------------------------------- viper


def test_viper_for_a_ticker_that_is_no_instrument_is_404_like_squeeze(
    con: duckdb.DuckDBPyConnection,
) -> None:
    with pytest.raises(ServingError) as raised:
        market.viper(con, ticker="ZZZZ")
    assert raised.value.status == 404
    assert "ZZZZ" in raised.value.message


def test_viper_for_a_listed_ticker_without_campaigns_is_a_zero_answer(
    con: duckdb.DuckDBPyConnection,
) -> None:
    body = market.viper(con, ticker="anz")
    assert body["current_risk_score"] == 0.0 and body["historical_campaign_count"] == 0
    assert body["campaigns"] == [] and body["activists"] == []
    assert body["pattern_match_score"] is None
    assert "no documented campaign" in body["pattern_match_reason"]


def test_viper_malformed_ticker_is_400(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ServingError) as raised:
        market.viper(con, ticker="A;B")
    assert raised.value.status == 400


@pytest.mark.parametrize(
    "name",
    [
        "Infinity Nova Oil and Gas",
        "Infinity Nova Oil & Gas Limited",
        "INFINITY NOVA OIL & GAS LTD",
        "  infinity nova oil and gas pty ltd ",
    ],
)
def test_viper_by_name_finds_the_company_whatever_its_legal_form_or_ampersand(
    con: duckdb.DuckDBPyConnection, name: str
) -> None:
    """docs/decisions/20-names-given-are-matched.md: a name is matched, not searched; "Ltd" for "Limited" or "and"
    for "&" never changes the answer: the live campaign on UAS, at 100, best first."""
    body = market.viper(con, name=name)
    assert (body["ticker"], body["current_risk_score"], body["active_campaigns"]) == (
        "UAS",
        100.0,
        True,
    )
    assert body["name_match"] == {"name": "INFINITY NOVA OIL & GAS LIMITED", "similarity": 1.0}
    # the exploration company met the threshold too, and comes second
    assert [(m["ticker"], m["similarity"] >= 0.65) for m in body["other_name_matches"]] == [
        ("BBN", True)
    ]


def test_viper_by_name_best_first(con: duckdb.DuckDBPyConnection) -> None:
    body = market.viper(con, name="Infinity Nova Oil and Gas Exploration")
    assert body["ticker"] == "BBN"
    assert [m["ticker"] for m in body["other_name_matches"]] == ["UAS"]


@pytest.mark.parametrize("name", ["infinity nova", "Oil and Gas", "Nova", "UAS"])
def test_viper_by_name_is_not_a_substring_search(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """A part of a company's name is no match (below 0.65): a zero answer, no target."""
    body = market.viper(con, name=name)
    assert body["ticker"] is None and body["current_risk_score"] == 0.0
    assert "name_match" not in body


def test_a_live_campaign_has_a_score_and_no_reason(con: duckdb.DuckDBPyConnection) -> None:
    body = market.viper(con, ticker="UAS")
    assert body["pattern_match_score"] == 100 and body["pattern_match_reason"] is None
    (campaign,) = body["campaigns"]
    assert campaign["pattern_match_reason"] is None
    assert campaign["pattern_elements_present"] == 4


@pytest.mark.parametrize(
    ("ticker", "words"),
    [
        ("JVO", "its outcome is known (REFUTED)"),
        ("BBN", "reported 2026-02-19, 280 days before the as-of date 2026-11-26"),
    ],
)
def test_a_null_pattern_match_score_says_why_beside_present_evidence(
    con: duckdb.DuckDBPyConnection, ticker: str, words: str
) -> None:
    """docs/market.md scores only a live campaign: four elements present and no score is right,
    and the answer says why."""
    body = market.viper(con, ticker=ticker)
    assert body["pattern_match_score"] is None
    (campaign,) = body["campaigns"]
    assert all(campaign["pattern_evidence"][e]["present"] for e in market.PATTERN_ELEMENTS)
    assert campaign["pattern_elements_present"] == 4
    assert words in campaign["pattern_match_reason"]
    assert words in body["pattern_match_reason"]
    assert body["pattern_match_reason"].startswith("no live campaign")


def test_viper_links_each_activist_to_its_profile_endpoint(
    con: duckdb.DuckDBPyConnection,
) -> None:
    body = market.viper(con, ticker="JVO")
    (entity,) = body["activists"]
    assert entity["activist_id"] == "longreach-partners"
    assert entity["profile"] == "/api/robot/activists/longreach-partners"
    assert body["campaigns"][0]["activist_profile"] == entity["profile"]
    assert entity["regulatory_status"] is None
    assert "no register" in entity["regulatory_status_note"]
    assert entity["integrity_components"]["accuracy_rate"] == 0.0


# ------------------------------------------------------------------------------ activists


def test_activist_profile_has_integrity_campaigns_and_regulatory_status(
    con: duckdb.DuckDBPyConnection,
) -> None:
    body = market.activist(con, "Longreach-Partners")
    assert (body["activist_id"], body["activist"]) == ("longreach-partners", "Longreach Partners")
    assert body["integrity_index"] == 40.0 and body["is_tracked"] is True
    assert body["integrity_components"] == {
        "accuracy_rate": 0.0,
        "decided_campaigns": 1,
        "settlement_rate": 1.0,
        "settlement_known_campaigns": 1,
        "campaigns_per_year": 2.0,
        "frequency_score": 0.5,
    }
    assert [c["campaign_id"] for c in body["campaigns"]] == [
        "LONGREACH-UAS-2026",
        "LONGREACH-JVO-2026",
    ]
    assert body["campaigns"][0]["viper"] == "/api/robot/viper/UAS"
    assert body["campaigns"][0]["report_date"] == "2026-11-11"
    assert body["regulatory_status"] is None and body["regulatory_status_note"]
    assert "not investment advice" in body["notice"]
    json.dumps(body)  # plain JSON: no dates or decimals left


def test_unknown_activist_is_404(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ServingError) as raised:
        market.activist(con, "no-such-activist")
    assert raised.value.status == 404
