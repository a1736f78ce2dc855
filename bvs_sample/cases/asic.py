"""Planted cases of ASIC's registers: company status, business names, and the phoenix pattern
(officeholders of a deregistered company)."""

from __future__ import annotations

import datetime as dt

from bvs_sample.cases.builder import Builder, Ent, Officer, match


def plant_company_status(b: Builder) -> None:
    for status, outcome, row in (
        ("REGD", "PASS", "REGD => PASS"),
        ("DRGD", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("SOFF", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("CNCL", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("DISS", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("EXAD", "WARN", "EXAD or NOAC => WARN"),
        ("NOAC", "WARN", "EXAD or NOAC => WARN"),
    ):
        abn_status = "CAN" if status in ("DRGD", "CNCL", "DISS") else "ACT"
        dereg = b.months(3) if status == "DRGD" else None
        ent = b.company(co_status=status, abn_status=abn_status, dereg=dereg)
        # a FAIL here, or the insolvency FAIL of a company in external administration, is a
        # decisive identity failure: the risk is at least high (docs/decisions/21-decisive-identity-failure.md)
        decisive = outcome == "FAIL" or status == "EXAD"
        b.case(f"company_status/{status.lower()}", ent, row, "company_status", outcome,
               risk=("high", "critical") if decisive else None)  # fmt: skip
    b.case("company_status/acn-not-found", b.company(in_asic=False), "ACN not found => N/A",
           "company_status", "N/A")  # fmt: skip
    b.case("company_status/no-acn", b.other(code="DTT", name=f"THE TRUSTEE FOR {b.word()} TRUST"),
           "ACN not found => N/A", "company_status", "N/A")  # fmt: skip


def plant_business_names(b: Builder) -> None:
    t = "match_business_names"
    ent = b.company()
    name = f"{b.word()} {b.word()}"
    b.bn(ent, name)
    b.case("business_names/active", ent, "Active registration(s) found => PASS", "business_names",
           "PASS", matches=[match(t, {"business_name": name, "state_number": None}, "abn")])  # fmt: skip
    ent = b.company()
    n1, n2 = f"{b.word()} {b.word()}", f"{b.word()} {b.word()}"
    b.bn(ent, n1, "Cancelled")
    b.bn(ent, n2, "Deregistered")
    b.case("business_names/only-cancelled", ent,
           "Only deregistered names, no active replacement => WARN", "business_names", "WARN",
           matches=[match(t, {"business_name": n, "state_number": None}, "abn") for n in (n1, n2)])  # fmt: skip
    b.case("business_names/none", b.company(), "No registration => N/A", "business_names", "N/A")
    ent = b.company()
    variant = ent.name.replace(" PTY LTD", "")
    b.bn(ent, variant, abn=False)
    b.case("business_names/name-match-without-abn", ent,
           "business names register: ABN plus name similarity at least 0.8 (name) => PASS",
           "business_names", "PASS",
           matches=[match(t, {"business_name": variant, "state_number": None}, "name", name=variant)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.8)
    b.bn(ent, decoy, abn=False)
    b.case("business_names/name-decoy", ent,
           "business names register: name similarity below 0.8 is no match => N/A",
           "business_names", "N/A",
           non_matches=[match(t, {"business_name": decoy, "state_number": None}, name=decoy)])  # fmt: skip


def plant_phoenix(b: Builder) -> None:
    s = ("PHOENIX_PATTERN: Entity has an ACN and one of its directors is also an officeholder of "
         "a company deregistered within the past 36 months.")  # fmt: skip
    t = "phoenix_links"

    def linked(months: int, *, role: str = "DIRECTOR", other_birth: bool = False,
               ceased_here: bool = False) -> tuple[Ent, str]:  # fmt: skip
        ent = b.company()
        person = b.officer()
        dereg = b.months(months)
        acn, _ = b.deregistered_company(dereg)
        b.officeholder(ent.acn, person, ceased=b.months(1) if ceased_here else None)
        if ceased_here:
            b.officeholder(ent.acn, b.officer())  # a current director with no history
        twin = Officer(person.given, person.family, person.birth - dt.timedelta(days=4000)) if other_birth and person.birth else person  # fmt: skip
        b.officeholder(acn, twin, role, appointed=b.months(months + 60), ceased=dereg)
        return ent, acn

    ent, acn = linked(35)
    b.case("phoenix/director-of-company-deregistered-35-months", ent,
           s + " The phoenix tile shows FAIL and lists the deregistered company.", "phoenix",
           "FAIL", flags=("PHOENIX_PATTERN",),
           matches=[match(t, {"deregistered_acn": acn}, "director_name")])  # fmt: skip
    ent, acn = linked(35, role="SECRETARY")
    b.case("phoenix/secretary-of-company-deregistered-35-months", ent,
           s + " (an officeholder: the secretary)", "phoenix", "FAIL", flags=("PHOENIX_PATTERN",),
           matches=[match(t, {"deregistered_acn": acn}, "director_name")])  # fmt: skip
    ent, acn = linked(37)
    b.case("phoenix/deregistered-37-months", ent, s + " (37 months: outside the window)",
           "phoenix", "PASS", not_flags=("PHOENIX_PATTERN",),
           non_matches=[match(t, {"deregistered_acn": acn})])  # fmt: skip
    ent, acn = linked(20, other_birth=True)
    b.case("phoenix/same-name-different-birth-date", ent,
           s + " Director matching must not link two different people who share a common name "
           "when a birth date says they differ.", "phoenix", "PASS",
           not_flags=("PHOENIX_PATTERN",), non_matches=[match(t, {"deregistered_acn": acn})])  # fmt: skip
    ent, acn = linked(20, ceased_here=True)
    b.case("phoenix/former-director-of-entity", ent,
           s + " (the person left the entity's board: not one of its directors)", "phoenix",
           "PASS", not_flags=("PHOENIX_PATTERN",), non_matches=[match(t, {"deregistered_acn": acn})])  # fmt: skip
    b.case("phoenix/no-acn", b.other(code="FPT"),
           "Sole traders and partnerships without an ACN are not assessed (N/A).", "phoenix",
           "N/A", not_flags=("PHOENIX_PATTERN",))  # fmt: skip
    b.case("phoenix/no-officeholder-rows", b.company(),
           "N/A for a company with no officeholder rows (CONTRACT decision 6)", "phoenix", "N/A",
           not_flags=("PHOENIX_PATTERN",))  # fmt: skip
    ent = b.company()
    b.officeholder(ent.acn, b.officer())
    b.case("phoenix/no-history", ent, "PASS otherwise (CONTRACT decision 6)", "phoenix", "PASS",
           not_flags=("PHOENIX_PATTERN",))  # fmt: skip
