"""The read API over real HTTP on 127.0.0.1, answering from the snapshot `bvs run` published.

Each test gets its own data folder (a copy of the published snapshot, a fresh state
database) and a uvicorn server in a thread with an injectable clock, so rate-limit windows
and the Brisbane midnight reset are tested without waiting. `test_workers_share_exact_counts`
runs the real `bvs serve` with two worker processes.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import requests
from api_server import Api, Clock, data_copy, free_port, serve

from pipelines.api.snapshots import SnapshotHolder
from pipelines.settings import BRISBANE, get_settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key, revoke_key
from pipelines.warehouse.snapshot import current_snapshot, publish_snapshot
from pipelines.warehouse.verify_lookup import build_verify_lookup

pytestmark = pytest.mark.slow

BVS = str(Path(sys.executable).with_name("bvs"))
BASE = "/api/robot"
# 2026-11-23 10:00:30 in Brisbane (UTC+10, no daylight saving)
START = dt.datetime(2026, 11, 23, 0, 0, 30, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def published(pipeline_world: dict) -> Path:
    data = pipeline_world["data"]
    info = current_snapshot(get_settings(data_dir=data))
    assert info is not None and "verify" in info.sidecars, "run publishes the verify lookup"
    return data


@pytest.fixture
def api(published: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Api]:
    data = data_copy(published, tmp_path / "data")
    overrides = getattr(request, "param", None)
    settings = get_settings(
        data_dir=data, warehouse_path=data / "warehouse.duckdb", plan_limits=overrides
    )
    yield from serve(settings, Clock(START))


@pytest.fixture(scope="module")
def abns(published: Path) -> dict[str, str]:
    info = current_snapshot(get_settings(data_dir=published))
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        flagged = con.execute(
            "select abn from marts.verifications where flag_count > 0 order by abn limit 1"
        ).fetchone()
        plain = con.execute(
            "select abn from marts.verifications where status = 'Active' order by abn limit 1"
        ).fetchone()
        listed = con.execute(
            "select ticker from marts.squeeze_latest where market = 'asx' and score is not null"
            " order by ticker limit 1"
        ).fetchone()
    finally:
        con.close()
    assert flagged and plain and listed
    return {"flagged": flagged[0], "plain": plain[0], "ticker": listed[0]}


def _valid_abns(count: int) -> list[str]:
    """`count` distinct ABNs with valid check digits (none of them in the sample)."""
    weights = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
    found: list[str] = []
    body = 900_000_000
    while len(found) < count:
        body += 1
        for lead in range(10, 100):
            digits = [int(c) for c in f"{lead}{body}"]
            digits[0] -= 1
            if sum(w * d for w, d in zip(weights, digits, strict=True)) % 89 == 0:
                found.append(f"{lead}{body}")
                break
    return found


_ABNS21 = _valid_abns(21)


def _only_message(response: requests.Response) -> str:
    body = response.json()
    assert list(body) == ["message"], body
    assert isinstance(body["message"], str) and body["message"]
    return str(body["message"])


def _limits(response: requests.Response) -> tuple[int, int, int]:
    h = response.headers
    return int(h["X-RateLimit-Limit"]), int(h["X-RateLimit-Remaining"]), int(h["X-RateLimit-Reset"])


# ------------------------------------------------------------------------------------ verify


def test_verify_by_path_and_query_carry_both_shapes_and_every_check(
    api: Api, abns: dict[str, str]
) -> None:
    key = api.key("enterprise")
    by_path = api.get(f"{BASE}/verify/{abns['flagged']}", key)
    by_query = api.get(f"{BASE}/verify", key, abn=abns["flagged"])
    assert by_path.status_code == by_query.status_code == 200
    body = by_path.json()
    for member in (
        "abn", "entity", "status", "generated_at", "assurance_score", "risk", "viper", "ppsr",
        "insolvency", "asic", "conduct", "domain", "email", "address", "phone", "street_view",
        "risk_score", "checks", "notice",
    ):  # fmt: skip
        assert member in body, member
    # docs/decisions/26-words-the-spec-requires.md, where the user reads the result
    assert (
        "not legal advice" in body["notice"] and "not an official certification" in body["notice"]
    )
    assert body["abn"] == abns["flagged"]
    assert body["risk"]["flags"], "this ABN has flags in the mart"
    assert len(body["checks"]) == 36
    assert body["asic"] == body["checks"]["company_status"]
    assert {k: v for k, v in by_query.json().items() if k not in ("generated_at", "cached")} == {
        k: v for k, v in body.items() if k not in ("generated_at", "cached")
    }


def test_checks_narrow_the_tiles_and_the_score(api: Api, abns: dict[str, str]) -> None:
    key = api.key("enterprise")
    full = api.get(f"{BASE}/verify/{abns['plain']}", key).json()
    narrow = api.get(f"{BASE}/verify/{abns['plain']}", key, checks="abn_status,gst").json()
    assert list(narrow["checks"]) == ["abn_status", "gst"]
    weights = {c: full["checks"][c]["weight"] for c in ("abn_status", "gst")}
    share = {"PASS": 1.0, "WARN": 0.5, "FAIL": 0.0}
    points = sum(share[full["checks"][c]["status"]] * w for c, w in weights.items())
    assert narrow["assurance_score"] == round(100 * points / sum(weights.values()), 1)


def test_cache_true_serves_the_rendered_result_and_false_renders_again(
    api: Api, abns: dict[str, str]
) -> None:
    key = api.key("enterprise")
    first = api.get(f"{BASE}/verify/{abns['plain']}", key).json()
    api.clock.advance(hours=1)
    again = api.get(f"{BASE}/verify/{abns['plain']}", key).json()
    fresh = api.get(f"{BASE}/verify/{abns['plain']}", key, cache="false").json()
    assert (first["cached"], again["cached"], fresh["cached"]) == (False, True, False)
    assert again["generated_at"] == first["generated_at"]
    assert fresh["generated_at"] > first["generated_at"]
    api.clock.advance(hours=24)  # older than the 24-hour cache window: rendered again
    later = api.get(f"{BASE}/verify/{abns['plain']}", key).json()
    assert later["cached"] is False


@pytest.mark.parametrize(
    ("path", "params", "status", "words"),
    [
        (f"{BASE}/verify/1234567890", {}, 400, "11 digits"),
        (f"{BASE}/verify/12345678901", {}, 400, "checksum"),
        (f"{BASE}/verify/53004085616", {"checks": "abn_status,nope"}, 400, "unknown check"),
        (f"{BASE}/verify/53004085616", {}, 404, "not found"),
        (f"{BASE}/verify", {}, 400, "abn"),
        (f"{BASE}/verify/53004085616", {"cache": "maybe"}, 400, "cache"),
        (f"{BASE}/squeeze", {"limit": 0}, 400, "limit"),
        (f"{BASE}/squeeze", {"limit": 501}, 400, "limit"),
        (f"{BASE}/squeeze", {"market": "moon"}, 400, "market"),
        (f"{BASE}/squeeze", {"tier": "hot"}, 400, "tier"),
        (f"{BASE}/squeeze/NOSUCH", {}, 404, "no squeeze score"),
        (f"{BASE}/viper/ZZZZ", {}, 404, "no asx-listed instrument"),
        (f"{BASE}/viper", {"ticker": "ZZZZ"}, 404, "no asx-listed instrument"),
        (f"{BASE}/activists/no-such-activist", {}, 404, "no activist"),
        (f"{BASE}/search", {"q": "   "}, 400, "empty"),
        (f"{BASE}/search", {"q": "acme", "limit": 101}, 400, "limit"),
        (f"{BASE}/search", {}, 400, "q"),
        (f"{BASE}/network", {"abns": "53004085616,1234"}, 400, "11 digits"),
        (
            f"{BASE}/network",
            {"abns": ",".join(["53004085616"] * 2 + _ABNS21)},
            400,
            "supplier ledger",
        ),
        (f"{BASE}/network", {"abns": "53004085616"}, 404, "none of the abns"),
        (f"{BASE}/nowhere", {}, 404, "no such endpoint"),
    ],
)
def test_bad_requests_get_a_message_and_the_right_status(
    api: Api, path: str, params: dict, status: int, words: str
) -> None:
    key = api.key("enterprise")
    response = api.get(path, key, **params)
    assert response.status_code == status, response.text
    assert words in _only_message(response).lower()
    assert "report builder" not in _only_message(response)  # nothing of that name exists
    if path != f"{BASE}/nowhere":
        assert "X-RateLimit-Limit" in response.headers  # errors carry the headers too


def test_post_is_refused_with_a_message(api: Api) -> None:
    response = api.session.post(f"{api.url}{BASE}/verify/53004085616", timeout=10)
    assert response.status_code == 405
    assert "GET" in _only_message(response)


# ------------------------------------------------------------------------------------ keys


def test_missing_invalid_and_revoked_keys_get_401(api: Api, abns: dict[str, str]) -> None:
    path = f"{BASE}/verify/{abns['plain']}"
    assert api.get(path).status_code == 401
    assert api.get(path, "bvs_000000000000_" + "x" * 43).status_code == 401
    assert api.get(path, "not-a-key").status_code == 401
    key = api.key("individual")
    assert api.get(path, key).status_code == 200
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert api.get(path, tampered).status_code == 401
    with state_store(api.settings) as engine:
        revoke_key(engine, key.split("_")[1])
    refused = api.get(path, key)
    assert refused.status_code == 401, "revocation takes effect on the next request"
    assert "revoked" in _only_message(refused)
    assert "X-RateLimit-Limit" not in refused.headers


def test_free_plan_gets_403_and_spends_nothing(api: Api, abns: dict[str, str]) -> None:
    key = api.key("free")
    for _ in range(3):
        refused = api.get(f"{BASE}/verify/{abns['plain']}", key)
        assert refused.status_code == 403
        assert "Individual plan" in _only_message(refused)
        assert _limits(refused)[:2] == (10, 10)  # Free's hourly window, untouched


def test_keys_are_stored_hashed_and_listed_with_usage(api: Api, abns: dict[str, str]) -> None:
    key = api.key("individual", name="usage")
    for _ in range(3):
        api.get(f"{BASE}/verify/{abns['plain']}", key)
    api.get(f"{BASE}/verify/{abns['plain']}", "bvs_" + key[4:16] + "_" + "y" * 43)  # 401
    state = api.settings.state_dir / "bvs.sqlite"
    assert key.split("_", 2)[2].encode() not in state.read_bytes()
    env = {**os.environ, "BVS_DATA_DIR": str(api.settings.data_dir)}
    listed = subprocess.run(
        [BVS, "keys", "list", "--json"], env=env, capture_output=True, text=True, check=True
    )
    (row,) = [r for r in json.loads(listed.stdout) if r["name"] == "usage"]
    # the fake clock's day (2026-11-23 in Brisbane) is not the real today: it is the total
    assert row["requests_total"] == 3 and row["plan"] == "individual"


# ------------------------------------------------------------------------------------ limits


def test_minute_window_admits_the_plan_limit_then_429_until_the_next_minute(
    api: Api, abns: dict[str, str]
) -> None:
    key = api.key("individual")  # 10 a minute, 100 an hour, 100 a day
    path = f"{BASE}/verify/{abns['plain']}"
    minute_end = int(dt.datetime(2026, 11, 23, 0, 1, tzinfo=dt.UTC).timestamp())
    seen = []
    for _ in range(10):
        response = api.get(path, key)
        assert response.status_code == 200
        seen.append(_limits(response))
    assert [s[1] for s in seen] == list(range(9, -1, -1))
    assert {(s[0], s[2]) for s in seen} == {(10, minute_end)}
    refused = api.get(path, key)
    assert refused.status_code == 429
    message = _only_message(refused)
    assert "10 requests per minute" in message and "Individual" in message
    assert int(refused.headers["Retry-After"]) == minute_end - int(START.timestamp())
    api.clock.advance(seconds=30)  # 10:01:00 in Brisbane: a new minute
    admitted = api.get(path, key)
    assert admitted.status_code == 200
    # 11 requests made, 1 refused: the hour has 100 - 11 left, the minute 9
    assert _limits(admitted)[:2] == (10, 9)


@pytest.mark.parametrize(
    "api", [json.dumps({"individual": {"per_minute": 1000, "per_day": 1000}})], indirect=True
)
def test_hour_window_is_aligned_to_the_clock(api: Api, abns: dict[str, str]) -> None:
    key = api.key("individual")  # 100 an hour
    path = f"{BASE}/verify/{abns['plain']}"
    api.clock.now = dt.datetime(2026, 11, 23, 0, 59, 0, tzinfo=dt.UTC)  # 10:59 Brisbane
    for _ in range(100):
        assert api.get(path, key).status_code == 200
    refused = api.get(path, key)
    assert refused.status_code == 429 and "100 requests per hour" in _only_message(refused)
    assert int(refused.headers["Retry-After"]) == 60
    api.clock.advance(minutes=1)  # 11:00: the hour window began on the hour
    assert api.get(path, key).status_code == 200


@pytest.mark.parametrize(
    "api",
    [json.dumps({"individual": {"per_minute": 100, "per_hour": 100, "per_day": 5}})],
    indirect=True,
)
def test_day_window_resets_at_midnight_in_brisbane(api: Api, abns: dict[str, str]) -> None:
    key = api.key("individual")
    path = f"{BASE}/verify/{abns['plain']}"
    api.clock.now = dt.datetime(2026, 11, 23, 13, 58, tzinfo=dt.UTC)  # 23:58 in Brisbane
    midnight = dt.datetime(2026, 11, 24, tzinfo=BRISBANE)
    for _ in range(5):
        response = api.get(path, key)
        assert response.status_code == 200
    assert _limits(response) == (5, 0, int(midnight.timestamp()))
    api.clock.advance(minutes=1)  # 23:59 Brisbane, still the same day
    refused = api.get(path, key)
    assert refused.status_code == 429 and "5 requests per day" in _only_message(refused)
    assert int(refused.headers["Retry-After"]) == 60
    api.clock.now = dt.datetime(2026, 11, 23, 14, 0, tzinfo=dt.UTC)  # 00:00 Brisbane, 24th
    assert api.get(path, key).status_code == 200


@pytest.mark.parametrize(
    "api", [json.dumps({"individual": {"premium_per_month": 2}})], indirect=True
)
def test_premium_checks_that_never_ran_use_up_no_quota(api: Api, abns: dict[str, str]) -> None:
    """docs/decisions/18-a-check-that-did-not-run-is-unknown.md: the phone and street-view checks are not run here (no provider
    is configured), so however many verifications a month brings, their tiles say why and
    are never "quota used up" (the counting itself: tests/state/test_limits.py)."""
    key = api.key("individual")
    path = f"{BASE}/verify/{abns['plain']}"
    for _ in range(4):  # the first one built, the others from the verify cache
        body = api.get(path, key).json()
        for check in ("phone", "street_view"):
            tile = body["checks"][check]
            assert tile["status"] == "N/A" and tile["reason"].startswith("Not run"), tile
            assert "rate_limited" not in tile, tile


def test_enterprise_has_no_premium_quota(api: Api, abns: dict[str, str]) -> None:
    key = api.key("enterprise")
    for _ in range(35):
        body = api.get(f"{BASE}/verify/{abns['plain']}", key, checks="phone").json()
        assert "rate_limited" not in body["checks"]["phone"]


# ------------------------------------------------------------------------------------ others


def test_squeeze_viper_alerts_and_health(
    api: Api, abns: dict[str, str], pipeline_world: dict
) -> None:
    key = api.key("enterprise")
    one = api.get(f"{BASE}/squeeze/{abns['ticker']}", key)
    assert one.status_code == 200
    assert set(one.json()) >= {
        "ticker", "score", "short_interest", "days_to_cover", "momentum", "volume_ratio",
        "updated_at",
    }  # fmt: skip
    assert "not predictive" in one.json()["notice"]  # docs/market.md
    listed = api.get(f"{BASE}/squeeze", key, market="ASX", limit=3).json()
    assert "not predictive" in listed["notice"]
    assert 0 < len(listed["signals"]) <= 3
    assert {"ticker", "squeeze_score", "signal_tier"} <= set(listed["signals"][0])
    (live,) = [m for m in pipeline_world["planted"]["market"] if m["kind"] == "live_campaign"]
    viper = api.get(f"{BASE}/viper/{live['ticker']}", key).json()
    assert viper["active_campaigns"] is True and viper["pattern_match_score"] is not None
    assert "not investment advice" in viper["notice"]
    alerts = api.get(f"{BASE}/alerts", key)
    # a key bound to no customer has no ledger alerts; the members are there all the same
    assert alerts.json() == {
        "alerts": [], "next_cursor": 0, "ledger_alerts": [], "next_ledger_cursor": 0
    }  # fmt: skip


def test_squeeze_answers_share_one_tier_vocabulary_and_state_units(
    api: Api, abns: dict[str, str]
) -> None:
    key = api.key("enterprise")
    units = {
        "asx": "percent_of_shares_on_issue",
        "crypto": "percent_of_open_interest",
        "forex": "percent_of_open_interest_non_commercial",
    }
    for ticker in (abns["ticker"], "BTC", "AUDUSD"):
        one = api.get(f"{BASE}/squeeze/{ticker}", key).json()
        assert "tier" not in one
        assert one["signal_tier"] in {"extreme", "high", "medium", "low"}
        assert one["short_interest_unit"] == units[one["market"]]
    for mkt in units:
        signals = api.get(f"{BASE}/squeeze", key, market=mkt, limit=500).json()["signals"]
        assert signals and {s["short_interest_unit"] for s in signals} == {units[mkt]}
        assert {s["signal_tier"] for s in signals} <= {"extreme", "high", "medium", "low"}
    single = api.get(f"{BASE}/squeeze/{abns['ticker']}", key).json()
    (same,) = [
        s
        for s in api.get(f"{BASE}/squeeze", key, market="asx", limit=500).json()["signals"]
        if s["ticker"] == abns["ticker"]
    ]
    assert same["signal_tier"] == single["signal_tier"]


def test_viper_links_to_activist_profiles_and_says_why_a_score_is_null(
    api: Api, abns: dict[str, str], pipeline_world: dict
) -> None:
    key = api.key("enterprise")
    (live,) = [m for m in pipeline_world["planted"]["market"] if m["kind"] == "live_campaign"]
    viper = api.get(f"{BASE}/viper/{live['ticker']}", key).json()
    assert viper["pattern_match_reason"] is None
    (entity, *_) = viper["activists"]
    assert entity["profile"] == f"{BASE}/activists/{entity['activist_id']}"
    profile = api.get(entity["profile"], key)
    assert profile.status_code == 200, profile.text
    body = profile.json()
    assert body["activist"] == entity["activist"]
    assert body["integrity_index"] == entity["integrity_index"]
    assert set(body["integrity_components"]) >= {
        "accuracy_rate", "settlement_rate", "campaigns_per_year", "frequency_score",
    }  # fmt: skip
    assert live["campaign_id"] in {c["campaign_id"] for c in body["campaigns"]}
    assert body["regulatory_status"] is None and "no register" in body["regulatory_status_note"]
    # a documented landmark campaign, long decided: no score, and the answer says why
    real = api.get(f"{BASE}/viper/TWE", key).json()
    assert real["pattern_match_score"] is None and real["pattern_match_reason"]
    assert all(c["pattern_match_reason"] for c in real["campaigns"])
    # a listed product without campaigns is a zero answer, not a 404
    plain = api.get(f"{BASE}/viper/{abns['ticker']}", key)
    assert plain.status_code == 200
    health = api.session.get(f"{api.url}/health", timeout=10)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert "X-RateLimit-Limit" not in health.headers
    assert "preload" in health.json()["snapshot"]  # null while the files are still read


def test_search_puts_the_trading_name_first_with_the_legal_name_beneath(
    api: Api, published: Path
) -> None:
    info = current_snapshot(get_settings(data_dir=published))
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        abn, name, legal = con.execute(
            "select abn, name, legal_name from marts.search_names"
            " where name_kind = 'trading' and search_key in ("
            "   select search_key from marts.search_names group by search_key"
            "   having count(distinct abn) = 1)"
            " order by abn limit 1"
        ).fetchall()[0]
    finally:
        con.close()
    key = api.key("enterprise")
    response = api.get(f"{BASE}/search", key, q=name)
    assert response.status_code == 200, response.text
    assert "X-RateLimit-Remaining" in response.headers
    body = response.json()
    assert body["query"] == name
    first = body["results"][0]
    assert (first["abn"], first["label"], first["legal_name"]) == (abn, name, legal)
    assert (first["tier"], first["exact"]) == ("T3a", True)  # a trading name typed in full
    word = name.split()[0]
    assert len(api.get(f"{BASE}/search", key, q=word, limit=2).json()["results"]) <= 2


def test_network_answers_for_the_abns_it_holds_with_their_phoenix_links(
    api: Api, published: Path
) -> None:
    """The HTTP surface of docs/network.md (its rules are tested in tests/serving/test_network.py):
    entities in the requested order, the unknown ABN under not_found, the phoenix link of a
    requested entity shown."""
    info = current_snapshot(get_settings(data_dir=published))
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        linked, acn = con.execute(
            "select abn, deregistered_acn from marts.phoenix_links order by abn limit 1"
        ).fetchall()[0]
        other = con.execute(
            "select min(abn) from marts.entities where abn <> ?", [linked]
        ).fetchall()[0][0]
    finally:
        con.close()
    key = api.key("enterprise")
    requested = [linked, other, _ABNS21[0]]
    response = api.get(f"{BASE}/network", key, abns=" , ".join(requested))
    assert response.status_code == 200, response.text
    assert "X-RateLimit-Remaining" in response.headers
    body = response.json()
    assert body["abns"] == requested
    assert [e["abn"] for e in body["entities"]] == requested[:2]
    assert body["not_found"] == [_ABNS21[0]]
    assert {(p["abn"], p["deregistered_acn"]) for p in body["phoenix_links"]} >= {(linked, acn)}
    assert isinstance(body["shared_directors"], list)
    assert isinstance(body["shared_addresses"], list)


def test_alerts_are_the_key_owners_since_the_cursor(api: Api, pipeline_world: dict) -> None:
    from pipelines.state.watches import add_watch, evaluate
    from pipelines.warehouse.snapshot import open_snapshot

    (live,) = [m for m in pipeline_world["planted"]["market"] if m["kind"] == "live_campaign"]
    with state_store(api.settings) as engine:
        mine, _ = create_key(engine, "mine", "individual", owner="acme")
        theirs, _ = create_key(engine, "theirs", "individual", owner="other")
        created = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
        add_watch(engine, "acme", "activist", ticker=live["ticker"], now=created)
        add_watch(engine, "other", "activist", ticker=live["ticker"], now=created)
        con = open_snapshot(api.settings)
        try:
            raised = evaluate(engine, con)
        finally:
            con.close()
    assert len(raised) == 2
    body = api.get(f"{BASE}/alerts", mine).json()
    assert [a["kind"] for a in body["alerts"]] == ["activist"]
    assert body["alerts"][0]["ticker"] == live["ticker"]
    after = api.get(f"{BASE}/alerts", mine, since=body["next_cursor"]).json()
    assert after == {
        "alerts": [], "next_cursor": body["next_cursor"], "ledger_alerts": [],
        "next_ledger_cursor": 0,
    }  # fmt: skip
    assert len(api.get(f"{BASE}/alerts", theirs).json()["alerts"]) == 1


def test_openapi_document_lists_every_endpoint_with_errors(api: Api) -> None:
    doc = api.session.get(f"{api.url}/openapi.json", timeout=10).json()
    paths = set(doc["paths"])
    assert {
        f"{BASE}/verify/{{abn}}", f"{BASE}/verify", f"{BASE}/squeeze/{{ticker}}",
        f"{BASE}/squeeze", f"{BASE}/viper/{{ticker}}", f"{BASE}/viper", f"{BASE}/search",
        f"{BASE}/network", f"{BASE}/alerts", f"{BASE}/activists/{{activist_id}}", "/health",
    } <= paths  # fmt: skip
    verify_get = doc["paths"][f"{BASE}/verify/{{abn}}"]["get"]
    assert {"200", "400", "401", "403", "404", "429"} <= set(verify_get["responses"])
    assert verify_get["security"], "the bearer key is declared"
    # docs/decisions/26-words-the-spec-requires.md
    assert "not legal advice" in verify_get["description"]
    # docs/market.md
    assert "not predictive" in doc["paths"][f"{BASE}/squeeze"]["get"]["description"]


# ------------------------------------------------------------------------------------ snapshot


def test_a_snapshot_published_during_requests_fails_none(api: Api, abns: dict[str, str]) -> None:
    key = api.key("enterprise")
    api.settings.plan_limits = None
    before = api.get(f"{BASE}/verify/{abns['plain']}", key).json()["snapshot_id"]
    stop = threading.Event()
    statuses: Counter[int] = Counter()
    ids: set[str] = set()

    def hammer() -> None:
        with requests.Session() as session:
            while not stop.is_set():
                r = session.get(
                    f"{api.url}{BASE}/verify/{abns['plain']}",
                    params={"cache": "false"},
                    headers={"Authorization": f"Bearer {key}"},
                    timeout=30,
                )
                statuses[r.status_code] += 1
                if r.status_code == 200:
                    ids.add(r.json()["snapshot_id"])
                # stay inside every Enterprise window (100 a minute, 1,000 an hour and a
                # day) however many requests the publish takes: 960 a day at most
                api.clock.advance(seconds=90)

    worker = threading.Thread(target=hammer)
    worker.start()
    try:
        time.sleep(0.3)
        writer = duckdb.connect(str(api.settings.warehouse))
        try:
            info = publish_snapshot(
                writer,
                api.settings,
                as_of=dt.date(2026, 11, 20),
                sidecars={"verify": build_verify_lookup},
            )
        finally:
            writer.close()
        deadline = time.monotonic() + 10
        while info.snapshot_id not in ids and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        stop.set()
        worker.join(timeout=30)
    assert set(statuses) == {200}, statuses
    assert {before, info.snapshot_id} <= ids


def test_a_new_snapshot_answers_only_once_its_lookup_is_in_memory(
    published: Path, tmp_path: Path
) -> None:
    data = data_copy(published, tmp_path / "data")
    settings = get_settings(data_dir=data, warehouse_path=data / "warehouse.duckdb")
    holder = SnapshotHolder(settings, poll_seconds=0)
    first = holder.current()
    assert first is not None
    writer = duckdb.connect(str(settings.warehouse))
    try:
        info = publish_snapshot(
            writer, settings, as_of=dt.date(2026, 11, 20), sidecars={"verify": build_verify_lookup}
        )
    finally:
        writer.close()
    deadline = time.monotonic() + 30
    served = holder.current()
    while served is not None and served.info.snapshot_id != info.snapshot_id:
        assert time.monotonic() < deadline, "the new snapshot never went into service"
        time.sleep(0.01)
        served = holder.current()
    # its verify lookup read before it answered (not the DuckDB file, written just now)
    assert served is not None and served.preloaded is not None
    lookup = info.sidecars["verify"].stat().st_size
    assert served.preloaded.bytes == served.preloaded.wanted == lookup
    deadline = time.monotonic() + 30  # the first snapshot a worker serves: read whole
    while first.preloaded is None:
        assert time.monotonic() < deadline, "the first snapshot was never read into memory"
        time.sleep(0.01)
    assert first.preloaded.bytes == first.preloaded.wanted
    assert first.preloaded.wanted == sum(f.stat().st_size for f in first.files) > lookup
    if _can_lock_memory(lookup):  # and the verify lookup locked there while it serves
        assert served.pinned is not None and served.pinned.bytes == lookup
    holder.stop()


def test_a_snapshot_out_of_service_is_released_off_the_request_once_none_holds_it(
    published: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The old snapshot stays open for a request still using it; once the last one lets it
    go, it is closed on the holder's own thread, not on the request's."""
    data = data_copy(published, tmp_path / "data")
    settings = get_settings(data_dir=data, warehouse_path=data / "warehouse.duckdb")
    holder = SnapshotHolder(settings, poll_seconds=0)
    in_flight = holder.current()  # a request that took the first snapshot and is still running
    assert in_flight is not None
    old_id = in_flight.info.snapshot_id
    writer = duckdb.connect(str(settings.warehouse))
    try:
        info = publish_snapshot(writer, settings, as_of=dt.date(2026, 11, 20))
    finally:
        writer.close()
    caplog.set_level(logging.INFO, logger="pipelines.api.snapshots")
    deadline = time.monotonic() + 30
    while (current := holder.current()) is None or current.info.snapshot_id != info.snapshot_id:
        assert time.monotonic() < deadline, "the new snapshot never went into service"
        time.sleep(0.01)
    del current
    time.sleep(0.5)
    with in_flight.cursor() as cur:  # the request finishes on the old snapshot
        assert cur.execute("select snapshot_id from meta.snapshot").fetchone() == (old_id,)
    released = [r for r in caplog.records if r.getMessage().startswith("released snapshot")]
    assert released == []
    del in_flight, cur
    while not (
        released := [r for r in caplog.records if r.getMessage().startswith("released snapshot")]
    ):
        assert time.monotonic() < deadline + 30, "the old snapshot was never released"
        time.sleep(0.01)
    assert [r.getMessage().split()[2] for r in released] == [old_id + ","]
    assert released[0].threadName != threading.current_thread().name
    holder.stop()


def _can_lock_memory(size: int) -> bool:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    return os.geteuid() == 0 or soft == resource.RLIM_INFINITY or soft >= size


def test_workers_share_exact_counts(published: Path, tmp_path: Path, abns: dict[str, str]) -> None:
    """200 requests at once from one key on a 100-a-minute plan, two worker processes:
    exactly 100 admitted."""
    data = data_copy(published, tmp_path / "data")
    settings = get_settings(data_dir=data)
    with state_store(settings) as engine:
        key, _ = create_key(engine, "burst", "enterprise")  # 100 a minute
    port = free_port()
    env = {**os.environ, "BVS_DATA_DIR": str(data), "BVS_API_WORKERS": "2"}
    server = subprocess.Popen(
        [BVS, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "bvs serve did not start"
            time.sleep(0.2)
        while dt.datetime.now().second > 40:  # all 200 inside one clock minute
            time.sleep(1)
        barrier = threading.Barrier(200)

        def one(_: int) -> int:
            barrier.wait()
            return requests.get(
                f"{url}{BASE}/verify/{abns['plain']}",
                headers={"Authorization": f"Bearer {key}"},
                timeout=60,
            ).status_code

        with cf.ThreadPoolExecutor(max_workers=200) as pool:
            codes = Counter(pool.map(one, range(200)))
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert codes == Counter({200: 100, 429: 100})


# ------------------------------------------------------------------------------ 503 and 500


def test_no_snapshot_yet_is_503_with_a_message_and_health_says_unavailable(
    tmp_path: Path,
) -> None:
    data = tmp_path / "empty"
    (data / "landing").mkdir(parents=True)
    settings = get_settings(data_dir=data, warehouse_path=data / "warehouse.duckdb")
    for api in serve(settings, Clock(START)):
        key = api.key("enterprise")
        response = api.get(f"{BASE}/verify/{_ABNS21[0]}", key)
        assert response.status_code == 503
        assert "no serving snapshot" in _only_message(response)
        assert "X-RateLimit-Limit" in response.headers
        health = api.session.get(f"{api.url}/health", timeout=10)
        assert health.status_code == 503 and health.json()["status"] == "unavailable"


def test_a_corrupt_lookup_record_is_500_without_internals(api: Api, abns: dict[str, str]) -> None:
    """A damaged body in the verify lookup (a disk fault): 500, logged, nothing leaked;
    other ABNs are still answered."""
    import sqlite3

    info = current_snapshot(api.settings)
    assert info is not None
    with sqlite3.connect(info.sidecars["verify"]) as lite:
        lite.execute(
            "update verify set body = x'00112233445566778899' where abn = ?",
            (int(abns["flagged"]),),
        )
    key = api.key("enterprise")
    broken = api.get(f"{BASE}/verify/{abns['flagged']}", key, cache="false")
    assert broken.status_code == 500
    message = _only_message(broken)
    assert message == "internal error; it has been logged"
    if abns["plain"] != abns["flagged"]:
        assert api.get(f"{BASE}/verify/{abns['plain']}", key).status_code == 200


def test_cache_false_checks_the_live_tiles_now(
    published: Path, tmp_path: Path, abns: dict[str, str]
) -> None:
    """docs/api.md ``cache=false`` with the live checks on: the ABN's live tiles are checked at
    request time (pipelines/serving/live.py). A DNS server of the test's own answers the
    connectivity probe and knows none of the entity's candidate domains, so the web presence
    search runs and finds no site: the tiles say so instead of the snapshot's "Not run"."""
    from tests.live.servers import DnsServer, Zone

    zone = Zone()
    zone.add("probe.test", "A", "127.0.0.1")
    dns_server = DnsServer(zone)
    try:
        data = data_copy(published, tmp_path / "data")
        settings = get_settings(
            data_dir=data, warehouse_path=data / "warehouse.duckdb", live_checks=True,
            live_resolvers=f"127.0.0.1:{dns_server.port}", live_probe_name="probe.test",
            live_blocklist_zones="dbl.test",
        )  # fmt: skip
        for api in serve(settings, Clock(START)):
            key = api.key("individual")
            path = f"{BASE}/verify/{abns['plain']}"
            cached = api.get(path, key).json()
            assert cached["checks"]["web_presence"]["reason"].startswith("Not run")
            started = time.monotonic()
            live = api.get(f"{path}?cache=false", key).json()
            assert time.monotonic() - started < 15  # docs/api.md: 2 to 15 seconds
            web = live["checks"]["web_presence"]
            assert (
                web["reason"]
                == "No site found across all candidate domains (up to 16 patterns) => FAIL"
            )
            assert web["detail"]["candidates"] and "checked_live_at" in web
            assert live["checks"]["domain"]["status"] == "N/A"
            assert not live["checks"]["domain"]["reason"].startswith("Not run")
            assert live["domain"] == live["checks"]["domain"]
            assert dns_server.queries > 1
    finally:
        dns_server.close()
