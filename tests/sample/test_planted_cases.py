"""Every other register: written in its LANDING.md format, read by the real ingest code with
nothing quarantined but the planted rows, sized by the scale, and the planted cases refer to
records that exist, with name pairs on the right side of their thresholds."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bvs_sample import write_sample
from bvs_sample.cases.builder import THRESHOLDS, name_similarity, passes
from pipelines.identifiers import abn_is_valid, acn_is_valid
from pipelines.ingest.files import discover
from pipelines.ingest.sources import SOURCES
from pipelines.matching import person_names_match

SCALE = 3_000
CORE = ("abr", "asic_companies", "asic_business_names")


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cases")
    write_sample(root, scale=SCALE, seed=5, workers=2)
    return root


@pytest.fixture(scope="module")
def doc(landing: Path) -> dict:
    return json.loads((landing / "_sample" / "planted.json").read_text())


@pytest.fixture(scope="module")
def loaded(landing: Path) -> tuple[dict[str, list[dict]], set[tuple[str, str, int]]]:
    """Rows of every non-ABR source as the parsers load them, and the quarantined lines."""
    rows: dict[str, list[dict]] = {}
    quarantined: set[tuple[str, str, int]] = set()
    for name, source in SOURCES.items():
        if name == "abr":
            continue
        files = discover(landing / source.folder, source.patterns, source.snapshot_key)
        assert files, name
        for _, batch in source.parse(files, None, None):
            for table in batch.tables.values():
                rows.setdefault(name, []).extend(table.to_pylist())
            quarantined |= {(name, q.file, q.line) for q in batch.quarantine}
    return rows, quarantined


def test_every_source_loads_with_only_the_planted_rows_quarantined(loaded, doc) -> None:
    rows, quarantined = loaded
    planted = {(p["source"], p["file"], p["line"]) for p in doc["planted"] if p["source"] != "abr"}
    assert quarantined == planted
    sources = {p["source"] for p in doc["planted"]}
    assert set(SOURCES) <= sources, "malformed rows planted in every source"
    for name in SOURCES:
        if name != "abr":
            assert rows.get(name), f"{name}: no rows"


def test_sizes_follow_the_scale(doc) -> None:
    counts = doc["counts"]
    companies = counts["asic_companies"]["companies"]
    officeholders = counts["directors"]["valid_rows"]
    assert officeholders > companies
    records = counts["abr"]["records"]
    assert 0.6 < counts["industry"]["valid_rows"] / records < 0.85, "industry codes for most ABNs"
    # registers with a real size get at least scale/20M of it (or the minimum)
    assert counts["asic_financial_advisers"]["rows"] >= 6
    assert counts["acnc_charities"]["rows"] >= 10
    assert counts["asic_liquidators"]["rows"] >= 5


def test_scaled_sizes_at_a_larger_scale(tmp_path: Path) -> None:
    summary = write_sample(tmp_path, scale=100_000, seed=3, workers=2)
    c = summary.per_source
    officeholders = c["directors"]["valid_rows"] / c["asic_companies"]["companies"]
    assert 1.3 < officeholders < 1.6, "about 5M officeholder rows per 3.5M companies"
    ratio = 100_000 / 20_000_000
    assert 196_000 * ratio * 0.6 < c["licences"]["rows.QBCC"] < 196_000 * ratio * 1.5
    assert 65_000 * ratio * 0.6 < c["acnc_charities"]["rows"] < 65_000 * ratio * 1.5
    assert 88_583 * ratio * 0.6 < c["asic_financial_advisers"]["rows"] < 88_583 * ratio * 1.5
    lines = (tmp_path / "asic_companies" / "company_202611.csv").read_text("utf-8-sig").splitlines()
    insolvent = sum(1 for line in lines if line.split("\t")[5:6] in (["EXAD"], ["DISS"]))
    assert 30_800 * ratio * 0.6 < insolvent < 30_800 * ratio * 1.5


def _index(rows: dict[str, list[dict]]) -> dict[str, set[tuple]]:
    """Keys of the loaded rows per match table, as planted.json spells the records."""

    def clean(v: object) -> str:
        return " ".join(str(v).replace("\u00a0", " ").split()) if v is not None else ""

    return {
        "match_insolvency": {
            (r["acn"],) for r in rows["asic_companies"] if r["status"] in ("EXAD", "DISS")
        },
        "match_adverse": {(r["regulator"], r["record_id"]) for r in rows["adverse"]},
        "match_gazette": {(r["notice_id"],) for r in rows["gazette"]},
        "match_licences": {(r["register"], r["licence_number"]) for r in rows["licences"]},
        "match_business_names": {
            (r["bn_name"], r["bn_state_num"]) for r in rows["asic_business_names"]
        },
        "match_financial_advisers": {(r["adv_number"],) for r in rows["asic_financial_advisers"]},
        "match_banned_persons": {
            (r["bd_per_name"], str(r["bd_per_start_dt"])) for r in rows["asic_banned_persons"]
        },
        "match_banned_organisations": {
            (clean(r["bd_org_name"]),) for r in rows["asic_banned_organisations"]
        },
        "match_afs_licensees": {(r["afs_lic_num"],) for r in rows["asic_afs_licensees"]},
        "match_credit_licensees": {(r["cred_lic_num"],) for r in rows["asic_credit_licensees"]},
        "match_liquidators": {(r["liq_num"],) for r in rows["asic_liquidators"]},
        "match_charities": {(r["charity_legal_name"],) for r in rows["acnc_charities"]},
        "match_registers": {(r["register"], r["record_id"]) for r in rows["registers"]},
        "match_ppsr": {(r["registration_number"],) for r in rows["ppsr"]},
        "match_asx_listed": {(r["asx_code"],) for r in rows["asx_listed"]},
        "phoenix_links": {(r["acn"],) for r in rows["asic_companies"] if r["status"] == "DRGD"},
    }


def test_every_case_refers_to_records_that_exist(loaded, doc) -> None:
    rows, _ = loaded
    index = _index(rows)
    ids = Counter(c["id"] for c in doc["cases"])
    assert max(ids.values()) == 1, "case ids are unique"
    checks = {c.get("check") for c in doc["cases"]}
    assert {
        "abn_status", "gst", "company_status", "business_names", "insolvency", "gazette",
        "conduct", "competition_enforcement", "workplace_compliance", "disability_register",
        "licence", "phoenix", "financial_advisers", "banned_disqualified",
        "financial_services_licence", "charities", "tax_practitioners", "prudential",
        "super_fund", "tax_debt", "rd_incentive", "modern_slavery", "workforce_gender",
        "government_contracts", "bcorp",
    } <= checks  # fmt: skip
    flags = {f for c in doc["cases"] for f in c["flags"]}
    assert flags == {
        "PHOENIX_PATTERN", "ADVERSE_ACTIVE", "FINANCIAL_ADVISER_BANNED", "LIQUIDATOR_LINKED",
        "LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE", "ADVERSE_PATTERN", "COMPLIANCE_DUAL_FAILURE",
    }  # fmt: skip
    for case in doc["cases"]:
        assert abn_is_valid(case["abn"]), case["id"]
        if "acn" in case:
            assert acn_is_valid(case["acn"])
        for m in case["matches"] + case["non_matches"]:
            key = tuple(v if v is not None else None for v in m["record"].values())
            key = (
                tuple(("" if v is None else v) for v in key)
                if m["table"] != "match_business_names"
                else (m["record"]["business_name"], m["record"]["state_number"])
            )
            assert key in index[m["table"]], (case["id"], m)


def test_name_pairs_sit_on_the_right_side_of_their_thresholds(doc) -> None:
    named = 0
    for case in doc["cases"]:
        for m in case["matches"] + case["non_matches"]:
            if "name" not in m:
                continue
            named += 1
            score = name_similarity(m["name"], case["entity_name"])
            op = next(
                inc
                for key, (thr, inc) in THRESHOLDS.items()
                if thr == m["threshold"] and key.startswith(m["table"])
            )
            assert passes(score, m["threshold"], op) == (m in case["matches"]), (case["id"], score)
            if m in case["non_matches"]:
                assert score > m["threshold"] - 0.1, "decoys sit just below the threshold"
    assert named >= 15


def test_person_cases_match_by_the_person_rule(doc) -> None:
    cases = {c["id"]: c for c in doc["cases"]}
    assert cases["liquidator_linked/director-is-registered-liquidator"]["flags"] == [
        "LIQUIDATOR_LINKED"
    ]
    assert person_names_match("SMITH, JOHN JAMES", "John Smith")
