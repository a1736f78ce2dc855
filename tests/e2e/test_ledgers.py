"""Supplier ledgers end to end on the sample: `bvs ledger run` on the two sample customers'
ledgers, every planted rule row and intake fault as the customer sees it (`bvs ledger
show`), the CONTRACT shapes, a second run of the same night, and the supplier that changes
between two as-of dates (`bvs ledger changes`)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import AS_OF, planted
from tests.e2e.ledger_helpers import bvs, changes, copy_world, ledger_run, show, warm_dbt

pytestmark = pytest.mark.slow


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "ledger_case" in metafunc.fixturenames:
        cases = planted(metafunc.config)["ledgers"]["cases"]
        metafunc.parametrize("ledger_case", cases, ids=[f"{c['id']} | {c['spec']}" for c in cases])


@pytest.fixture(scope="module")
def ledgers(pipeline_world: dict, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The two sample ledgers run once as of the sample's as-of date."""
    world = copy_world(pipeline_world, tmp_path_factory.mktemp("ledgers"))
    with warm_dbt(world["root"], world["env"]) as env:
        world["env"] = env
        world["first"] = ledger_run(env, AS_OF)
        world["shown"] = {
            (f["customer"], f["ledger"]): show(env, f["customer"])
            for f in world["planted"]["ledgers"]["files"]
        }
        yield world


def _supplier(ledgers: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    suppliers = ledgers["shown"][(case["customer"], case["ledger"])]["suppliers"]
    found = [s for s in suppliers if s["line"] == case["line"]]
    assert len(found) == 1, case
    return found[0]


def test_a_run_prints_one_summary_per_ledger(ledgers: dict[str, Any]) -> None:
    files = {
        (f["customer"], f["ledger"]): f["rows"] for f in ledgers["planted"]["ledgers"]["files"]
    }
    assert {(s["customer"], s["ledger"]): s["suppliers"] for s in ledgers["first"]} == files
    for summary in ledgers["first"]:
        assert {
            "customer",
            "ledger",
            "run_date",
            "suppliers",
            "by_risk_level",
            "changes",
            "alerts",
        } <= set(summary)
        assert summary["run_date"] == AS_OF and summary["recorded"] is True
        assert summary["changes"] == 0 and summary["alerts"] == 0  # a first run: nothing to compare
        assert (
            sum(summary["by_risk_level"].values()) + summary["by_resolution"]["needs_review"]
            >= summary["suppliers"] - summary["by_resolution"]["needs_review"]
        )


def test_planted_ledger_case(ledgers: dict[str, Any], ledger_case: dict[str, Any]) -> None:
    supplier = _supplier(ledgers, ledger_case)
    if ledger_case["check"]:
        tile = supplier["checks"][ledger_case["check"]]
        assert tile["status"] == ledger_case["status"], tile
        assert ledger_case["spec"].startswith(tile["reason"]), tile["reason"]  # the rule row
        if "similarity" in ledger_case:
            assert tile["detail"]["name_similarity"] == pytest.approx(
                ledger_case["similarity"], abs=1e-4
            )
        return
    assert supplier["resolution"] == ledger_case["resolution"], supplier["review_reason"]
    assert ledger_case["reason"] in (supplier["review_reason"] or "")
    if "abn" in ledger_case:
        assert supplier["abn"] == ledger_case["abn"]
    if "candidate" in ledger_case:
        assert ledger_case["candidate"] in [c["abn"] for c in supplier["candidates"]]
    if "candidates" in ledger_case:
        assert sorted(c["abn"] for c in supplier["candidates"]) == sorted(ledger_case["candidates"])


def test_show_prints_the_contract_shape(ledgers: dict[str, Any]) -> None:
    shown = ledgers["shown"][("harbour-health", "suppliers")]
    assert {"customer", "ledger", "run_date", "suppliers"} <= set(shown)
    assert (shown["customer"], shown["ledger"], shown["run_date"]) == (
        "harbour-health",
        "suppliers",
        AS_OF,
    )
    verified = [s for s in shown["suppliers"] if s["abn"]]
    for supplier in verified:
        assert {
            "supplier_ref",
            "abn",
            "supplier_name",
            "resolution",
            "assurance_score",
            "risk",
            "checks",
        } <= set(supplier)
        assert {"level", "flags"} <= set(supplier["risk"])
        assert len(supplier["checks"]) == 36
        for tile in supplier["checks"].values():
            assert {"status", "detail", "sources", "weight"} <= set(tile)
    # a supplier's register tiles are the verify response's, the ledger rows on top
    one = next(s for s in verified if s["resolution"] == "verified")
    verify = json.loads(bvs(["verify", one["abn"]], ledgers["env"]).stdout)
    for check_id in ("conduct", "licence", "phoenix", "company_status", "insolvency"):
        assert one["checks"][check_id]["status"] == verify["checks"][check_id]["status"]
    assert verify["checks"]["address"]["status"] == "N/A"  # by ABN alone it is not run
    unresolved = [s for s in shown["suppliers"] if s["abn"] is None]
    assert unresolved and all(
        s["checks"] == {} and s["resolution"] == "needs_review" for s in unresolved
    )


def test_show_needs_a_ledger_name_when_there_are_several_and_errors_are_one_json_line(
    ledgers: dict[str, Any],
) -> None:
    missing = bvs(
        ["ledger", "show", "--customer", "harbour-health", "--ledger", "nope"], ledgers["env"]
    )
    assert missing.returncode == 2 and missing.stdout == ""
    assert json.loads(missing.stderr) == {"message": "customer harbour-health has no ledger 'nope'"}
    never = bvs(
        ["ledger", "show", "--customer", "harbour-health", "--run", "2020-01-01"], ledgers["env"]
    )
    assert never.returncode == 2 and "has no run on 2020-01-01" in never.stderr


def test_running_the_same_night_twice_changes_nothing(ledgers: dict[str, Any]) -> None:
    runs = ledgers["data"] / "ledgers"
    before = {p: p.stat().st_mtime_ns for p in runs.rglob("runs/*/*")}
    again = ledger_run(ledgers["env"], AS_OF)
    assert [s["recorded"] for s in again] == [False, False]
    assert [s["run_id"] for s in again] == [s["run_id"] for s in ledgers["first"]]
    after = {p: p.stat().st_mtime_ns for p in runs.rglob("runs/*/*")}
    assert after == before


def test_the_supplier_that_ages_changes_between_two_as_of_dates(ledgers: dict[str, Any]) -> None:
    case = next(
        c
        for c in ledgers["planted"]["ledgers"]["cases"]
        if c["id"] == "ledger/changes/ages-into-pass"
    )
    later = (dt.date.fromisoformat(AS_OF) + dt.timedelta(days=case["later"]["days"])).isoformat()
    summaries = ledger_run(ledgers["env"], later, "--customer", case["customer"])
    assert [(s["run_date"], s["recorded"]) for s in summaries] == [(later, True)]
    lines = changes(ledgers["env"], case["customer"], "--since", later)
    for line in lines:
        assert set(line) >= {
            "run_date",
            "ledger",
            "supplier_ref",
            "abn",
            "kind",
            "subject",
            "before",
            "after",
            "alert",
        }
    mine = {
        (c["kind"], c["subject"]): c for c in lines if c["supplier_ref"] == case["supplier_ref"]
    }
    for check_id, status in case["later"]["statuses"].items():
        change = mine[("tile", check_id)]
        assert (change["before"], change["after"], change["alert"]) == ("WARN", status, False)
    assert summaries[0]["changes"] == len(lines)
    shown = show(ledgers["env"], case["customer"], "--run", later)
    assert shown["run_date"] == later
    earlier = show(ledgers["env"], case["customer"], "--run", AS_OF)
    supplier = next(s for s in earlier["suppliers"] if s["supplier_ref"] == case["supplier_ref"])
    assert supplier["checks"]["abn_status"]["status"] == "WARN"


def test_import_lands_a_new_file_and_keeps_the_old(ledgers: dict[str, Any], tmp_path: Path) -> None:
    env = ledgers["env"]
    landed = ledgers["data"] / "landing" / "ledgers" / "coastal-council" / "vendors.xlsx"
    original = landed.read_bytes()
    bad = tmp_path / "vendors.csv"
    bad.write_text("name,amount\nAcme,1\n")
    refused = bvs(["ledger", "import", str(bad), "--customer", "coastal-council"], env)
    assert refused.returncode == 2 and str(bad) in json.loads(refused.stderr)["message"]
    assert landed.read_bytes() == original and not (landed.parent / "vendors.csv").exists()

    good = tmp_path / "vendors.csv"
    good.write_text(
        "ABN,Supplier Name,State\n"
        + "\n".join(
            f"{s['abn']},{s['supplier_name']},{s['ledger_row']['state'] or ''}"
            for s in ledgers["shown"][("coastal-council", "vendors")]["suppliers"][:5]
        )
        + "\n,Nobody In Particular Widgets,QLD\n"
    )
    result = bvs(["ledger", "import", str(good), "--customer", "coastal-council"], env)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["customer"], summary["ledger"], summary["rows"]) == (
        "coastal-council",
        "vendors",
        6,
    )
    assert summary["verified"] == 5 and summary["resolved_by_name"] == 0
    assert [r["line"] for r in summary["needs_review"]] == [7]
    assert (landed.parent / "vendors.csv").read_bytes() == good.read_bytes()
    assert not landed.exists()  # the same ledger sent as .csv replaces the .xlsx ...
    kept = list((landed.parent / "replaced").iterdir())
    assert [p.read_bytes() for p in kept] == [original]  # ... which is kept
