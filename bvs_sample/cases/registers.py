"""Planted cases of the charities, the listed public registers, and the match-only registers."""

from __future__ import annotations

import datetime as dt

from bvs_sample import formats as F
from bvs_sample.cases.builder import Builder, Ent, Officer, match


def _charity_row(b: Builder, ent: Ent) -> None:
    values: dict[str, object] = {c: "" for c in F.CHARITIES}
    values.update(ABN=ent.abn, Charity_Legal_Name=ent.name, Address_Type="Business",
                  Address_Line_1="1 PLANTED STREET", Town_City="BRISBANE", State="QLD",
                  Postcode="4000", Country="AUSTRALIA", Registration_Date=b.months(60),
                  Date_Organisation_Established=b.months(200), Charity_Size="Small",
                  Number_of_Responsible_Persons="3", Financial_Year_End="30-Jun", Operates_in_QLD="Y",
                  Advancing_Education="Y", Children="Y")  # fmt: skip
    b.row("charities", **values)


def plant_registers(b: Builder) -> None:
    t = "match_registers"
    ent = b.other(code="OIE", name=f"{b.word()} {b.word()} ASSOCIATION INCORPORATED")
    _charity_row(b, ent)
    b.case("charities/registered", ent, "Found, status Registered => PASS", "charities", "PASS",
           matches=[match("match_charities", {"charity_legal_name": ent.name}, "abn")])  # fmt: skip
    b.case("charities/not-found", b.other(code="OIE"), "Not found => N/A", "charities", "N/A")
    for status, outcome, row in (
        ("Current", "PASS", "Found, status Current => PASS"),
        ("Terminated", "WARN", "Found, status Terminated or Suspended => WARN"),
        ("Suspended", "WARN", "Found, status Terminated or Suspended => WARN"),
    ):
        ent = b.individual()
        name = Officer(*ent.person, None).given_first() if ent.person else ent.name
        r = b.register(ent, "TAX_PRACTITIONERS", status, person=name)
        b.case(f"tax_practitioners/{status.lower()}", ent, row, "tax_practitioners", outcome,
               matches=[match(t, r, "abn")])  # fmt: skip
    b.case(
        "tax_practitioners/not-found",
        b.individual(),
        "Not found => N/A",
        "tax_practitioners",
        "N/A",
    )
    ent = b.company(code="PUB", name=f"{b.word()} {b.word()} BANK LIMITED")
    r = b.register(ent, "APRA_ENTITIES", "Registered", acn=ent.acn)
    b.case(
        "prudential/found", ent, "Found => PASS", "prudential", "PASS", matches=[match(t, r, "abn")]
    )
    b.case("prudential/not-found", b.company(code="PUB", name=f"{b.word()} {b.word()} LIMITED"),
           "Not found => N/A", "prudential", "N/A")  # fmt: skip
    ent = b.other(code="SMF", name=f"THE TRUSTEE FOR {b.word()} SUPER FUND")
    r = b.register(ent, "SUPER_FUNDS", "Complying")
    b.case("super_fund/registered-fund", ent, "ABN is a registered fund, or a registered trustee => PASS",
           "super_fund", "PASS", matches=[match(t, r, "abn")])  # fmt: skip
    trustee = b.company()
    fund = b.other(code="SMF", name=f"THE TRUSTEE FOR {b.word()} SUPER FUND")
    r = b.register(fund, "SUPER_FUNDS", "Complying", acn=trustee.acn, k=1)
    b.case("super_fund/registered-trustee", trustee,
           "ABN is a registered fund, or a registered trustee => PASS (the fund's trustee ACN)",
           "super_fund", "PASS", matches=[match(t, r, "acn")])  # fmt: skip
    b.case("super_fund/not-found", b.company(), "Not found => N/A", "super_fund", "N/A")
    # tax debt
    ent = b.company()
    r = b.register(ent, "TAX_DEBT", "Disclosed")
    b.case("tax_debt/on-list-by-abn", ent, "On list => FAIL", "tax_debt", "FAIL",
           matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    name = ent.name.title()
    r = b.register(ent, "TAX_DEBT", "Disclosed", abn=False, name=name)
    b.case("tax_debt/on-list-by-name", ent, "On list => FAIL (name matching at 0.75)", "tax_debt",
           "FAIL", matches=[match(t, r, "name", name=name, threshold_key="match_registers/TAX_DEBT")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.75)
    r = b.register(ent, "TAX_DEBT", "Disclosed", abn=False, name=decoy)
    b.case("tax_debt/name-decoy", ent, "Not on list => PASS (name below 0.75)", "tax_debt", "PASS",
           non_matches=[match(t, r, name=decoy, threshold_key="match_registers/TAX_DEBT")])  # fmt: skip
    b.case("tax_debt/not-on-list", b.company(), "Not on list => PASS", "tax_debt", "PASS")
    # ABN-only informational registers
    for register, check, label in (
        (
            "RD_INCENTIVE",
            "rd_incentive",
            "R&D tax incentive (ABN exact): found => PASS; not found => N/A",
        ),
        (
            "WGEA",
            "workforce_gender",
            "Workforce gender reporting (ABN exact): found => PASS; not found => N/A",
        ),
        (
            "GOV_CONTRACTS",
            "government_contracts",
            "Government contracts (ABN exact): found => PASS; none => N/A",
        ),
    ):
        ent = b.company()
        r = b.register(ent, register, "Published")
        b.case(f"{check}/found", ent, label, check, "PASS", matches=[match(t, r, "abn")])
        b.case(f"{check}/not-found", b.company(), label, check, "N/A")
    # modern slavery and B Corp: names
    ent = b.company()
    r = b.register(ent, "MODERN_SLAVERY", "Published")
    ms = "Modern slavery statement (ABN exact or name trigram at least 0.65): found => PASS; not found => N/A"
    b.case("modern_slavery/by-abn", ent, ms, "modern_slavery", "PASS", matches=[match(t, r, "abn")])
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PTY LIMITED")
    r = b.register(ent, "MODERN_SLAVERY", "Published", abn=False, name=name)
    b.case("modern_slavery/by-name", ent, ms, "modern_slavery", "PASS",
           matches=[match(t, r, "name", name=name, threshold_key="match_registers/MODERN_SLAVERY")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.65)
    r = b.register(ent, "MODERN_SLAVERY", "Published", abn=False, name=decoy)
    b.case("modern_slavery/name-decoy", ent, ms, "modern_slavery", "N/A",
           non_matches=[match(t, r, name=decoy, threshold_key="match_registers/MODERN_SLAVERY")])  # fmt: skip
    bc = "B Corp certification (name trigram at least 0.7): matched => PASS; not found => N/A"
    ent = b.company()
    name = ent.name.replace(" PTY LTD", "")
    r = b.register(ent, "BCORP", "Certified", abn=False, name=name)
    b.case("bcorp/by-name", ent, bc, "bcorp", "PASS",
           matches=[match(t, r, "name", name=name, threshold_key="match_registers/BCORP")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.7)
    r = b.register(ent, "BCORP", "Certified", abn=False, name=decoy)
    b.case("bcorp/name-decoy", ent, bc, "bcorp", "N/A",
           non_matches=[match(t, r, name=decoy, threshold_key="match_registers/BCORP")])  # fmt: skip


def plant_matches_only(b: Builder) -> None:
    """Registers read by no tile of their own here: ASX list (by name) and PPSR."""
    t = "match_asx_listed"
    ent = b.company(code="PUB", name=f"{b.word()} {b.word()} LIMITED")
    code = b.asx[0]
    b.row("asx", **{"Company name": ent.name.replace("LIMITED", "LTD"), "ASX code": code,
                    "GICS industry group": "Materials"})  # fmt: skip
    b.case("asx_listed/name-match", ent, "ASX list: maps tickers to company names (and, through "
           "name matching at least 0.8, to ABNs)",
           matches=[match(t, {"asx_code": code}, "name", name=ent.name.replace("LIMITED", "LTD"))])  # fmt: skip
    ent = b.company(code="PUB", name=f"{b.word()} {b.word()} LIMITED")
    decoy = b.near(ent.name, 0.8).replace(" PTY LTD", " LIMITED")
    code = b.asx[1]
    b.row("asx", **{"Company name": decoy, "ASX code": code, "GICS industry group": "Energy"})
    b.case("asx_listed/name-decoy", ent, "ASX list name below 0.8 is no match",
           non_matches=[match(t, {"asx_code": code}, name=decoy)])  # fmt: skip
    t = "match_ppsr"
    ent = b.company()
    rs = []
    for k, (abn, end) in enumerate(((False, None), (True, b.ahead(800)), (False, None))):
        number = f"9P{ent.j:05d}{k:02d}"
        b.row("ppsr", registration_number=number, grantor_abn=ent.abn if abn else "",
              grantor_acn=ent.acn, grantor_name=ent.name, collateral_class="MOTOR_VEHICLE",
              start_date=b.months(20 - k), end_date=end)  # fmt: skip
        rs.append(match(t, {"registration_number": number}, "abn" if abn else "acn"))
    b.case("ppsr/three-current-registrations", ent,
           "Shape B ppsr.registrations (integer count): current while end_date is null or in the future",
           matches=rs)  # fmt: skip


def plant_government_contracts_window(b: Builder) -> None:
    """Government contracts "covers two financial years" (docs/rules.md): the current financial
    year and the one before, from 1 July a year before the current one began."""
    t = "match_registers"
    s = "Government contracts (ABN exact; covers two financial years): found => PASS"
    first = b.financial_year_start(1)
    ent = b.company()
    r = b.register(ent, "GOV_CONTRACTS", "Published", day=first)
    b.case("government_contracts/first-day-of-the-previous-financial-year", ent, s,
           "government_contracts", "PASS", matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.register(ent, "GOV_CONTRACTS", "Published", day=first - dt.timedelta(days=1))
    b.case("government_contracts/last-day-before-the-two-financial-years", ent,
           "Government contracts: none => N/A (a contract before the two financial years)",
           "government_contracts", "N/A", matches=[match(t, r, "abn")])  # fmt: skip
