"""The real commands, end to end: bvs sample -> bvs run (twice) -> bvs status; a bad file.

Runs the installed `bvs` console script in subprocesses with a private data folder and
Dagster home, as a data engineer would.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.identifiers import abn_with_check_digits
from pipelines.serving.verify import verify
from pipelines.settings import get_settings
from pipelines.warehouse.snapshot import current_snapshot

pytestmark = pytest.mark.slow

BVS = str(Path(sys.executable).with_name("bvs"))
AS_OF = "2026-11-20"
# CONTRACT.md check ids: one tile each in every verify response.
CHECK_IDS = [
    "abn_status",
    "gst",
    "domain",
    "email",
    "trust",
    "web_presence",
    "address",
    "phone",
    "street_view",
    "social",
    "licence",
    "conduct",
    "phoenix",
    "disability_register",
    "insolvency",
    "charities",
    "tax_practitioners",
    "prudential",
    "super_fund",
    "company_status",
    "business_names",
    "financial_advisers",
    "banned_disqualified",
    "financial_services_licence",
    "gazette",
    "tax_debt",
    "workplace_compliance",
    "customer_reviews",
    "rd_incentive",
    "modern_slavery",
    "workforce_gender",
    "government_contracts",
    "competition_enforcement",
    "bcorp",
    "activist",
    "squeeze_signal",
]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BVS, *args], env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def world(pipeline_world: dict) -> dict:
    return pipeline_world


def _snapshot(data: Path) -> Path:
    snapshot = current_snapshot(get_settings(data_dir=data))
    assert snapshot is not None
    return snapshot.path


def test_run_prints_where_things_are_and_the_row_counts(world: dict) -> None:
    out = world["first"].stdout
    assert f"warehouse: {world['data'] / 'warehouse.duckdb'}" in out
    assert "serving snapshot (published):" in out
    assert "marts.entities" in out and "abr__abns" in out


def test_quarantine_holds_exactly_the_planted_malformed_rows(world: dict) -> None:
    with duckdb.connect(str(world["data"] / "warehouse.duckdb"), read_only=True) as con:
        quarantined = Counter(
            source for (source,) in con.execute("select source from meta.quarantine").fetchall()
        )
        lines = {
            (source, file_name, line)
            for source, file_name, line in con.execute(
                "select source, file_name, line from meta.quarantine"
            ).fetchall()
        }
    planted = world["planted"]["planted"]
    assert quarantined == Counter(p["source"] for p in planted)
    assert lines == {(p["source"], p["file"], p["line"]) for p in planted}


def test_snapshot_holds_every_valid_entity(world: dict) -> None:
    counts = world["planted"]["counts"]["abr"]
    with duckdb.connect(str(_snapshot(world["data"])), read_only=True) as con:
        entities = con.execute("select count(*) from marts.entities").fetchone()[0]
        meta = con.execute("select as_of from meta.snapshot").fetchone()[0]
        sources = {r[0] for r in con.execute("select source from meta.sources").fetchall()}
    assert entities == counts["records"] - counts["malformed"]
    assert str(meta) == AS_OF
    assert {"abr", "asic_companies", "asic_business_names"} <= sources


def _planted_match_rows(con: duckdb.DuckDBPyConnection, case: dict, match: dict) -> list:
    record = match["record"]
    where = " and ".join(f"{k} is null" if v is None else f"{k} = ?" for k, v in record.items())
    params = [v for v in record.values() if v is not None]
    method = "null as method" if match["table"] == "phoenix_links" else "method"
    return con.execute(
        f"select {method} from marts.{match['table']} where abn = ? and {where}",
        [case["abn"], *params],
    ).fetchall()


def test_every_planted_match_lands_in_its_table_with_its_method(world: dict) -> None:
    expected = [(c, m) for c in world["planted"]["cases"] for m in c["matches"]]
    tables = {m["table"] for _, m in expected}
    assert len(expected) > 100 and len(tables) >= 15
    wrong = []
    with duckdb.connect(str(_snapshot(world["data"])), read_only=True) as con:
        for case, match in expected:
            rows = _planted_match_rows(con, case, match)
            methods = {r[0] for r in rows}
            if match["table"] == "phoenix_links":
                if not rows:
                    wrong.append((case["id"], match, rows))
            elif methods != {match["method"]}:
                wrong.append((case["id"], match, rows))
    assert not wrong, wrong


def test_no_planted_decoy_matches(world: dict) -> None:
    decoys = [(c, m) for c in world["planted"]["cases"] for m in c["non_matches"]]
    assert len(decoys) >= 10
    with duckdb.connect(str(_snapshot(world["data"])), read_only=True) as con:
        matched = [(c["id"], m) for c, m in decoys if _planted_match_rows(con, c, m)]
    assert not matched, matched


def test_name_similarities_are_pg_trgm_and_miss_no_pair(world: dict) -> None:
    """The trigram table holds exactly the pairs a brute-force comparison of every
    register name with every entity name finds."""
    from pipelines.matching import trigram_similarity

    with duckdb.connect(str(world["data"] / "warehouse.duckdb"), read_only=True) as con:
        registers = con.execute(
            "select name_normalised, name_threshold from intermediate.int_matching__register_names"
            " order by name_normalised"
        ).fetchall()
        entity_names = [
            r[0]
            for r in con.execute(
                "select name_normalised from intermediate.int_matching__entity_names_keyed"
            ).fetchall()
        ]
        stored = {
            (r[0], r[1]): r[2]
            for r in con.execute(
                "select register_name, entity_name, similarity"
                " from intermediate.int_matching__name_similarities"
            ).fetchall()
        }
    assert len(registers) > 50 and len(entity_names) > 3000 and stored
    for (register_name, entity_name), score in stored.items():
        assert score == pytest.approx(trigram_similarity(register_name, entity_name), abs=1e-6)
    # Brute force over every (register name, entity name) pair.
    from pipelines.matching.trigram import trigrams

    entity_sets = [(e, trigrams(e)) for e in entity_names]
    missed, extra = [], []
    for register_name, threshold in registers:
        a = trigrams(register_name)
        brute = set()
        for e, b in entity_sets:
            common = len(a & b)
            if a and b and round(common / (len(a) + len(b) - common), 6) >= float(threshold):
                brute.add(e)
        found = {e for (r, e) in stored if r == register_name}
        missed += [(register_name, e) for e in brute - found]
        extra += [(register_name, e) for e in found - brute]
    assert not missed and not extra, (missed[:5], extra[:5])


@pytest.fixture(scope="module")
def snapshot_con(world: dict) -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(str(_snapshot(world["data"])), read_only=True)
    yield con
    con.close()


def test_planted_case_verifies_as_its_spec_row_says(
    world: dict, snapshot_con: duckdb.DuckDBPyConnection, planted_case: dict
) -> None:
    """One case per SPEC 3.3 rule row and 2.4 flag trigger (and its non-trigger neighbour),
    read through the verify response the API and `bvs verify` return."""
    response = verify(snapshot_con, planted_case["abn"], as_of=dt.date.fromisoformat(AS_OF))
    if planted_case.get("check"):
        tile = response["checks"][planted_case["check"]]
        assert tile["status"] == planted_case["status"], tile["reason"]
    fired = set(response["risk"]["flags"])
    assert set(planted_case["flags"]) <= fired
    assert not set(planted_case["not_flags"]) & fired


def test_verify_command_prints_the_verification(world: dict) -> None:
    case = next(
        c
        for c in world["planted"]["cases"]
        if c["id"] == "compliance_dual_failure/licence-and-conduct-fail"
    )
    result = _run(["verify", case["abn"]], world["env"])
    assert result.returncode == 0, result.stdout + result.stderr
    response = json.loads(result.stdout)
    assert response["abn"] == case["abn"]
    assert set(response["checks"]) == set(CHECK_IDS)
    assert response["checks"]["licence"]["status"] == "FAIL"
    assert response["conduct"] == response["checks"]["conduct"]
    assert response["asic"] == response["checks"]["company_status"]
    assert response["risk"]["flags"][0] in {"ADVERSE_ACTIVE", "FINANCIAL_ADVISER_BANNED"}
    assert "COMPLIANCE_DUAL_FAILURE" in response["risk"]["flags"]
    assert response["risk"]["level"] == "critical"  # a CRITICAL flag floors the risk score at 90
    assert response["risk_score"] == response["risk"]["score"] >= 90
    assert 0 <= response["assurance_score"] <= 100
    sources = response["checks"]["licence"]["sources"]
    assert {s["source"] for s in sources} == {"licences", "industry"}
    assert all(s["as_of"] for s in sources)

    narrowed = json.loads(
        _run(["verify", case["abn"], "--checks", "licence,gst"], world["env"]).stdout
    )
    assert set(narrowed["checks"]) == {"licence", "gst"}
    gst = narrowed["checks"]["gst"]
    expected = (
        round(
            100
            * {"PASS": 1, "WARN": 0.5, "FAIL": 0}[gst["status"]]
            * gst["weight"]
            / (gst["weight"] + 8),
            1,
        )
        if gst["status"] != "N/A"
        else 0.0
    )
    assert narrowed["assurance_score"] == expected  # licence FAIL (weight 8) scores nothing


def test_verify_command_refuses_a_malformed_abn(world: dict) -> None:
    result = _run(["verify", "12345678901"], world["env"])
    assert result.returncode == 2
    assert json.loads(result.stdout) == {
        "message": "malformed ABN '12345678901': the ABN checksum fails"
    }


def test_verify_command_of_an_unknown_abn_exits_2_as_the_api_answers_404(
    world: dict, snapshot_con: duckdb.DuckDBPyConnection
) -> None:
    abn = abn_with_check_digits("999999999")
    assert not snapshot_con.execute("select 1 from marts.entities where abn = ?", [abn]).fetchall()
    result = _run(["verify", abn], world["env"])
    assert result.returncode == 2
    assert json.loads(result.stdout) == {"message": f"the ABN {abn} was not found in the register"}


def test_search_command_labels_a_trading_name_with_the_legal_name_beneath(world: dict) -> None:
    """SPEC 4.4 on the sample: a trading name typed in full is the first result (exact,
    T3a), labelled with the trading name, the legal name beneath; --limit bounds the list;
    a blank query is refused as the API would (400 -> exit code 2)."""
    with duckdb.connect(str(_snapshot(world["data"])), read_only=True) as con:
        abn, name, legal_name = con.execute(
            "select abn, name, legal_name from marts.search_names"
            " where name_kind = 'trading' and search_key in ("
            "   select search_key from marts.search_names group by search_key"
            "   having count(*) = 1)"
            " order by name_id limit 1"
        ).fetchall()[0]
    result = _run(["search", name], world["env"])
    assert result.returncode == 0, result.stdout + result.stderr
    first = json.loads(result.stdout)["results"][0]
    assert (first["abn"], first["tier"], first["exact"]) == (abn, "T3a", True)
    assert (first["label"], first["legal_name"]) == (name, legal_name)

    limited = json.loads(_run(["search", name.split()[0], "--limit", "3"], world["env"]).stdout)
    assert 1 <= limited["count"] == len(limited["results"]) <= 3
    refused = _run(["search", "  "], world["env"])
    assert refused.returncode == 2
    assert json.loads(refused.stdout) == {"message": "the search query is empty"}


def test_squeeze_scores_tell_planted_squeezers_from_calm_names(world: dict) -> None:
    """SPEC 2.6 on a year of generated daily files: the planted squeezers (short interest
    15-25 %, volume 3-6x, price up) score HIGH, the calm names LOW; `bvs squeeze` prints it."""
    planted = [m for m in world["planted"]["market"] if m["kind"] in {"squeezer", "calm"}]
    assert {m["kind"] for m in planted} == {"squeezer", "calm"}
    for case in planted:
        result = _run(["squeeze", case["ticker"]], world["env"])
        assert result.returncode == 0, result.stdout + result.stderr
        response = json.loads(result.stdout)
        assert response["ticker"] == case["ticker"]
        assert response["short_interest"] == pytest.approx(case["short_interest_pct"])
        if case["kind"] == "squeezer":
            assert response["score"] >= 70, case
            assert response["signal_tier"] in {"high", "extreme"}, case
        else:
            assert response["score"] < 40 and response["signal_tier"] == "low", case
        if case["market"] == "asx":
            assert response["days_to_cover"] == pytest.approx(case["days_to_cover"], rel=1e-3)
            assert response["volume_ratio"] == pytest.approx(case["volume_ratio"], rel=1e-3)
            assert response["missing_signals"] == []
        else:
            assert response["days_to_cover"] is None
            assert response["missing_signals"] == [
                "days_to_cover: no short position size for this market"
            ]
    listed = json.loads(_run(["squeeze", "--tier", "extreme"], world["env"]).stdout)
    assert {s["ticker"] for s in listed["signals"]} >= {
        m["ticker"] for m in planted if m["kind"] == "squeezer" and m["market"] == "asx"
    } - {None}
    assert all(s["squeeze_score"] > 85 for s in listed["signals"])


def test_crypto_and_forex_cross_the_alert_threshold_about_as_often_as_equities(
    world: dict,
) -> None:
    """Issue 19: on the generated year, the share of scored days above 70 (the alert
    threshold) is of the same order for crypto and forex as for ASX stocks. Scaled on the
    equities' 0-20 % scale, the short share of open interest (27-75 %) put every forex day
    above 70. Each record names the signals it was made of, and a score of fewer than four
    stays below the tier four could reach."""
    with duckdb.connect(str(world["data"] / "warehouse.duckdb"), read_only=True) as con:
        shares = dict(
            con.execute(
                "select market, avg(case when score > 70 then 1.0 else 0.0 end)"
                " from marts.squeeze_scores where score is not null group by market"
            ).fetchall()
        )
    assert set(shares) == {"asx", "crypto", "forex"}
    assert shares["asx"] < 0.02, shares
    for market in ("crypto", "forex"):
        assert shares[market] <= max(5 * shares["asx"], 0.01), (market, shares)
    with duckdb.connect(str(world["data"] / "warehouse.duckdb"), read_only=True) as con:
        over_ceiling = con.execute(
            "select count(*) from marts.squeeze_scores where score > case signals_available"
            " when 3 then 85 when 2 then 69.9 when 1 then 39.9 else 100 end"
        ).fetchone()[0]
        unnamed = con.execute(
            "select count(*) from marts.squeeze_scores where score is not null and"
            " signals_available <> length(signals_used) - length(replace(signals_used, ',', '')) + 1"
        ).fetchone()[0]
    assert over_ceiling == 0
    assert unnamed == 0
    crypto = json.loads(_run(["squeeze", "BTC"], world["env"]).stdout)
    assert crypto["signals_used"] and "days_to_cover" not in crypto["signals_used"]
    forex = json.loads(_run(["squeeze", "AUDUSD"], world["env"]).stdout)
    assert set(forex["signals_used"]) <= {"short_interest", "momentum"}
    assert forex["score"] is None or forex["score"] < 70


def test_a_later_short_position_file_replaces_the_earlier_one(
    snapshot_con: duckdb.DuckDBPyConnection, world: dict
) -> None:
    data = world["data"]
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        for fix in world["planted"]["market_corrections"]:
            kept = con.execute(
                "select distinct version from staging.stg_asic__short_positions"
                " where position_date = ?",
                [fix["position_date"]],
            ).fetchall()
            assert kept == [(2,)]
            both = con.execute(
                "select count(distinct version) from raw.asic__short_positions"
                " where position_date = ?",
                [fix["position_date"]],
            ).fetchone()
            assert both == (2,)  # raw keeps both files; staging reads the newest


def test_viper_finds_the_live_campaign_with_all_four_pattern_elements(world: dict) -> None:
    (live,) = [m for m in world["planted"]["market"] if m["kind"] == "live_campaign"]
    result = _run(["viper", live["ticker"]], world["env"])
    assert result.returncode == 0, result.stdout + result.stderr
    response = json.loads(result.stdout)
    assert response["active_campaigns"] is True
    assert response["pattern_match_score"] == 100
    assert response["current_risk_score"] == 100
    (campaign,) = [c for c in response["campaigns"] if c["campaign_id"] == live["campaign_id"]]
    evidence = campaign["pattern_evidence"]
    assert all(
        evidence[e]["present"]
        for e in ("publication", "amplification", "positioning", "price_move")
    )
    assert evidence["amplification"]["mentions_around_report"] > 0
    assert (
        evidence["positioning"]["short_pct_before_report"]
        > evidence["positioning"]["short_pct_earlier"]
    )
    # a real, documented campaign is in the database too (shared/data/activist_campaigns.csv)
    real = json.loads(_run(["viper", "TWE"], world["env"]).stdout)
    assert real["historical_campaign_count"] >= 1 and real["active_campaigns"] is False
    # `bvs activist ID` prints the entity profile the viper answer links to
    activist_id = campaign["activist_id"]
    profile = json.loads(_run(["activist", activist_id], world["env"]).stdout)
    assert profile["activist_id"] == activist_id and profile["regulatory_status"] is None
    assert live["campaign_id"] in {c["campaign_id"] for c in profile["campaigns"]}
    unknown = _run(["viper", "ZZZZ"], world["env"])
    assert unknown.returncode == 2 and "ZZZZ" in json.loads(unknown.stdout)["message"]


def test_second_run_loads_nothing_again(world: dict) -> None:
    warehouse = world["data"] / "warehouse.duckdb"
    with duckdb.connect(str(warehouse), read_only=True) as con:
        loads_before = con.execute("select count(*) from meta.loads").fetchone()[0]
        entities_before = con.execute("select * from raw.abr__abns order by abn").fetchall()
    again = _run(["run", "--as-of", AS_OF], world["env"])
    assert again.returncode == 0, again.stderr
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert con.execute("select count(*) from meta.loads").fetchone()[0] == loads_before
        assert con.execute("select * from raw.abr__abns order by abn").fetchall() == entities_before


def test_status_reports_sources_snapshot_and_staleness(world: dict) -> None:
    status = _run(["status", "--json", "--as-of", AS_OF], world["env"])
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    by_source = {s["source"]: s for s in report["sources"]}
    assert by_source["abr"]["status"] == "loaded"
    assert by_source["abr"]["extract_date"] == "2026-11-18"
    assert by_source["abr"]["quarantined"] == world["planted"]["counts"]["abr"]["malformed"]
    assert report["snapshot"]["as_of"] == AS_OF
    checks = {(c["table_name"], c["check_name"]): c["passed"] for c in by_source["abr"]["checks"]}
    assert checks[("raw.abr__abns", "key_unique")] is True
    assert checks[("raw.abr__abns", "abn_check_digits")] is True
    assert report["stale"] == []  # `bvs sample` wrote the sample for this as-of date
    late = _run(["status", "--json", "--as-of", "2027-01-31"], world["env"])
    assert any("abr" in item for item in json.loads(late.stdout)["stale"])


def test_a_corrupt_file_fails_the_run_naming_it_and_keeps_the_snapshot(
    world: dict, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(world["data"], data, symlinks=True)
    env = {
        **world["env"],
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
    }
    before = (data / "serving" / "CURRENT").read_text()
    company = next((data / "landing" / "asic_companies").glob("*.csv"))
    company.write_bytes(b"\xef\xbb\xbfNot\tThe\tCompany\tHeader\r\nx\ty\tz\tw\r\n")
    failed = _run(["run", "--as-of", AS_OF], env)
    assert failed.returncode == 1
    assert company.name in failed.stderr
    status = _run(["status"], env)
    assert "failed (previous data kept)" in status.stdout and company.name in status.stdout
    assert (data / "serving" / "CURRENT").read_text() == before
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        rows = con.execute("select count(*) from raw.asic__companies").fetchone()[0]
    assert rows == world["planted"]["counts"]["asic_companies"]["valid_rows"]


def test_selecting_one_table_runs_its_whole_source(world: dict) -> None:
    selected = _run(["run", "--as-of", AS_OF, "--select", "key:raw/abr__abns"], world["env"])
    assert selected.returncode == 0, selected.stdout + selected.stderr
    assert "2 assets" in selected.stdout  # raw/abr__abns and raw/abr__other_names load together
    nothing = _run(["run", "--select", "key:raw/no_such_table"], world["env"])
    assert nothing.returncode == 2 and "matches no asset" in nothing.stderr
