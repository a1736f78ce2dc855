"""The real commands, end to end: bvs sample -> bvs run (twice) -> bvs status; a bad file.

Runs the installed `bvs` console script in subprocesses with a private data folder and
Dagster home, as a data engineer would.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines import processes
from pipelines.identifiers import abn_with_check_digits
from pipelines.serving.verify import verify
from pipelines.settings import PROJECT_ROOT, Settings, get_settings
from pipelines.warehouse.lock import holder
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
    assert re.search(r"sources: \d+ of \d+ loaded", out), out
    assert re.search(r"marts: \d+ tables; entities [\d,]+", out), out
    assert len(out.splitlines()) <= 40, out  # every source and table: bvs status


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


def test_a_record_whose_listed_identifier_names_no_entity_is_matched_by_name_and_says_so(
    world: dict, snapshot_con: duckdb.DuckDBPyConnection
) -> None:
    """docs/decisions/19-a-records-own-identifier.md: the record is kept (not quarantined), matched by its register's
    name rule, and its match and the tile's evidence say "listed ABN/ACN ... not found"."""
    cases = [
        (c, m)
        for c in world["planted"]["cases"]
        if c["id"].startswith("identifier/")
        for m in c["matches"]
        if m["method"] == "name"
    ]
    assert len(cases) >= 6
    for case, match in cases:
        record = match["record"]
        where = " and ".join(f"{k} = ?" for k in record)
        [(note,)] = snapshot_con.execute(
            f"select identifier_note from marts.{match['table']} where abn = ? and {where}",
            [case["abn"], *record.values()],
        ).fetchall()
        assert re.fullmatch(r"listed (ABN|ACN) \d+ not found", note or ""), (case["id"], note)
        tile = verify(snapshot_con, case["abn"], as_of=dt.date.fromisoformat(AS_OF))["checks"][
            case["check"]
        ]
        assert note in json.dumps(tile["detail"]), (case["id"], tile["detail"])


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
    """One case per docs/rules.md rule row and 2.4 flag trigger (and its non-trigger neighbour),
    read through the verify response the API and `bvs verify` return."""
    response = verify(snapshot_con, planted_case["abn"], as_of=dt.date.fromisoformat(AS_OF))
    if planted_case.get("check"):
        tile = response["checks"][planted_case["check"]]
        assert tile["status"] == planted_case["status"], tile["reason"]
        assert planted_case.get("reason", "") in tile["reason"], tile["reason"]
    fired = set(response["risk"]["flags"])
    assert set(planted_case["flags"]) <= fired
    assert not set(planted_case["not_flags"]) & fired
    if "risk" in planted_case:
        assert response["risk"]["level"] in planted_case["risk"], response["risk"]
    if "identity_failures" in planted_case:
        assert response["risk"]["identity_failures"] == planted_case["identity_failures"]


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
    """docs/search.md on the sample: a trading name typed in full is the first result (exact,
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
    """docs/market.md on a year of generated daily files: the planted squeezers (short interest
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
    # by name: matched, not searched (docs/decisions/20-names-given-are-matched.md): the target's name written with
    # "and" for "&" and "Limited" for "Ltd" finds the same campaign; a part of it does not
    name = response["target_name"]
    spelled = name.replace("&", "and").replace(" LTD", " Limited").title()
    by_name = json.loads(_run(["viper", "--name", spelled], world["env"]).stdout)
    assert (by_name["ticker"], by_name["current_risk_score"]) == (live["ticker"], 100)
    assert by_name["name_match"]["similarity"] >= 0.65
    part = json.loads(_run(["viper", "--name", name.split()[0]], world["env"]).stdout)
    assert part["ticker"] != live["ticker"]
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


def _withdraw_last_gazette_notice(data: Path) -> None:
    (notices,) = (data / "landing" / "gazette").glob("*.csv")
    lines = notices.read_bytes().rstrip(b"\r\n").split(b"\n")
    notices.write_bytes(b"\n".join(lines[:-1]) + b"\n")


def _run_log(run: subprocess.CompletedProcess) -> str:
    """The whole output (Dagster, dbt) of a `bvs run`, from the log file it names."""
    (log,) = re.findall(r"the full output \(Dagster, dbt\) goes to (\S+)", run.stdout)
    return Path(log).read_text()


def _built_whole(data: Path, env: dict) -> Path:
    """A copy of ``data`` beside it whose `bvs run` builds everything
    (``BVS_DBT_SKIP_UNCHANGED=false``): the data folder it left."""
    full = data.with_name("full")
    shutil.copytree(data, full, symlinks=True)
    full_env = {
        **env,
        "BVS_DBT_SKIP_UNCHANGED": "false",
        "BVS_DATA_DIR": str(full),
        "BVS_WAREHOUSE": str(full / "warehouse.duckdb"),
    }
    again = _run(["run", "--as-of", AS_OF], full_env)
    assert again.returncode == 0, again.stdout + again.stderr
    return full


def _built_at(data: Path) -> dict[str, object]:
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        return dict(con.execute("select unique_id, built_at from meta.dbt_versions").fetchall())


def _differences(a: Path, b: Path) -> list[str]:
    """The warehouse tables (dbt's schemas) whose rows differ between two warehouses."""
    con = duckdb.connect()
    con.execute(f"attach '{a}' as a (read_only); attach '{b}' as b (read_only)")
    tables = con.execute(
        "select table_schema, table_name from information_schema.tables where table_catalog ="
        " 'a' and table_type = 'BASE TABLE' and table_schema in"
        " ('staging', 'intermediate', 'marts', 'snapshots', 'seeds')"
    ).fetchall()
    assert len(tables) >= 40
    return [
        f"{schema}.{name}"
        for schema, name in tables
        if con.execute(
            f"select count(*) from ((from a.{schema}.{name} except all from b.{schema}.{name})"
            f" union all (from b.{schema}.{name} except all from a.{schema}.{name}))"
        ).fetchone()[0]
    ]


def test_a_week_with_one_new_register_file_rebuilds_only_what_it_feeds(
    world: dict, tmp_path: Path
) -> None:
    """Issue 23: a weekly run whose only new file is one register's (the gazette's) rebuilds
    that register's descendants, and what reads a table that is not a load; every other
    model, seed, snapshot and test stands (pipelines/dbt_versions.py). Its warehouse is the
    one a build of everything gives."""
    data, env = _copy(world, tmp_path / "weekly")
    before = _built_at(data)
    assert len(before) > 150  # models, seeds, snapshots and tests of the first run
    _withdraw_last_gazette_notice(data)
    current = (data / "serving" / "CURRENT").read_text()
    run = _run(["run", "--as-of", AS_OF], env)
    assert run.returncode == 0, run.stdout + run.stderr
    # what was left out counts as current: the publish goes on
    assert "serving snapshot (published)" in run.stdout
    assert (data / "serving" / "CURRENT").read_text() != current
    # the outputs of the models left out carry their versions without a warning each
    assert "BetaWarning" not in _run_log(run)
    after = _built_at(data)
    rebuilt = {uid.split(".")[2] for uid in after if after[uid] != before.get(uid)}
    assert {"stg_gazette__notices", "int_match_records__gazette", "match_gazette"} <= rebuilt
    assert "unique_combination_match_gazette_notice_id__abn" in rebuilt  # its tests too
    # neither the ABR's nor the other registers' models, nor the name index, nor search
    assert not rebuilt & {
        "stg_abr__abns", "entities", "entity_names", "int_matching__entity_names_keyed",
        "search_names", "search_words", "stg_adverse__records", "directors__officeholders",
    }, rebuilt  # fmt: skip

    # a build of everything from the same data folder: the same tables, row for row
    full = _built_whole(data, env)
    rebuilt_all = _built_at(full)
    assert all(rebuilt_all[uid] != after[uid] for uid in after)  # everything built again
    assert _differences(data / "warehouse.duckdb", full / "warehouse.duckdb") == []


def test_a_build_that_fails_part_way_resumes_after_what_it_finished(
    world: dict, tmp_path: Path
) -> None:
    """A weekly build stopped by one model's error (here a column of a table it reads, one
    this week does not rebuild, renamed under it) records what it built and checked
    (dbt_versions.finished_part); once the cause is gone, the next run builds the rest and
    not that part again, and its warehouse is the one a build of everything gives."""
    data, env = _copy(world, tmp_path / "resumed")
    _withdraw_last_gazette_notice(data)
    industry = "intermediate.int_check_evidence__industry"  # int_check_outcomes reads it
    with duckdb.connect(str(data / "warehouse.duckdb")) as con:
        con.execute(f"alter table {industry} rename column trade to in_the_way")
    before = _built_at(data)
    current = (data / "serving" / "CURRENT").read_text()

    failed = _run(["run", "--as-of", AS_OF], env)
    assert failed.returncode != 0, failed.stdout + failed.stderr
    assert (data / "serving" / "CURRENT").read_text() == current  # nothing published
    assert re.search(
        r"dbt build failed: \d+ of its \d+ nodes were built and checked", _run_log(failed)
    )
    stopped = _built_at(data)
    finished = {uid.split(".")[2] for uid in stopped if stopped[uid] != before.get(uid)}
    # the gazette's match table, its evidence and their tests were built and checked
    gazette = {"match_gazette", "int_check_evidence__gazette"}
    assert gazette | {"unique_combination_match_gazette_notice_id__abn"} <= finished
    # the model that failed, and what reads it, were not
    assert not finished & {"int_check_outcomes", "verifications"}

    with duckdb.connect(str(data / "warehouse.duckdb")) as con:
        con.execute(f"alter table {industry} rename column in_the_way to trade")
    resumed = _run(["run", "--as-of", AS_OF], env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "serving snapshot (published)" in resumed.stdout
    # dbt's own lines: the models this build ran (a model read with the as-of date has no
    # version to record, so meta.dbt_versions cannot say)
    rebuilt = set(re.findall(r" START sql \S+ model \w+\.(\w+) ", _run_log(resumed)))
    assert {"int_check_outcomes", "verifications"} <= rebuilt
    assert not rebuilt & finished, rebuilt & finished  # what the failed build finished stands

    full = _built_whole(data, env)
    assert _differences(data / "warehouse.duckdb", full / "warehouse.duckdb") == []


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


def _copy(world: dict, tmp_path: Path, **env: str) -> tuple[Path, dict[str, str]]:
    """A copy of the world's data folder to run on, with its own environment."""
    data = tmp_path / "data"
    shutil.copytree(world["data"], data, symlinks=True)
    return data, {
        **world["env"],
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        **env,
    }


def test_a_bad_company_file_holds_back_only_its_source_and_new_prices_publish(
    world: dict, tmp_path: Path
) -> None:
    """Issue 20: a bad newest company file (one extra header column) while the prices move on
    a day: the snapshot publishes with the new prices, the company source keeps its last good
    data and is reported failed where users look, naming the file and the first cause."""
    data, env = _copy(world, tmp_path)
    before = (data / "serving" / "CURRENT").read_text()
    companies = data / "landing" / "asic_companies"
    (good,) = companies.glob("company_*.csv")
    head, newline, rest = good.read_bytes().partition(b"\n")
    cr = b"\r" if head.endswith(b"\r") else b""
    bad = companies / "company_209912.csv"  # the newest: the one a load reads
    bad.write_bytes(head.removesuffix(b"\r") + b"\tExtra Column" + cr + newline + rest)
    asx = data / "landing" / "prices" / "asx"
    last = max(asx.glob("*.txt"))
    day = (dt.date.fromisoformat(f"{last.stem[:4]}-{last.stem[4:6]}-{last.stem[6:]}")
           + dt.timedelta(days=1))  # fmt: skip
    new_day = day.strftime("%Y%m%d")
    (asx / f"{new_day}.txt").write_text(last.read_text().replace(f",{last.stem},", f",{new_day},"))
    run = _run(["run", "--as-of", AS_OF], env)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    failed = [line for line in run.stderr.splitlines() if line.startswith("  asic_companies: ")]
    assert failed and failed[0].startswith(f"  asic_companies: {bad.name}: "), run.stderr
    assert "the first at line 2: expected" in failed[0]
    # published, with the new day's prices and the companies as they were
    current = (data / "serving" / "CURRENT").read_text()
    assert current != before and "serving snapshot (published)" in run.stdout
    snapshot = current_snapshot(get_settings(data_dir=data))
    assert snapshot is not None
    with duckdb.connect(str(snapshot.path), read_only=True) as con:
        files = {r[0] for r in con.execute(
            "select file_name from meta.sources where source = 'prices_asx'").fetchall()}  # fmt: skip
        assert f"{new_day}.txt" in files
        ((source, message),) = con.execute(
            "select source, message from meta.source_failures"
        ).fetchall()
        assert source == "asic_companies" and bad.name in message
    with duckdb.connect(str(data / "warehouse.duckdb"), read_only=True) as con:
        rows = con.execute("select count(*) from raw.asic__companies").fetchone()[0]
        kept = con.execute(
            "select count(*) from meta.quarantine where file_name = ?", [bad.name]
        ).fetchone()[0]
    assert rows == world["planted"]["counts"]["asic_companies"]["valid_rows"]
    assert kept > 0  # the failed load's diagnosis stays
    status = _run(["status"], env).stdout
    assert "failed (previous data kept)" in status and bad.name in status
    # the tiles the company data feeds list it as stale; /health names it failed
    abn = next(c["abn"] for c in world["planted"]["cases"] if c.get("check") == "company_status")
    tile = json.loads(_run(["verify", abn], env).stdout)["checks"]["company_status"]
    assert [s["stale"] for s in tile["sources"] if s["source"] == "asic_companies"] == [True]
    from fastapi.testclient import TestClient

    from pipelines.api.app import create_app

    with TestClient(create_app(get_settings(data_dir=data))) as client:
        health = client.get("/health").json()
    assert [f["source"] for f in health["failed_sources"]] == ["asic_companies"]
    assert bad.name in health["failed_sources"][0]["message"]


def _children(pid: int) -> list[int]:
    """The run's dbt processes (bvs-dbt, exec'd into dbt)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                command = processes.command_line(int(child)) or ""
                if "dbt" in command.split(" ", 1)[0] or " build" in command:
                    found.append(int(child))
    return found


def _kill_at(
    run: subprocess.Popen[str], settings: Settings, step: str, *, child: bool
) -> list[int]:
    """kill -9 the run once it holds the writer lock at ``step`` (and, with ``child``, has
    started a child process: dbt); returns the run's children at the kill."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        record = holder(settings)
        mine = record and record.get("pid") == run.pid and record.get("step") == step
        if mine and (not child or _children(run.pid)):
            break
        assert run.poll() is None, run.communicate()
        time.sleep(0.02)
    else:
        pytest.fail(f"the run never reached {step}")
    children = _children(run.pid)
    os.kill(run.pid, signal.SIGKILL)
    run.communicate()
    return children


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [BVS, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _contents(database: Path, schemas: tuple[str, ...]) -> dict[str, list[tuple]]:
    with duckdb.connect(str(database), read_only=True) as con:
        tables = con.execute(
            "select table_schema || '.' || table_name from information_schema.tables"
            f" where table_schema in ({', '.join('?' for _ in schemas)}) order by 1",
            list(schemas),
        ).fetchall()
        return {
            name: sorted(con.execute(f"select * from {name}").fetchall(), key=repr)
            for (name,) in tables
        }


def test_a_run_killed_at_each_stage_blocks_nothing_and_one_writer_holds(
    world: dict, tmp_path: Path
) -> None:
    """Issue 20: kill -9 a run at ingest, at dbt (with dbt running) and at publish; each next
    run goes on by itself, the killed run's dbt dies with it, and the last run ends as the
    uninterrupted world did. Meanwhile a run of another Dagster home waits, naming the
    holder, and Ctrl-C stops it. The prices of the ASX are loaded again from scratch (their load forgotten), so
    the killed ingest is a real load."""
    data, env = _copy(world, tmp_path, DAGSTER_HOME=str(tmp_path / "home"))
    settings = get_settings(data_dir=data)
    with duckdb.connect(str(data / "warehouse.duckdb")) as con:
        con.execute("delete from meta.loads where source = 'prices_asx'")
    run = ["run", "--as-of", AS_OF, "--select", "key:raw/prices__asx+"]

    _kill_at(_start(run, env), settings, "ingest_prices_asx", child=False)

    dbt = _start(run, env)
    deadline = time.monotonic() + 600
    # the lock taken and a step under way: between the run's start and its first step the
    # holder has no step to name
    while not ((record := holder(settings) or {}).get("pid") == dbt.pid and record.get("step")):
        assert time.monotonic() < deadline and dbt.poll() is None, dbt.communicate()
        time.sleep(0.02)
    # meanwhile a run of another Dagster home waits for the writer lock, naming the holder,
    # and Ctrl-C stops its wait
    other = _start(run, {**env, "DAGSTER_HOME": str(tmp_path / "other_home"),
                         "BVS_WRITER_WAIT_SECONDS": "900"})  # fmt: skip
    assert other.stderr is not None
    waiting = other.stderr.readline()
    assert waiting.startswith("bvs run: waiting up to 900 s for the warehouse writer lock, held by"
                              f" PID {dbt.pid} (bvs run --as-of {AS_OF}"), waiting  # fmt: skip
    # at a step, or between two steps naming the last one
    assert re.search(r", (now at|between steps, after) \w", waiting), waiting
    assert str(tmp_path / "home") in waiting
    other.send_signal(signal.SIGINT)
    _, rest = other.communicate(timeout=60)
    assert other.returncode == 130 and "interrupted" in rest
    children = _kill_at(dbt, settings, "dbt_models", child=True)
    deadline = time.monotonic() + 30
    while any(processes.alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children and not any(processes.alive(c) for c in children)  # dbt died with its run

    _kill_at(_start(run, env), settings, "serving__snapshot", child=False)

    last = _run(run, env)
    assert last.returncode == 0, last.stdout + last.stderr
    assert "marked failed" in last.stderr  # the killed publish's slot, freed
    assert "serving snapshot (published)" in last.stdout
    assert _contents(data / "warehouse.duckdb", ("raw", "marts")) == _contents(
        world["data"] / "warehouse.duckdb", ("raw", "marts")
    )
    assert _contents(_snapshot(data), ("marts",)) == _contents(_snapshot(world["data"]), ("marts",))


def test_selecting_one_table_runs_its_whole_source(world: dict) -> None:
    selected = _run(["run", "--as-of", AS_OF, "--select", "key:raw/abr__abns"], world["env"])
    assert selected.returncode == 0, selected.stdout + selected.stderr
    assert "2 assets" in selected.stdout  # raw/abr__abns and raw/abr__other_names load together
    nothing = _run(["run", "--select", "key:raw/no_such_table"], world["env"])
    assert nothing.returncode == 2 and "matches no asset" in nothing.stderr


def test_check_outcomes_built_in_slices_are_the_outcomes_built_whole(
    world: dict, tmp_path: Path
) -> None:
    """`int_check_outcomes` is built in slices of the ABNs when the entities pass
    `rows_per_slice` (macros/materializations/sliced_table.sql): three slices of the sample
    give the table the pipeline built in one, every column of every ABN."""
    warehouse = tmp_path / "warehouse.duckdb"
    shutil.copyfile(world["data"] / "warehouse.duckdb", warehouse)
    columns = "select * exclude (abn), abn from intermediate.int_check_outcomes order by abn"
    with duckdb.connect(str(warehouse), read_only=True) as con:
        whole = con.execute(columns).fetchall()
        (abns,) = con.execute("select count(*) from marts.entities").fetchone()
    assert len(whole) == abns > 1000
    rebuilt = subprocess.run(
        [
            str(Path(sys.executable).with_name("dbt")),
            "run",
            "--full-refresh",  # else only the ABNs whose inputs changed: none
            "--select",
            "int_check_outcomes",
            "--vars",
            json.dumps({"rows_per_slice": abns // 3 + 1}),
            "--target-path",
            str(tmp_path / "target"),
            "--log-path",
            str(tmp_path / "logs"),
        ],
        cwd=PROJECT_ROOT / "dbt_project",
        env={**world["env"], "BVS_WAREHOUSE": str(warehouse), "BVS_AS_OF": AS_OF},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert f"int_check_outcomes: {abns} rows of entities, 3 slices" in rebuilt.stdout
    statements = (tmp_path / "logs" / "dbt.log").read_text()
    assert all(f"(hash(abn) % 3 = {k})" in statements for k in range(3))
    with duckdb.connect(str(warehouse), read_only=True) as con:
        sliced = con.execute(columns).fetchall()
    assert sliced == whole
