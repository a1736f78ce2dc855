"""Supplier ledgers end to end on the sample: `bvs ledger run` on the two sample customers'
ledgers, every planted rule row and intake fault as the customer sees it (`bvs ledger
show`), the CONTRACT shapes, a second run of the same night, and the supplier that changes
between two as-of dates (`bvs ledger changes`)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
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


def test_a_run_summary_accounts_for_every_supplier_and_every_row(ledgers: dict[str, Any]) -> None:
    """by_risk_level adds up to the suppliers (those with no ABN to verify are "unverified"
    and listed by line), and the rows intake ignored are listed with their line."""
    for summary in ledgers["first"]:
        key = (summary["customer"], summary["ledger"])
        assert sum(summary["by_risk_level"].values()) == summary["suppliers"]
        assert sum(summary["by_resolution"].values()) == summary["suppliers"]
        suppliers = ledgers["shown"][key]["suppliers"]
        no_abn = [s["line"] for s in suppliers if s["abn"] is None]
        assert no_abn and [u["line"] for u in summary["unverified"]] == no_abn
        assert summary["by_risk_level"]["unverified"] == len(no_abn)
        assert all(u["reason"] for u in summary["unverified"])
        planted = [
            i
            for i in ledgers["planted"]["ledgers"]["ignored"]
            if (i["customer"], i["ledger"]) == key
        ]
        assert [i["line"] for i in summary["ignored"]] == [i["line"] for i in planted]
        for got, want in zip(summary["ignored"], planted, strict=True):
            assert got["reason"].startswith(want["reason"]) and got["held"], got


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
            for s in [
                s for s in ledgers["shown"][("coastal-council", "vendors")]["suppliers"] if s["abn"]
            ][:5]
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
    assert summary["columns"] == {
        "used": {"abn": "ABN", "supplier_name": "Supplier Name", "state": "State"},
        "ignored": [],
    }
    assert summary["ignored"] == []
    assert (landed.parent / "vendors.csv").read_bytes() == good.read_bytes()
    assert not landed.exists()  # the same ledger sent as .csv replaces the .xlsx ...
    kept = list((landed.parent / "replaced").iterdir())
    assert [p.read_bytes() for p in kept] == [original]  # ... which is kept


# ------------------------------------------------------------- overrides, audit, reports, API
# (issue: overrides with an audit trail, monthly reports, the per-customer API). These run
# after the ledgers' later night above, on the same copy of the world.


def _later(ledgers: dict[str, Any]) -> str:
    case = next(
        c
        for c in ledgers["planted"]["ledgers"]["cases"]
        if c["id"] == "ledger/changes/ages-into-pass"
    )
    return (dt.date.fromisoformat(AS_OF) + dt.timedelta(days=case["later"]["days"])).isoformat()


def _case(ledgers: dict[str, Any], case_id: str) -> dict[str, Any]:
    return next(c for c in ledgers["planted"]["ledgers"]["cases"] if c["id"] == case_id)


def _run_of_later_night(ledgers: dict[str, Any]) -> dict[str, Any]:
    summaries = ledger_run(ledgers["env"], _later(ledgers), "--customer", "harbour-health")
    assert [s["recorded"] for s in summaries] == [True]
    return summaries[0]


def test_an_override_is_used_from_the_next_run_badged_and_reverted(ledgers: dict[str, Any]) -> None:
    env = ledgers["env"]
    case = _case(ledgers, "ledger/address/other-state")  # the row says NSW, the register QLD 4217
    base = [
        "--customer",
        "harbour-health",
        "--ledger",
        "suppliers",
        "--supplier",
        case["supplier_ref"],
    ]

    def supplier() -> dict[str, Any]:
        shown = show(env, "harbour-health")
        return next(s for s in shown["suppliers"] if s["supplier_ref"] == case["supplier_ref"])

    assert supplier()["checks"]["address"]["status"] == "FAIL"
    done = bvs(["ledger", "override", *base, "--field", "address", "--value", "12 Main St, Southport QLD 4217",
                "--reason", "confirmed with the supplier", "--by", "alice"], env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)
    assert (entry["old"], entry["new"], entry["by"], entry["field"]) == (
        "NSW 2000",
        "QLD 4217",
        "alice",
        "address",
    )
    assert supplier()["checks"]["address"]["status"] == "FAIL"  # from the next run on

    run = _run_of_later_night(ledgers)
    overridden = supplier()
    tile = overridden["checks"]["address"]
    assert tile["status"] == "PASS" and tile["detail"]["user_supplied"] is True
    assert (tile["detail"]["ledger_state"], tile["detail"]["ledger_postcode"]) == ("QLD", "4217")
    assert overridden["user_supplied"] == ["address"]
    mine = [
        c
        for c in changes(env, "harbour-health", "--since", _later(ledgers))
        if c["run_id"] == run["run_id"]
    ]
    assert [
        (c["supplier_ref"], c["kind"], c["subject"], c["before"], c["after"]) for c in mine
    ] == [(case["supplier_ref"], "tile", "address", "FAIL", "PASS")]

    reverted = bvs(["ledger", "revert", *base, "--field", "address", "--by", "bob"], env)
    assert reverted.returncode == 0, reverted.stderr
    assert json.loads(reverted.stdout)["new"] == "NSW 2000"
    _run_of_later_night(ledgers)
    back = supplier()
    assert back["checks"]["address"]["status"] == "FAIL" and back["user_supplied"] == []
    assert (
        "user_supplied" not in back["checks"]["address"]["detail"]
        or not back["checks"]["address"]["detail"]["user_supplied"]
    )

    trail = [
        json.loads(line)
        for line in bvs(
            ["ledger", "audit", "--customer", "harbour-health"], env
        ).stdout.splitlines()
    ]
    assert [(t["action"], t["by"], t["field"], t["old"], t["new"]) for t in trail] == [
        ("override", "alice", "address", "NSW 2000", "QLD 4217"),
        ("revert", "bob", "address", "QLD 4217", "NSW 2000"),
    ]
    assert all(t["reason"] and t["at"] for t in trail)
    verified = bvs(["ledger", "audit", "--customer", "harbour-health", "--verify"], env)
    assert verified.returncode == 0 and json.loads(verified.stdout)["verified"] is True


def test_a_tampered_audit_trail_is_detected(ledgers: dict[str, Any]) -> None:
    env = ledgers["env"]
    trail = ledgers["data"] / "ledgers" / "harbour-health" / "audit.jsonl"
    original = trail.read_text()
    assert original.count("\n") >= 2

    def verify() -> subprocess.CompletedProcess[str]:
        return bvs(["ledger", "audit", "--customer", "harbour-health", "--verify"], env)

    lines = original.splitlines()
    edited = json.loads(lines[0])
    edited["new"] = "VIC 3000"  # rewrite who said what
    try:
        trail.write_text("\n".join([json.dumps(edited, sort_keys=True), *lines[1:]]) + "\n")
        result = verify()
        assert result.returncode == 1 and "entry 1 was altered" in result.stdout
        refused = bvs(["ledger", "override", "--customer", "harbour-health", "--ledger", "suppliers",
                       "--supplier", "HH-P016", "--field", "phone", "--value", "07 5555 0000",
                       "--reason", "x"], env)  # fmt: skip
        assert refused.returncode == 2 and "does not verify" in refused.stderr
        trail.write_text(lines[0] + "\n")  # the last entry cut off
        result = verify()
        assert result.returncode == 1 and "cut off the end" in result.stdout
    finally:
        trail.write_text(original)
    assert verify().returncode == 0


def test_the_monthly_report_as_csv_reads_back_with_every_tile(
    ledgers: dict[str, Any], tmp_path: Path
) -> None:
    """Columns named in words ("ABN status: result"), the ABN grouped as the ABR writes it
    so that a spreadsheet keeps it as text."""
    import csv

    from pipelines.ledgers.report import words
    from tests.ledgers.report_history import seed

    out = tmp_path / "report.csv"
    result = bvs(["ledger", "report", "--customer", "harbour-health", "--month", AS_OF[:7],
                  "--format", "csv", "--out", str(out)], ledgers["env"])  # fmt: skip
    assert result.returncode == 0, result.stderr
    with out.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    shown = show(ledgers["env"], "harbour-health")  # the month's last run
    assert len(rows) == len(shown["suppliers"])
    check_ids = list(next(s for s in shown["suppliers"] if s["checks"])["checks"])
    assert len(check_ids) == 36
    names = {c["check_id"]: c["check_name"] for c in seed("check_weights")}
    by_line = {int(r["Line"]): r for r in rows}
    for supplier in shown["suppliers"][:60]:
        row = by_line[supplier["line"]]
        assert row["Supplier ref"] == (supplier["supplier_ref"] or "")
        assert row["ABN"] == words.abn(supplier["abn"])
        assert row["Resolution"] == words.resolution(supplier["resolution"])
        for check_id in check_ids:
            expected = supplier["checks"][check_id]["status"] if supplier["checks"] else ""
            assert row[f"{names[check_id]}: result"] == expected
        assert row["Identity failures"] == " ".join(supplier["risk"]["identity_failures"])
    assert all(len(r["ABN"]) in (0, 14) for r in rows)  # "53 004 085 616"
    case = _case(ledgers, "ledger/changes/ages-into-pass")
    assert int(by_line[case["line"]]["Changes in month"]) >= 2


def test_the_monthly_report_as_pdf_for_a_finance_person(
    ledgers: dict[str, Any], tmp_path: Path
) -> None:
    import pypdfium2 as pdfium

    out = tmp_path / "report.pdf"
    result = bvs(["ledger", "report", "--customer", "harbour-health", "--month", AS_OF[:7],
                  "--format", "pdf", "--out", str(out)], ledgers["env"])  # fmt: skip
    assert result.returncode == 0, result.stderr
    pdf = pdfium.PdfDocument(str(out))
    pages = []
    for i in range(len(pdf)):
        page = pdf[i]
        image = page.render(scale=1).to_pil().convert("L")
        assert image.getextrema()[0] < 100  # something is drawn on every page
        pages.append(page.get_textpage().get_text_range())
    assert json.loads(result.stdout)["pages"] == len(pages) >= 3
    summary = pages[0]
    for heading in ("Supplier ledger report: harbour-health", "Suppliers by risk level",
                    "Changes since last month", "Suppliers that need action first"):  # fmt: skip
        assert heading in summary, heading
    failing = _case(ledgers, "ledger/abn_status/similarity-below-0.5")
    shown = show(ledgers["env"], "harbour-health")
    entity = next(s for s in shown["suppliers"] if s["supplier_ref"] == failing["supplier_ref"])[
        "entity"
    ]
    text = "\n".join(pages)
    assert "Suppliers that need attention" in text
    assert failing["supplier_ref"] in text and entity in text.replace("\r", "").replace("\n", " ")
    assert "Appendix: all suppliers" in text
    assert all("not legal advice" in page for page in pages)  # the notice on every page


@pytest.fixture(scope="module")
def ledger_api(ledgers: dict[str, Any]) -> Any:
    from pipelines.settings import get_settings
    from pipelines.state.db import state_store
    from pipelines.state.keys import create_key
    from tests.e2e.api_server import Clock, serve

    settings = get_settings(
        data_dir=ledgers["data"], warehouse_path=ledgers["data"] / "warehouse.duckdb"
    )
    with state_store(settings) as engine:
        keys = {
            "harbour": create_key(engine, "harbour", "enterprise", customer="harbour-health")[0],
            "council": create_key(engine, "council", "enterprise", customer="coastal-council")[0],
            "unbound": create_key(engine, "unbound", "enterprise")[0],
            "individual": create_key(engine, "person", "individual")[0],
        }
    for api in serve(settings, Clock(dt.datetime(2026, 11, 26, 1, tzinfo=dt.UTC))):
        yield api, keys


def test_api_lists_only_the_keys_customers_ledgers(ledger_api: Any) -> None:
    api, keys = ledger_api
    mine = api.get("/api/robot/ledgers", keys["harbour"])
    assert mine.status_code == 200 and "X-RateLimit-Remaining" in mine.headers
    body = mine.json()
    assert body["customer"] == "harbour-health"
    assert [x["ledger"] for x in body["ledgers"]] == ["suppliers"]
    assert body["ledgers"][0]["latest_run"]["suppliers"] > 1000
    theirs = api.get("/api/robot/ledgers", keys["council"]).json()
    assert [x["ledger"] for x in theirs["ledgers"]] == ["vendors"]


def test_api_another_customers_ledger_is_404_and_other_keys_403(ledger_api: Any) -> None:
    api, keys = ledger_api
    for path in (
        "/api/robot/ledgers/vendors",
        "/api/robot/ledgers/vendors/changes",
        "/api/robot/ledgers/nope",
    ):
        answer = api.get(path, keys["harbour"])
        assert answer.status_code == 404 and set(answer.json()) == {"message"}
    assert api.get("/api/robot/ledgers/vendors", keys["council"]).status_code == 200
    for key in ("individual", "unbound"):
        answer = api.get("/api/robot/ledgers", keys[key])
        assert answer.status_code == 403 and set(answer.json()) == {"message"}
    assert api.get("/api/robot/ledgers").status_code == 401
    assert api.get("/api/robot/ledgers/suppliers", keys["harbour"], limit=0).status_code == 400


def test_api_ledger_suppliers_filter_and_page(ledger_api: Any, ledgers: dict[str, Any]) -> None:
    api, keys = ledger_api
    shown = show(ledgers["env"], "harbour-health")
    review = [s["supplier_ref"] for s in shown["suppliers"] if s["resolution"] == "needs_review"]
    first = api.get(
        "/api/robot/ledgers/suppliers", keys["harbour"], status="needs_review", limit=4,
        order="line",
    ).json()  # fmt: skip
    assert first["total"] == len(review) and first["next_offset"] == 4
    second = api.get(
        "/api/robot/ledgers/suppliers", keys["harbour"], status="needs_review", limit=4, offset=4,
        order="line",
    ).json()  # fmt: skip
    assert [s["supplier_ref"] for s in first["suppliers"] + second["suppliers"]] == review[:8]
    high = api.get(
        "/api/robot/ledgers/suppliers", keys["harbour"], risk_level="high", limit=500
    ).json()
    assert high["suppliers"] and {s["risk"]["level"] for s in high["suppliers"]} == {"high"}
    assert high["total"] == sum(1 for s in shown["suppliers"] if s["risk"]["level"] == "high")
    one = high["suppliers"][0]
    assert len(one["checks"]) == 36 and {"status", "detail", "sources", "weight"} <= set(
        one["checks"]["gst"]
    )


def test_api_ledger_changes_since_and_ledger_alerts(
    ledger_api: Any, ledgers: dict[str, Any]
) -> None:
    api, keys = ledger_api
    later = _later(ledgers)
    since = api.get(
        "/api/robot/ledgers/suppliers/changes", keys["harbour"], since=later, limit=500
    ).json()
    cli = changes(ledgers["env"], "harbour-health", "--since", later)
    assert since["total"] == len(cli)
    assert {(c["supplier_ref"], c["kind"], c["subject"], c["after"]) for c in since["changes"]} == {
        (c["supplier_ref"], c["kind"], c["subject"], c["after"]) for c in cli
    }
    alerts = api.get("/api/robot/alerts", keys["harbour"]).json()
    assert "ledger_alerts" in alerts and "next_ledger_cursor" in alerts
    assert all(a["ledger"] == "suppliers" for a in alerts["ledger_alerts"])
    # the revert made the address FAIL again: a change for the worse, an alert
    reverted = _case(ledgers, "ledger/address/other-state")["supplier_ref"]
    assert any(
        (a["supplier_ref"], a["kind"], a["subject"], a["after"])
        == (reverted, "tile", "address", "FAIL")
        for a in alerts["ledger_alerts"]
    )
    newer = api.get(
        "/api/robot/alerts", keys["harbour"], ledger_since=alerts["next_ledger_cursor"]
    ).json()
    assert newer["ledger_alerts"] == []
    none = api.get("/api/robot/alerts", keys["individual"]).json()
    assert none["ledger_alerts"] == []


def test_api_ledger_answers_are_what_the_document_says(ledger_api: Any) -> None:
    """The ledger endpoints' real answers held to the OpenAPI document (the others are in
    test_api_conformance.py)."""
    from tests.e2e.conformance import check_conforms, load_schema

    api, keys = ledger_api
    schema = load_schema(api.url)
    harbour, base = keys["harbour"], "/api/robot/ledgers"
    listed = check_conforms(schema, base, harbour).json()
    assert listed["ledgers"] and listed["ledgers"][0]["latest_run"]
    page = check_conforms(
        schema, f"{base}/{{ledger}}", harbour, path_parameters={"ledger": "suppliers"},
        query={"limit": 500, "order": "line"},
    ).json()  # fmt: skip
    assert {s["resolution"] for s in page["suppliers"]} >= {"verified", "needs_review"}
    changed = check_conforms(
        schema, f"{base}/{{ledger}}/changes", harbour, path_parameters={"ledger": "suppliers"},
        query={"limit": 500},
    ).json()  # fmt: skip
    assert len(changed["changes"]) == min(changed["total"], 500)
    for path in (f"{base}/{{ledger}}", f"{base}/{{ledger}}/changes"):
        check_conforms(schema, path, harbour, path_parameters={"ledger": "vendors"}, status=404)
    check_conforms(schema, base, keys["individual"], status=403)
    check_conforms(schema, "/api/robot/alerts", harbour)  # the ledger alerts, after the runs above


IDENTITY_CHECKS = ("abn_status", "company_status", "insolvency", "gst")
LEVEL_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, None: 4}


def test_a_decisive_identity_failure_is_never_low_risk_and_comes_first(
    ledger_api: Any, ledgers: dict[str, Any]
) -> None:
    """docs/decisions/21-decisive-identity-failure.md: every supplier with abn_status, company_status, insolvency or gst
    FAIL (the ledger rules applied: a cancelled ABN, a name that differs materially, GST charged
    while unregistered) is at least high and its risk names those tiles; the API's default
    order is the report's act-first order, `order=line` the file's."""
    api, keys = ledger_api
    shown = show(ledgers["env"], "harbour-health")["suppliers"]
    failing = [
        s
        for s in shown
        if any(s["checks"].get(c, {}).get("status") == "FAIL" for c in IDENTITY_CHECKS)
    ]
    assert len(failing) > 100
    for supplier in shown:
        named = [
            c for c in IDENTITY_CHECKS if supplier["checks"].get(c, {}).get("status") == "FAIL"
        ]
        assert supplier["risk"]["identity_failures"] == named, supplier["supplier_ref"]
        if named:
            assert supplier["risk"]["level"] in ("high", "critical"), supplier["supplier_ref"]
            assert supplier["risk"]["score"] >= 70
    by_risk = api.get("/api/robot/ledgers/suppliers", keys["harbour"], limit=500).json()
    assert by_risk["order"] == "risk"
    page = by_risk["suppliers"]
    ranks = [(LEVEL_RANK[s["risk"]["level"]], -(s["risk"]["score"] or 0)) for s in page]
    assert ranks == sorted(ranks) and page[0]["risk"]["level"] in ("critical", "high")
    by_line = api.get(
        "/api/robot/ledgers/suppliers", keys["harbour"], order="line", limit=500
    ).json()["suppliers"]
    assert [s["line"] for s in by_line] == sorted(s["line"] for s in by_line)
    assert api.get("/api/robot/ledgers/suppliers", keys["harbour"], order="x").status_code == 400
