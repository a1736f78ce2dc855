"""Every endpoint's real answers held to the OpenAPI document (schemathesis's response
checks) over HTTP on 127.0.0.1, with inputs that reach each documented answer: a 200 with
real data from the session's pipeline world, the 404s, and the errors every route shares.

The fuzz (test_api_fuzz.py) mostly produces inputs the API refuses; here each 200 carries
real content (an ABN with flags, a live activist campaign, a trading name, a phoenix link,
an alert), so a member the document leaves out, declares wrongly or marks optional when it
is always there fails. The ledger endpoints are held to it in test_ledgers.py, which has
the ledger runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
import schemathesis
from api_server import Api, Clock, data_copy, serve
from conformance import check_conforms, load_schema, operations

from pipelines.settings import get_settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key
from pipelines.warehouse.snapshot import current_snapshot

pytestmark = pytest.mark.slow

BASE = "/api/robot"
NOT_IN_REGISTER = "53004085616"  # a valid ABN the sample does not hold
LEDGER_PATHS = {
    f"{BASE}/ledgers",
    f"{BASE}/ledgers/{{ledger}}",
    f"{BASE}/ledgers/{{ledger}}/changes",
}


@pytest.fixture(scope="module")
def served(pipeline_world: dict, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    data = data_copy(pipeline_world["data"], tmp_path_factory.mktemp("conformance") / "data")
    settings = get_settings(data_dir=data, warehouse_path=data / "warehouse.duckdb")
    yield from serve(settings, Clock(dt.datetime.now(dt.UTC)))


@pytest.fixture(scope="module")
def schema(served: Api) -> schemathesis.BaseSchema:
    return load_schema(served.url)


@pytest.fixture(scope="module")
def inputs(served: Api, pipeline_world: dict) -> dict[str, str]:
    """Values that reach a 200 with content, read from the published snapshot."""
    info = current_snapshot(served.settings)
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        one = lambda sql: con.execute(sql).fetchall()[0][0]  # noqa: E731
        found = {
            "flagged": one("select min(abn) from marts.verifications where flag_count > 0"),
            "plain": one("select min(abn) from marts.verifications where status = 'Active'"),
            "asx": one(
                "select min(ticker) from marts.squeeze_latest"
                " where market = 'asx' and score is not null"
            ),
            "trading": one("select min(name) from marts.search_names where name_kind = 'trading'"),
            "linked": one("select min(abn) from marts.phoenix_links"),
        }
    finally:
        con.close()
    (live,) = [m for m in pipeline_world["planted"]["market"] if m["kind"] == "live_campaign"]
    found["live"] = live["ticker"]
    return found


@pytest.fixture(scope="module")
def key(served: Api, inputs: dict[str, str]) -> str:
    """An Enterprise key whose owner has an activist alert (so /alerts lists one)."""
    from pipelines.state.watches import add_watch, evaluate
    from pipelines.warehouse.snapshot import open_snapshot

    with state_store(served.settings) as engine:
        secret, _ = create_key(engine, "conformance", "enterprise", owner="acme")
        add_watch(engine, "acme", "activist", ticker=inputs["live"], now=dt.datetime(2025, 1, 1))
        con = open_snapshot(served.settings)
        try:
            assert evaluate(engine, con)
        finally:
            con.close()
    return secret


def test_every_endpoint_answers_what_the_document_says(
    schema: schemathesis.BaseSchema, served: Api, key: str, inputs: dict[str, str]
) -> None:
    called: set[str] = set()

    def ok(path: str, **kw: Any) -> Any:
        called.add(path)
        return check_conforms(schema, path, key, **kw)

    for abn in (inputs["flagged"], inputs["plain"], NOT_IN_REGISTER):
        status = 404 if abn == NOT_IN_REGISTER else 200
        ok(f"{BASE}/verify/{{abn}}", path_parameters={"abn": abn}, status=status)
        ok(f"{BASE}/verify", query={"abn": abn, "cache": "false"}, status=status)
    flagged = ok(f"{BASE}/verify/{{abn}}", path_parameters={"abn": inputs["flagged"]}).json()
    assert flagged["cached"] is True and flagged["risk"]["flags"], "a cached body with flags"
    ok(f"{BASE}/verify", query={"abn": inputs["plain"], "checks": "abn_status,gst,phone"})
    for ticker in (inputs["asx"], "BTC", "AUDUSD"):
        ok(f"{BASE}/squeeze/{{ticker}}", path_parameters={"ticker": ticker})
    ok(f"{BASE}/squeeze/{{ticker}}", path_parameters={"ticker": "NOPE"}, status=404)
    ok(f"{BASE}/squeeze", query={"market": "asx", "limit": 500})
    ok(f"{BASE}/squeeze", query={"tier": "low"})
    live = ok(f"{BASE}/viper/{{ticker}}", path_parameters={"ticker": inputs["live"]}).json()
    assert live["campaigns"] and live["activists"]
    ok(f"{BASE}/viper/{{ticker}}", path_parameters={"ticker": "TWE"})  # long decided
    ok(f"{BASE}/viper/{{ticker}}", path_parameters={"ticker": inputs["asx"]})  # no campaigns
    ok(f"{BASE}/viper", query={"abn": inputs["flagged"]})  # no campaign: the zero answer
    ok(f"{BASE}/viper/{{ticker}}", path_parameters={"ticker": "NOPE"}, status=404)
    ok(f"{BASE}/viper", query={"ticker": inputs["live"]})
    activist = live["activists"][0]["activist_id"]
    ok(f"{BASE}/activists/{{activist_id}}", path_parameters={"activist_id": activist})
    ok(f"{BASE}/activists/{{activist_id}}", path_parameters={"activist_id": "nobody"}, status=404)
    found = ok(f"{BASE}/search", query={"q": inputs["trading"]}).json()
    assert found["results"]
    ok(f"{BASE}/search", query={"q": "zzzzqqqq"})
    pair = f"{inputs['linked']},{inputs['plain']},{NOT_IN_REGISTER}"
    network = ok(f"{BASE}/network", query={"abns": pair}).json()
    assert network["phoenix_links"] and network["entities"]
    ok(f"{BASE}/network", query={"abns": NOT_IN_REGISTER}, status=404)
    alerts = ok(f"{BASE}/alerts").json()
    assert alerts["alerts"], "the owner's activist alert is listed"
    ok("/health")
    # every operation of the document is held to it: here, or the ledgers in test_ledgers.py
    assert called == set(operations(schema)) - LEDGER_PATHS


def test_errors_every_route_shares_are_documented(
    schema: schemathesis.BaseSchema, served: Api, key: str, inputs: dict[str, str]
) -> None:
    verify = f"{BASE}/verify/{{abn}}"
    check_conforms(schema, verify, None, path_parameters={"abn": inputs["plain"]}, status=401)
    check_conforms(schema, verify, "bvs_x", path_parameters={"abn": inputs["plain"]}, status=401)
    with state_store(served.settings) as engine:
        free, _ = create_key(engine, "free", "free")
    check_conforms(schema, verify, free, path_parameters={"abn": inputs["plain"]}, status=403)
    check_conforms(schema, verify, key, path_parameters={"abn": "123"}, status=400)
    check_conforms(schema, f"{BASE}/ledgers", key, status=403)  # a key with no customer
    check_conforms(schema, f"{BASE}/alerts", key, query={"limit": 0}, status=400)


def test_the_pipeline_publishes_each_sources_cadence_with_the_snapshot(served: Api) -> None:
    """The API tells stale data from the snapshot alone: `bvs run` records the cadence each
    source declares beside its last load."""
    from pipelines.ingest.sources import SOURCES
    from pipelines.serving.freshness import published_cadences
    from pipelines.warehouse.snapshot import open_snapshot

    with open_snapshot(served.settings) as con:
        loaded = {r[0] for r in con.execute("select source from meta.sources").fetchall()}
        cadences = published_cadences(con)
    assert len(loaded) > 10
    assert cadences == {name: SOURCES[name].refresh_days for name in loaded}


def test_a_cache_false_answer_with_the_live_checks_on_is_what_the_document_says(
    pipeline_world: dict, tmp_path_factory: pytest.TempPathFactory, inputs: dict[str, str]
) -> None:
    """``cache=false`` with the live checks on re-checks the live tiles at request time:
    each carries ``checked_live_at``, which the document declares. A DNS server of the
    test's own answers the connectivity probe and knows no domain (no internet)."""
    from tests.live.servers import DnsServer, Zone

    zone = Zone()
    zone.add("probe.test", "A", "127.0.0.1")
    dns_server = DnsServer(zone)
    try:
        data = data_copy(pipeline_world["data"], tmp_path_factory.mktemp("live") / "data")
        settings = get_settings(
            data_dir=data, warehouse_path=data / "warehouse.duckdb", live_checks=True,
            live_resolvers=f"127.0.0.1:{dns_server.port}", live_probe_name="probe.test",
            live_blocklist_zones="dbl.test",
        )  # fmt: skip
        for api in serve(settings, Clock(dt.datetime.now(dt.UTC))):
            schema = load_schema(api.url)
            key = api.key("enterprise")
            for abn in (inputs["plain"], inputs["flagged"]):
                answer = check_conforms(
                    schema, f"{BASE}/verify/{{abn}}", key,
                    path_parameters={"abn": abn}, query={"cache": "false"},
                ).json()  # fmt: skip
                assert "checked_live_at" in answer["checks"]["web_presence"]
    finally:
        dns_server.close()
