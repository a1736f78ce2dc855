"""Where the live checks run: the targets the warehouse knows, the run that stores their
tiles (resumable from its cache), the Dagster asset, ``bvs verify --live``'s refresh and
``bvs live-check`` — against the servers of conftest.py."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from pipelines.ingest.sources import SOURCES
from pipelines.live.checker import LiveChecker
from pipelines.live.run import check_and_store, check_many
from pipelines.live.targets import entity_facts
from pipelines.serving.live import refresh
from pipelines.settings import PROJECT_ROOT, get_settings
from pipelines.warehouse.connection import create_table_sql
from pipelines.warehouse.meta import ensure_meta
from tests.live.conftest import AS_OF, LiveWorld

ACME, SOLE, PLUMBING, NOBODY = "53004085616", "51824753556", "25010499966", "11123456780"
TABLES = {t.name: t.schema for s in SOURCES.values() for t in s.tables.values()}


def make_warehouse(path: Path) -> None:
    con = duckdb.connect(str(path))
    try:
        ensure_meta(con)
        for name in ("abr__abns", "abr__other_names"):
            con.execute(create_table_sql(f"raw.{name}", TABLES[name]))
        for abn, name, individual, given, family in (
            (ACME, "ACME PTY LTD", False, None, None),
            (SOLE, None, True, "JANE", "CITIZEN"),
            (PLUMBING, "SMITH HOLDINGS PTY LTD", False, None, None),
            (NOBODY, "ZZQX NOTHING PTY LTD", False, None, None),
        ):
            con.execute(
                "insert into raw.abr__abns (abn, entity_name, is_individual, given_name, family_name,"
                " abn_status, abn_status_from_date) values (?, ?, ?, ?, ?, 'ACT', ?)",
                [abn, name, individual, given, family, dt.date(2005, 1, 1)],
            )
        con.execute("insert into raw.abr__other_names (abn, name_type, name) values (?, 'TRD', 'Acme Plumbing Brisbane')",
                    [PLUMBING])  # fmt: skip
    finally:
        con.close()


def landing_ledger(data_dir: Path) -> None:
    folder = data_dir / "landing" / "ledgers" / "acme-co"
    folder.mkdir(parents=True)
    (folder / "suppliers.csv").write_text(
        "supplier_ref,abn,supplier_name,domain,email\n"
        f"S1,{ACME},Acme Pty Ltd,good.com.au,accounts@good.com.au\n"
        f"S2,{SOLE},Jane Citizen,,jane@gmail.com\n"
        f"S3,{PLUMBING},Acme Plumbing,,\n"
    )


def live_env(world: LiveWorld, data_dir: Path) -> dict[str, str]:
    cfg = world.config(data_dir)
    return {
        "BVS_DATA_DIR": str(data_dir),
        "BVS_LIVE_CHECKS": "true",
        "BVS_LIVE_RESOLVERS": f"127.0.0.1:{world.dns.port}",
        "BVS_LIVE_BLOCKLIST_ZONES": ",".join(cfg.blocklist_zones),
        "BVS_LIVE_RDAP_BOOTSTRAP_URL": cfg.rdap_bootstrap_url,
        "BVS_LIVE_RDAP_AU_URL": cfg.rdap_au_url,
        "BVS_LIVE_CT_URL": cfg.ct_url,
        "BVS_LIVE_PROBE_NAME": "probe.test",
        "BVS_LIVE_ALLOW_PRIVATE": "true",
        "BVS_LIVE_HTTPS_PORT": str(world.web.https_port),
        "BVS_LIVE_HTTP_PORT": str(world.web.http_port),
        "BVS_LIVE_CA_BUNDLE": str(world.web.ca_bundle),
        "BVS_LIVE_SCAM_RATING": json.dumps({"url": f"{world.web.base}/scam", "key": "k-secret-1"}),
    }


def stored(warehouse: Path) -> dict[tuple[str, str], tuple[str, str, dict[str, Any]]]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(
            "select abn, check_id, status, reason, detail from live.tiles"
        ).fetchall()
    finally:
        con.close()
    return {(a, c): (s, r, json.loads(d)) for a, c, s, r, d in rows}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    make_warehouse(data / "warehouse.duckdb")
    landing_ledger(data)
    return data


def test_targets_ledger_suppliers_then_known_domains(data_dir: Path,
                                                      make_checker: Callable[..., LiveChecker]) -> None:  # fmt: skip
    settings = get_settings(data_dir=data_dir)
    con = duckdb.connect(str(settings.warehouse))
    try:
        facts = entity_facts(con, settings)
        assert [f.abn for f in facts] == [ACME, SOLE, PLUMBING]
        acme, sole, plumbing = facts
        assert (acme.domain, acme.domain_source, acme.email) == (
            "good.com.au",
            "ledger",
            "accounts@good.com.au",
        )
        assert sole.is_individual and sole.legal_names == ["JANE CITIZEN"]
        assert plumbing.trading_names == ["Acme Plumbing Brisbane"]
        summary = check_and_store(con, make_checker(), facts, AS_OF)
        assert summary.entities == 3 and summary.offline is None
        # the web presence hit makes the ABN a target of the next run even without a ledger
        (data_dir / "landing" / "ledgers" / "acme-co" / "suppliers.csv").unlink()
        again = entity_facts(con, settings)
        assert [(f.abn, f.domain, f.domain_source) for f in again] == [
            (ACME, "good.com.au", "web_presence"), (PLUMBING, "acmeplumbing.com", "web_presence")]  # fmt: skip
    finally:
        con.close()
    tiles = stored(settings.warehouse)
    assert tiles[(ACME, "domain")][0] == "PASS" and tiles[(ACME, "email")][0] == "PASS"
    assert tiles[(SOLE, "email")][1] == "Free e-mail provider => WARN"
    assert tiles[(SOLE, "web_presence")][1] == "Sole trader with no domain => N/A"
    assert tiles[(PLUMBING, "web_presence")][2]["domain"] == "acmeplumbing.com"


def _override_domain(settings: Any, supplier_ref: str, domain: str) -> None:
    """A user's domain override, appended to the customer's audit trail (the writer
    ``overrides.override`` ends in; it also wants a finished ledger run, which this test's
    warehouse does not have)."""
    from pipelines.ledgers import overrides

    overrides._append(settings, "acme-co", {
        "action": "override", "at": dt.datetime.now(dt.UTC).isoformat(), "by": "tester",
        "ledger": "suppliers", "supplier_ref": supplier_ref, "field": "domain", "old": None,
        "new": domain, "reason": "the supplier's real site",
    })  # fmt: skip


def test_a_users_domain_override_is_checked_and_one_pointing_at_127_0_0_1_is_refused(
    data_dir: Path, live_world: LiveWorld, make_checker: Callable[..., LiveChecker]
) -> None:
    settings = get_settings(data_dir=data_dir)
    _override_domain(settings, "S1", "internal.com.au")  # resolves to 127.0.0.1
    _override_domain(settings, "S3", "acmeplumbing.com")
    con = duckdb.connect(str(settings.warehouse))
    try:
        facts = {f.abn: f for f in entity_facts(con, settings)}
        # the override wins over the ledger row's domain (S1) and over the search (S3)
        assert (facts[ACME].domain, facts[ACME].domain_source) == ("internal.com.au", "override")
        assert (facts[PLUMBING].domain, facts[PLUMBING].domain_source) == ("acmeplumbing.com", "override")  # fmt: skip
        requests = live_world.sites.requests
        before = len(requests)
        # the override is the domain checked: no candidate search (its parked .com.au)
        check_and_store(con, make_checker(), [facts[PLUMBING]], AS_OF)
        hosts = {host for host, _ in requests[before:]}
        assert "acmeplumbing.com" in hosts and "acmeplumbing.com.au" not in hosts
        # with only public addresses allowed (production), the 127.0.0.1 override is refused
        before = len(requests)
        check_and_store(con, make_checker(allow_private=False), [facts[ACME]], AS_OF)
        assert not [r for r in requests[before:] if r[0] == "internal.com.au"]
    finally:
        con.close()
    tiles = stored(settings.warehouse)
    status, reason, _ = tiles[(ACME, "web_presence")]
    assert status == "N/A" and "refused" in reason and "127.0.0.1" in reason
    assert tiles[(ACME, "domain")][0] == "N/A" and "refused" in tiles[(ACME, "domain")][1]


def test_a_run_stopped_half_way_resumes_from_its_cache(data_dir: Path, live_world: LiveWorld,
                                                       make_checker: Callable[..., LiveChecker]) -> None:  # fmt: skip
    settings = get_settings(data_dir=data_dir)
    con = duckdb.connect(str(settings.warehouse))
    try:
        facts = entity_facts(con, settings)
        first = list(check_many(make_checker(), facts[:1], AS_OF))  # "killed" after one ABN
        assert first[0][1]["domain"].status == "PASS"
        requests = live_world.sites.requests
        before = len(requests)
        check_and_store(con, make_checker(), facts, AS_OF)  # a new checker: a restart
        asked = {host for host, _ in requests[before:]} | {p for _, p in requests[before:]}
        assert "good.com.au" not in asked  # ACME's site was in the cache
        assert not any(p.endswith("/domain/good.com.au") for p in asked)
        assert "acmeplumbing.com" in asked  # the unfinished ABN was checked
        n = len(requests)
        check_and_store(con, make_checker(), facts, AS_OF)
        assert len(requests) == n  # everything cached: no provider asked again
    finally:
        con.close()


def test_check_many_shares_the_entities_among_worker_processes_as_one_process_would(
    make_checker: Callable[..., LiveChecker], live_world: LiveWorld, tmp_path: Path
) -> None:
    import multiprocessing as mp

    from pipelines.live.checker import EntityFacts

    domains = ["good.com.au", "listed.com.au", "nullmx.com.au", "loop.com.au", "down.com.au",
               "acmeplumbing.com"]  # fmt: skip

    workers: set[str] = set()

    def facts() -> Any:  # a generator (no length): sharded whatever the count
        for i, d in enumerate(domains):
            # the workers started before the first entity is read, and stop only once the
            # last one was (a worker that took no entity stops as early as one that did)
            workers.update(p.name for p in mp.active_children() if p.name.startswith("bvs-live-"))
            yield EntityFacts(abn=f"{i:011d}", legal_names=["X Pty Ltd"], domain=d,
                              domain_source="ledger", abn_registered=dt.date(2005, 1, 1))  # fmt: skip

    def outcome(tiles: Any) -> dict[str, tuple[str, str]]:
        return {c: (t.status, t.reason) for c, t in tiles.items()}

    threaded = {f.abn: outcome(t) for f, t in check_many(make_checker(), list(facts()), AS_OF)}
    assert not workers  # one process: no worker started
    checker = make_checker(processes=2, cache_path=tmp_path / "sharded.sqlite")
    sharded = {item.abn: outcome(tiles) for item, tiles in check_many(checker, facts(), AS_OF)}
    assert sharded == threaded and len(sharded) == len(domains)
    assert workers == {"bvs-live-0", "bvs-live-1"}  # BVS_LIVE_PROCESSES=2: two workers
    assert not [p for p in mp.active_children() if p.name.startswith("bvs-live-")]  # joined


def test_a_shards_limits_together_stay_within_the_configured_ones() -> None:
    from pipelines.live.config import LiveConfig
    from pipelines.live.run import shard_config
    from pipelines.live.throttle import Limits

    config = LiveConfig(
        workers=64, processes=3, limits={"rdap": Limits(concurrency=16, per_second=20.0)}
    )
    share = shard_config(config, 3)
    assert share.processes == 1 and share.workers * 3 <= 64
    assert share.limits["rdap"].concurrency * 3 <= 16
    assert share.limits["rdap"].per_second * 3 == pytest.approx(20.0)


def test_the_dagster_asset_stores_the_tiles(data_dir: Path, live_world: LiveWorld,
                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import dagster as dg

    from pipelines.defs.live.assets import live_tiles
    from pipelines.defs.resources import BvsResource

    for key, value in live_env(live_world, data_dir).items():
        monkeypatch.setenv(key, value)
    result = dg.materialize(
        [live_tiles],
        resources={"bvs": BvsResource(data_dir=str(data_dir), as_of=AS_OF.isoformat())},
    )
    assert result.success
    metadata = result.asset_materializations_for_node("live__tiles")[0].metadata
    assert metadata["abns"].value == 3
    tiles = stored(data_dir / "warehouse.duckdb")
    assert (
        tiles[(ACME, "trust")][1] == "Clean on all blocklists and the scam-rating service => PASS"
    )
    assert "k-secret-1" not in json.dumps([list(v) for v in tiles.values()])


def test_offline_the_asset_stores_not_run_with_the_reason(data_dir: Path, live_world: LiveWorld,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import dagster as dg

    from pipelines.defs.live.assets import live_tiles
    from pipelines.defs.resources import BvsResource

    for key, value in live_env(live_world, data_dir).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("BVS_LIVE_PROBE_NAME", "unresolvable.test")
    assert dg.materialize(
        [live_tiles], resources={"bvs": BvsResource(data_dir=str(data_dir))}
    ).success
    tiles = stored(data_dir / "warehouse.duckdb")
    assert len(tiles) == 3 * 8
    assert all(r.startswith("Not run: no network") and s == "N/A" for s, r, _ in tiles.values())


def _response(abn: str, entity: str) -> dict[str, Any]:
    def t(status: str, reason: str, weight: int = 5) -> dict[str, Any]:
        return {"status": status, "reason": reason, "detail": None, "sources": [], "weight": weight}

    not_run = t("N/A", "Not run: web presence not checked live => N/A")
    checks = {c: dict(not_run) for c in ("domain", "email", "trust", "web_presence", "social",
                                         "customer_reviews", "phone", "street_view")}  # fmt: skip
    for c in ("gst", "abn_status", "company_status", "business_names"):
        checks[c] = t("WARN", "register row => WARN")
    return {"abn": abn, "entity": entity, "as_of": AS_OF.isoformat(), "assurance_score": 50.0,
            "risk": {"score": 50.0, "level": "medium", "flags": []}, "risk_score": 50.0,
            "checks": checks}  # fmt: skip


def snapshot(path: Path) -> duckdb.DuckDBPyConnection:
    """The marts ``refresh`` reads, for Zzqx and Acme."""
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute(
        "create table marts.entities (abn varchar, is_individual boolean, abn_status_from_date date)"
    )
    con.execute("create table marts.entity_names (abn varchar, name varchar, name_kind varchar)")
    con.execute("create table marts.risk_flags (abn varchar, flag_id varchar, severity varchar)")
    con.execute(
        "create table marts.risk_levels (severity varchar, risk_floor double, level varchar)"
    )
    declared = yaml.safe_load((PROJECT_ROOT / "dbt_project" / "dbt_project.yml").read_text())
    con.executemany("insert into marts.risk_levels values (?, ?, ?)",
                    [[b["severity"], b["risk_floor"], b["level"]] for b in declared["vars"]["risk_levels"]])  # fmt: skip
    con.execute("create table marts.identity_failure_rule (checks varchar, risk_floor double)")
    identity = declared["vars"]["identity_failures"]
    con.execute("insert into marts.identity_failure_rule values (?, 70)",
                [",".join(identity["checks"])])  # fmt: skip
    con.execute("create table marts.warn_cluster_rule (min_warns integer, cascade_checks varchar)")
    rule = declared["vars"]["warn_cluster"]
    con.execute("insert into marts.warn_cluster_rule values (?, ?)",
                [rule["min_warns"], ",".join(rule["cascade_checks"])])  # fmt: skip
    con.execute(
        "insert into marts.entities values (?, false, '2005-01-01'), (?, false, '2005-01-01')",
        [NOBODY, ACME],
    )
    con.execute("insert into marts.entity_names values (?, 'ZZQX NOTHING PTY LTD', 'legal'), (?, 'ACME PTY LTD', 'legal')",
                [NOBODY, ACME])  # fmt: skip
    return con


def test_verify_live_refreshes_the_tiles_and_recomputes_warn_cluster(
    tmp_path: Path, make_checker: Callable[..., LiveChecker]
) -> None:
    con = snapshot(tmp_path / "snap.duckdb")
    # no domain for Zzqx: the search ran and found none, four register WARNs => WARN_CLUSTER
    out = refresh(con, _response(NOBODY, "ZZQX NOTHING PTY LTD"), make_checker())
    assert out["checks"]["web_presence"]["status"] == "FAIL"
    assert out["checks"]["domain"]["reason"].startswith("No domain found")
    assert out["risk"]["flags"] == ["WARN_CLUSTER"] and out["risk"]["level"] == "medium"
    assert out["domain"] is out["checks"]["domain"]
    # a user's override (from the snapshot's tile detail) is checked, not searched for
    response = _response(ACME, "ACME PTY LTD")
    response["checks"]["web_presence"]["detail"] = {
        "domain": "good.com.au",
        "domain_source": "override",
    }
    out = refresh(con, response, make_checker())
    assert out["checks"]["web_presence"]["status"] == "PASS"
    assert out["checks"]["domain"]["detail"]["domain_source"] == "override"
    assert out["risk"]["flags"] == []
    assert out["assurance_score"] > 50.0
    assert out["risk"]["identity_failures"] == [] and out["risk"]["level"] == "low"
    # a decisive identity failure of the snapshot's answer (docs/decisions/21-decisive-identity-failure.md) keeps the
    # refreshed risk at least high, whatever the live tiles add to the score
    response = _response(ACME, "ACME PTY LTD")
    response["checks"]["web_presence"]["detail"] = {
        "domain": "good.com.au",
        "domain_source": "override",
    }
    response["checks"]["abn_status"] = {**response["checks"]["abn_status"], "status": "FAIL"}
    response["risk"]["identity_failures"] = ["abn_status"]
    out = refresh(con, response, make_checker())
    assert out["risk"]["identity_failures"] == ["abn_status"]
    assert out["risk"]["level"] == "high" and out["risk"]["score"] >= 70
    con.close()


def test_verify_live_keeps_a_refused_override_and_reports_it(
    tmp_path: Path, make_checker: Callable[..., LiveChecker]
) -> None:
    """A user's domain that resolves to 127.0.0.1, refused: the next ``bvs verify --live``
    checks the same domain (refused again), not the 16 candidates of the name."""
    con = snapshot(tmp_path / "snap.duckdb")
    response = _response(ACME, "ACME PTY LTD")
    response["checks"]["web_presence"]["detail"] = {"domain": "internal.com.au", "domain_source": "override"}  # fmt: skip
    checker = make_checker(allow_private=False)
    first = refresh(con, response, checker)
    second = refresh(con, first, checker)
    for out in (first, second):
        web = out["checks"]["web_presence"]
        assert (
            web["status"] == "N/A" and "refused" in web["reason"] and "127.0.0.1" in web["reason"]
        )
        assert (web["detail"]["domain"], web["detail"]["domain_source"]) == ("internal.com.au", "override")  # fmt: skip
        assert out["checks"]["domain"]["status"] == "N/A"
    con.close()


# Suppliers whose providers answer oddly: ABN -> (domain, the tile that says why, its words)
ODD_SUPPLIERS = {
    "33000000081": ("rdaplist.com.au", "domain", "the RDAP answer is a list, not an object"),
    "33000000130": ("rdapevents.com.au", "domain", "'events' is an object, not a list"),
    "33000000162": ("ctodd.com.au", "certificate_transparency", "the certificate search's answer[0] is a number, not an object"),
}  # fmt: skip
# (a Retry-After of 999999999999, rdaphuge.com.au, rate limits the RDAP server every .com.au
# domain here shares, so beside these it could pass the others over: tests/live/test_run.py
# checks it in a run of its own, test_odd_answers.py in the checker)


def test_suppliers_whose_providers_answer_oddly_do_not_stop_the_run(
    data_dir: Path, live_world: LiveWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RDAP answering a list or ``events`` as an object, certificate transparency
    answering ``[1, "x", null]``: the live step succeeds,
    the steps after it (dbt and the publish, as ``published`` stands for them) run, and
    each of those suppliers' tiles says why it is N/A."""
    import dagster as dg

    from pipelines.defs.live.assets import live_tiles
    from pipelines.defs.resources import BvsResource

    con = duckdb.connect(str(data_dir / "warehouse.duckdb"))
    for abn in ODD_SUPPLIERS:
        con.execute("insert into raw.abr__abns (abn, entity_name, is_individual, abn_status,"
                    " abn_status_from_date) values (?, 'ODD PTY LTD', false, 'ACT', '2005-01-01')", [abn])  # fmt: skip
    con.close()
    with (data_dir / "landing" / "ledgers" / "acme-co" / "suppliers.csv").open("a") as ledger:
        for i, (abn, (domain, _, _)) in enumerate(ODD_SUPPLIERS.items()):
            ledger.write(f"O{i},{abn},Odd Pty Ltd,{domain},\n")
    for key, value in live_env(live_world, data_dir).items():
        monkeypatch.setenv(key, value)

    @dg.asset(deps=[live_tiles.key])
    def published() -> None:  # stands for dbt and the snapshot's publish
        return None

    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [live_tiles, published], instance=instance,
            resources={"bvs": BvsResource(data_dir=str(data_dir), as_of=AS_OF.isoformat())},
        )  # fmt: skip
    assert result.success
    assert dg.AssetKey("published") in {e.asset_key for e in result.get_asset_materialization_events()}  # fmt: skip
    tiles = stored(data_dir / "warehouse.duckdb")
    for abn, (domain, why_in, words) in ODD_SUPPLIERS.items():
        status, reason, detail = tiles[(abn, "domain")]
        if why_in == "certificate_transparency":
            assert detail["certificate_transparency"] == {"not_run": words}, domain
        else:
            assert status == "N/A" and words in reason, (domain, reason)
        assert tiles[(abn, "web_presence")][0] == "PASS", domain  # the rest checked as usual
    assert tiles[(ACME, "domain")][0] == "PASS"  # and the other suppliers


def test_bvs_live_check_prints_what_each_client_found(
    tmp_path: Path, live_world: LiveWorld
) -> None:
    env = {**os.environ, **live_env(live_world, tmp_path)}
    bvs = Path(sys.executable).parent / "bvs"
    done = subprocess.run([str(bvs), "live-check", "https://www.good.com.au/about"], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["domain"] == "good.com.au"
    assert found["dns"]["mx"] == ["mail.good.com.au"] and found["dns"]["dmarc"].startswith(
        "v=DMARC1"
    )
    assert found["rdap"]["registered"] and found["certificate_transparency"]["certificates"] == 3
    assert found["web"]["live"] and found["web"]["https"]
    assert found["blocklists"]["clean"] == ["dbl.test", "uri.test"]
    bad = subprocess.run(
        [str(bvs), "live-check", "not a domain"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "not a domain name" in json.loads(bad.stdout)["message"]


def test_provider_keys_are_never_shown() -> None:
    """A provider key reaches only the provider's Authorization header: settings and the
    live config print it masked (logs, errors)."""
    from pipelines.live.config import from_settings

    settings = get_settings(live_scam_rating='{"url": "https://scam.example/api", "key": "k-123-secret"}',
                            live_review_platforms='[{"name": "r1", "url": "https://r.example", "key": "r-456-secret"}]')  # fmt: skip
    config = from_settings(settings)
    shown = repr(settings) + str(settings.model_dump()) + repr(config)
    assert "k-123-secret" not in shown and "r-456-secret" not in shown
    assert config.scam_rating is not None and config.scam_rating.key is not None
    assert config.scam_rating.key.reveal() == "k-123-secret"
    assert [e.name for e in config.review_platforms] == ["r1"]
