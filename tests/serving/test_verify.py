"""The verify response's own arithmetic: the score for narrowed checks, the risk rule, ABNs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipelines.serving.verify import RiskBands, VerifyError, assurance_score, parse_abn

# The one declaration of the risk bands and the decisive identity failures, which dbt
# compiles from and publishes
VARS = yaml.safe_load((Path(__file__).parents[2] / "dbt_project" / "dbt_project.yml").read_text())[
    "vars"
]
DECLARED = VARS["risk_levels"]
IDENTITY = VARS["identity_failures"]


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        pytest.param([("PASS", 10)], 100.0, id="PASS => 100% of the weight"),
        pytest.param([("WARN", 10)], 50.0, id="WARN => 50% of the check's weight"),
        pytest.param([("FAIL", 10)], 0.0, id="FAIL => 0% of the check's weight"),
        pytest.param([("PASS", 10), ("N/A", 10)], 100.0, id="N/A => does not affect the score"),
        pytest.param([("PASS", 10), ("WARN", 10), ("FAIL", 8), ("N/A", 7)], 53.6, id="mixed"),
        pytest.param([("N/A", 10)], None, id="every tile N/A => no score"),
        pytest.param([("PASS", 0), ("FAIL", 0)], None, id="informational checks weigh nothing"),
        pytest.param([("HIGH", 0), ("PASS", 5)], 100.0, id="squeeze tiers are informational"),
    ],
)
def test_assurance_score_follows_spec_3_2(tiles: list, expected: float | None) -> None:
    assert assurance_score(tiles) == expected


@pytest.mark.parametrize(
    ("score", "severities", "expected"),
    [
        (100.0, [], (0.0, "low")),
        (61.0, [], (39.0, "low")),
        (60.0, [], (40.0, "medium")),
        (30.0, [], (70.0, "high")),
        (5.0, [], (95.0, "critical")),
        (100.0, ["MEDIUM"], (40.0, "medium")),
        (100.0, ["HIGH", "MEDIUM"], (70.0, "high")),
        (95.0, ["CRITICAL"], (90.0, "critical")),
        (None, [], (0.0, "low")),
    ],
)
def test_risk_is_the_inverse_score_floored_by_the_worst_flag(
    score: float | None, severities: list[str], expected: tuple[float, str]
) -> None:
    assert RiskBands.from_rows(DECLARED).risk(score, severities) == expected


def _bands() -> RiskBands:
    floor = next(b["risk_floor"] for b in DECLARED if b["severity"] == IDENTITY["severity"])
    return RiskBands.from_rows(DECLARED, IDENTITY["checks"], floor)


def test_the_decisive_identity_checks_are_contract_decision_21() -> None:
    assert IDENTITY == {
        "checks": ["abn_status", "company_status", "insolvency", "gst"],
        "severity": "HIGH",
    }


@pytest.mark.parametrize("check_id", ["abn_status", "company_status", "insolvency", "gst"])
@pytest.mark.parametrize(
    ("score", "severities", "expected"),
    [
        pytest.param(87.0, [], (70.0, "high"), id="a high assurance score: raised to high"),
        pytest.param(100.0, [], (70.0, "high"), id="every other tile PASS: still high"),
        pytest.param(20.0, [], (80.0, "high"), id="already high: unchanged"),
        pytest.param(5.0, [], (95.0, "critical"), id="critical stays critical"),
        pytest.param(90.0, ["CRITICAL"], (90.0, "critical"), id="a CRITICAL flag stays critical"),
    ],
)
def test_a_decisive_identity_failure_is_never_low_risk(
    check_id: str, score: float, severities: list[str], expected: tuple[float, str]
) -> None:
    bands = _bands()
    failures = bands.identity_failures({check_id: "FAIL", "conduct": "FAIL", "gst_x": "FAIL"})
    assert failures == [check_id]
    assert bands.risk(score, severities, failures) == expected


@pytest.mark.parametrize("status", ["PASS", "WARN", "N/A"])
def test_no_identity_failure_without_a_fail(status: str) -> None:
    bands = _bands()
    statuses = {c: status for c in IDENTITY["checks"]} | {"conduct": "FAIL", "phoenix": "FAIL"}
    assert bands.identity_failures(statuses) == []
    assert bands.risk(87.0, [], bands.identity_failures(statuses)) == (13.0, "low")


def test_identity_failures_are_named_in_the_rules_order() -> None:
    bands = _bands()
    statuses = {"gst": "FAIL", "abn_status": "FAIL", "insolvency": "PASS", "company_status": "FAIL"}
    assert bands.identity_failures(statuses) == ["abn_status", "company_status", "gst"]


def test_the_bands_are_read_as_declared_and_must_start_at_zero() -> None:
    moved = [dict(b, risk_floor=50) if b["level"] == "medium" else b for b in DECLARED]
    assert RiskBands.from_rows(moved).risk(55.0, []) == (45.0, "low")
    assert RiskBands.from_rows(moved).risk(100.0, ["MEDIUM"]) == (50.0, "medium")
    with pytest.raises(ValueError, match="start at 0"):
        RiskBands.from_rows([b for b in DECLARED if b["level"] != "low"])


def test_abns_are_cleaned_and_checked() -> None:
    assert parse_abn("53 004 085 616") == "53004085616"
    for bad, why in (
        ("5300408561", "11 digits"),
        ("53004085617", "checksum"),
        ("abc", "11 digits"),
    ):
        with pytest.raises(VerifyError, match=why) as caught:
            parse_abn(bad)
        assert caught.value.status == 400


def test_only_premium_checks_that_ran_are_charged() -> None:
    """docs/decisions/18-a-check-that-did-not-run-is-unknown.md: a premium check uses up quota only when it actually ran."""
    from pipelines.serving.verify import premium_checks_run

    tiles = {
        "phone": {"status": "N/A", "reason": "Not run: no phone provider configured => N/A"},
        "street_view": {"status": "PASS", "reason": "Imagery matches the business type => PASS"},
        "abn_status": {"status": "PASS", "reason": "ABN active => PASS"},
    }
    assert premium_checks_run(tiles) == ["street_view"]
    assert premium_checks_run({"abn_status": tiles["abn_status"]}) == []
