"""Planted cases of enforcement: the regulators' adverse records (conduct, the adverse pattern,
competition, workplace, disability services)."""

from __future__ import annotations

from typing import Any

from bvs_sample.cases.builder import Builder, Ent, match, name_similarity

CONDUCT_REGULATORS = ("ACCC", "QBCC", "NSW_FAIR_TRADING", "VBA_BPC", "QLD_OFT")


def plant_conduct(b: Builder) -> None:
    t = "match_adverse"
    b.case("conduct/no-records", b.company(), "No records => PASS", "conduct", "PASS",
           not_flags=("ADVERSE_ACTIVE", "ADVERSE_PATTERN"))  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "QBCC", "LOW", "ACTIVE")
    b.case("conduct/low-only", ent, "Low-severity or resolved records only => WARN", "conduct",
           "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "NSW_FAIR_TRADING", "HIGH", "RESOLVED")
    b.case("conduct/resolved-only", ent, "Low-severity or resolved records only => WARN",
           "conduct", "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "QBCC", "CRITICAL", "EXPIRED")
    b.case("conduct/expired-critical", ent,
           "Low-severity or resolved records only => WARN (an expired record is no longer active)",
           "conduct", "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "QLD_OFT", "MEDIUM", "ACTIVE")
    b.case("conduct/active-medium", ent, "Active MEDIUM or HIGH records => WARN", "conduct",
           "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    for regulator in CONDUCT_REGULATORS:
        ent = b.company()
        r = b.adverse(ent, regulator, "HIGH", "ACTIVE")
        b.case(f"conduct/active-high-{regulator.lower()}", ent,
               "Active MEDIUM or HIGH records => WARN; ADVERSE_ACTIVE: name or ABN matches an active "
               "(unresolved) enforcement record of severity HIGH or CRITICAL", "conduct", "WARN",
               flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
        ent = b.company()
        r = b.adverse(ent, regulator, "CRITICAL", "ACTIVE")
        b.case(f"conduct/active-critical-{regulator.lower()}", ent,
               "Active CRITICAL record => FAIL (and ADVERSE_ACTIVE fires)", "conduct", "FAIL",
               flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    name = ent.name.title()
    r = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE", abn=False, name=name)
    b.case("conduct/name-match", ent,
           "Active CRITICAL record => FAIL (and ADVERSE_ACTIVE fires); name trigram above 0.55",
           "conduct", "FAIL", flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "name", name=name)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.55)
    r = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE", abn=False, name=decoy)
    b.case("conduct/name-decoy", ent, "No records => PASS (name similarity not above 0.55)",
           "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",),
           non_matches=[match(t, r, name=decoy)])  # fmt: skip
    # A record that lists an ABN is that entity's alone: another entity of the same name is
    # not matched by it (docs/matching.md, "A record's own identifier").
    ent, holder = b.company(), b.company()
    r = b.adverse(holder, "QBCC", "CRITICAL", "ACTIVE", name=ent.name)
    b.case("conduct/record-of-another-abn-with-the-same-name", ent,
           "No records => PASS (a record under another ABN, with this entity's name)", "conduct",
           "PASS", not_flags=("ADVERSE_ACTIVE",), non_matches=[match(t, r)])  # fmt: skip
    b.case("conduct/record-under-its-abn-with-another-name", holder,
           "Active CRITICAL record => FAIL (and ADVERSE_ACTIVE fires): the ABN decides, not the name",
           "conduct", "FAIL", flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    b.adverse(ent, "NDIS_COMMISSION", "CRITICAL", "ACTIVE")
    b.case("conduct/ndis-record-is-not-conduct", ent,
           "ADVERSE_ACTIVE lists the competition regulator, QBCC, NSW Fair Trading, VBA/BPC and "
           "QLD OFT only", "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",))  # fmt: skip
    ent = b.company()
    b.adverse(ent, "FWO", "CRITICAL", "ACTIVE", action="LITIGATION")
    b.case("conduct/fwo-record-is-not-conduct", ent,
           "ADVERSE_ACTIVE lists the competition regulator, QBCC, NSW Fair Trading, VBA/BPC and "
           "QLD OFT only", "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",))  # fmt: skip


def plant_adverse_pattern(b: Builder) -> None:
    s = "ADVERSE_PATTERN: Three or more adverse records within 24 months spanning multiple government authorities."
    t = "match_adverse"

    def records(ent: Ent, spec: list[tuple[str, int]]) -> list[dict[str, Any]]:
        return [
            match(t, b.adverse(ent, reg, "LOW", "RESOLVED", day=b.months(m), k=k), "abn")
            for k, (reg, m) in enumerate(spec)
        ]

    ent = b.company()
    rs = records(ent, [("ACCC", 20), ("QBCC", 10), ("NSW_FAIR_TRADING", 3)])
    b.case("adverse_pattern/three-records-three-regulators", ent, s, "conduct", "WARN",
           flags=("ADVERSE_PATTERN",), not_flags=("ADVERSE_ACTIVE",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("QBCC", 23), ("QBCC", 10), ("QLD_OFT", 2)])
    b.case("adverse_pattern/three-records-two-regulators", ent, s, "conduct", "WARN",
           flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("ACCC", 10), ("QBCC", 3)])
    b.case("adverse_pattern/two-records", ent, s + " (two records: no flag)", "conduct", "WARN",
           not_flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("ACCC", 25), ("QBCC", 10), ("NSW_FAIR_TRADING", 3)])
    b.case("adverse_pattern/one-record-25-months-old", ent, s + " (one is 25 months old: no flag)",
           "conduct", "WARN", not_flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("QBCC", 20), ("QBCC", 10), ("QBCC", 3)])
    b.case("adverse_pattern/one-regulator", ent, s + " (one authority: no flag)", "conduct",
           "WARN", not_flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip


def plant_competition(b: Builder) -> None:
    t = "match_adverse"
    ent = b.company()
    r = b.adverse(ent, "ACCC", "MEDIUM", "RESOLVED", action="UNDERTAKING")
    b.case("competition_enforcement/action-by-abn", ent, "action found => FAIL",
           "competition_enforcement", "FAIL", matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PROPRIETARY LIMITED")
    r = b.adverse(
        ent, "ACCC", "LOW", "RESOLVED", action="INFRINGEMENT_NOTICE", abn=False, name=name
    )
    b.case("competition_enforcement/action-by-name", ent,
           "action found => FAIL (name trigram at least 0.6)", "competition_enforcement", "FAIL",
           matches=[match(t, r, "name", name=name, threshold_key="match_adverse/ACCC-competition")])  # fmt: skip
    ent = b.company()
    between = b.near(ent.name, 0.6, band=0.04)
    r = b.adverse(ent, "ACCC", "LOW", "RESOLVED", action="PUBLIC_WARNING", abn=False, name=between)
    assert name_similarity(between, ent.name) > 0.55
    b.case("competition_enforcement/name-between-0.55-and-0.6", ent,
           "none => N/A (competition needs name trigram at least 0.6; the record still matches "
           "conduct, above 0.55)", "competition_enforcement", "N/A",
           matches=[match(t, r, "name", name=between)])  # fmt: skip
    b.case("competition_enforcement/none", b.company(), "none => N/A",
           "competition_enforcement", "N/A")  # fmt: skip


def plant_workplace(b: Builder) -> None:
    t = "match_adverse"
    b.case("workplace_compliance/no-records", b.company(), "No records => PASS",
           "workplace_compliance", "PASS")  # fmt: skip
    for action in ("COMPLIANCE_NOTICE", "ENFORCEABLE_UNDERTAKING"):
        ent = b.company()
        r = b.adverse(ent, "FWO", "MEDIUM", "ACTIVE", action=action)
        b.case(f"workplace_compliance/{action.lower().replace('_', '-')}", ent,
               "Notice or undertaking found => WARN", "workplace_compliance", "WARN",
               matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "FWO", "MEDIUM", "ACTIVE", abn=False)
    b.case("workplace_compliance/name-only-record", ent,
           "Workplace compliance (opt-in; ABN exact): a record without the ABN does not match => PASS",
           "workplace_compliance", "PASS", non_matches=[match(t, r)])  # fmt: skip


def plant_disability(b: Builder) -> None:
    t = "match_adverse"
    b.case("disability_register/none", b.company(), "No action found => N/A",
           "disability_register", "N/A")  # fmt: skip
    for action, severity, outcome, row in (
        ("BANNING_ORDER", "CRITICAL", "FAIL", "Active banning order => FAIL"),
        ("REVOCATION", "CRITICAL", "FAIL", "Active revocation => FAIL"),
        ("SUSPENSION", "HIGH", "WARN", "Active suspension or compliance notice => WARN"),
        ("COMPLIANCE_NOTICE", "MEDIUM", "WARN", "Active suspension or compliance notice => WARN"),
    ):
        ent = b.company()
        r = b.adverse(ent, "NDIS_COMMISSION", severity, "ACTIVE", action=action)
        b.case(f"disability_register/active-{action.lower().replace('_', '-')}", ent, row,
               "disability_register", outcome, matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    rs = [match(t, b.adverse(ent, "NDIS_COMMISSION", "HIGH", "EXPIRED", action=a, k=k), "abn")
          for k, a in enumerate(("SUSPENSION", "COMPLIANCE_NOTICE"))]  # fmt: skip
    b.case("disability_register/all-expired", ent, "Historical actions all expired => WARN",
           "disability_register", "WARN", matches=rs)  # fmt: skip
    ent = b.individual(gst=None)
    name = f"{ent.person[0].title()} {ent.person[1].title()}" if ent.person else ent.name
    r = b.adverse(ent, "NDIS_COMMISSION", "CRITICAL", "ACTIVE", abn=False, name=name)
    b.case("disability_register/individual-by-name", ent,
           "Active banning order => FAIL (name-only matches for individuals, trigram above 0.65)",
           "disability_register", "FAIL",
           matches=[match(t, r, "name", name=name, threshold_key="match_adverse/NDIS_COMMISSION")])  # fmt: skip
    ent = b.individual()
    decoy = b.near(ent.name, 0.65).replace(" PTY LTD", "")
    r = b.adverse(ent, "NDIS_COMMISSION", "CRITICAL", "ACTIVE", abn=False, name=decoy)
    b.case("disability_register/individual-name-decoy", ent,
           "No action found => N/A (name similarity not above 0.65)", "disability_register", "N/A",
           non_matches=[match(t, r, name=decoy, threshold_key="match_adverse/NDIS_COMMISSION")])  # fmt: skip


def plant_workplace_record_kinds(b: Builder) -> None:
    """Workplace compliance's rows beside docs/rules.md#conduct's four workplace notice types: a notice or
    undertaking no longer in force is still found; litigation alone, the regulator's court
    proceedings, is no clean record (decided, docs/verification.md)."""
    t = "match_adverse"
    w = "workplace_compliance"
    ent = b.company()
    r = b.adverse(ent, "FWO", "MEDIUM", "RESOLVED", action="INFRINGEMENT_NOTICE")
    b.case("workplace_compliance/resolved-infringement-notice", ent,
           "Notice or undertaking found => WARN (no longer in force)", w, "WARN",
           reason="no longer in force", matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "FWO", "MEDIUM", "ACTIVE", action="INFRINGEMENT_NOTICE")
    b.case("workplace_compliance/active-infringement-notice", ent,
           "Notice or undertaking found => WARN", w, "WARN",
           reason="Notice or undertaking found => WARN", matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "FWO", "HIGH", "ACTIVE", action="LITIGATION")
    b.case("workplace_compliance/litigation-only", ent,
           "Litigation found => WARN (decided: not a notice or undertaking, no clean record)", w,
           "WARN", reason="Litigation found", matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "FWO", "HIGH", "ACTIVE", action="LITIGATION")
    r2 = b.adverse(ent, "FWO", "MEDIUM", "ACTIVE", action="COMPLIANCE_NOTICE", k=1)
    b.case("workplace_compliance/litigation-and-a-notice", ent,
           "Notice or undertaking found => WARN (the notice decides the row)", w, "WARN",
           reason="Notice or undertaking found => WARN",
           matches=[match(t, r, "abn"), match(t, r2, "abn")])  # fmt: skip
