"""Planted cases of the person registers: banned persons and organisations, liquidators,
financial advisers."""

from __future__ import annotations

import datetime as dt

from bvs_sample import formats as F
from bvs_sample.cases.builder import Builder, Ent, Officer, match
from bvs_sample.families.advisers import adviser_row
from pipelines.matching import person_names_match


def plant_persons(b: Builder) -> None:
    """Liquidators, financial advisers and banned persons against directors and sole traders."""

    def with_director(middle: str = "") -> tuple[Ent, Officer]:
        ent = b.company()
        person = b.officer()
        person.middle = middle
        b.officeholder(ent.acn, person)
        return ent, person

    def liquidator(ent: Ent, name: str, k: int = 0, status: str = "Registered",
                   start: dt.date | None = None) -> dict[str, str]:  # fmt: skip
        number = f"9P{ent.j:05d}{k}"
        b.row("liquidators", REGISTER_NAME="Registered Liquidators", LIQ_NUM=number, LIQ_NAME=name,
              LIQ_START_DT=start or b.months(90), LIQ_STATUS=status,
              LIQ_SUSP_DT=b.months(2) if status == "Suspended" else "", LIQ_ADD_LOCAL="BRISBANE",
              LIQ_ADD_STATE="QLD", LIQ_ADD_PCODE="4000", LIQ_ADD_COUNTRY="AUSTRALIA",
              LIQ_FIRM=f"{b.word()} INSOLVENCY")  # fmt: skip
        return {"liquidator_number": number}

    s = "LIQUIDATOR_LINKED: A director name matches the register of registered liquidators."
    t = "match_liquidators"
    ent, person = with_director(middle="JAMES")
    plain = Officer(person.given, person.family, None)
    assert person_names_match(person.surname_first(), plain.given_first())
    b.case("liquidator_linked/director-is-registered-liquidator", ent, s,
           flags=("LIQUIDATOR_LINKED",),
           matches=[match(t, liquidator(ent, plain.given_first()), "director_name")])  # fmt: skip
    ent, person = with_director()
    other = Officer(
        "ZEPHYRINUS" if person.given != "ZEPHYRINUS" else "QUENTIN", person.family, None
    )
    assert not person_names_match(person.surname_first(), other.given_first())
    b.case("liquidator_linked/same-surname-other-given-name", ent, s + " (another person)",
           not_flags=("LIQUIDATOR_LINKED",),
           non_matches=[match(t, liquidator(ent, other.given_first()))])  # fmt: skip
    # "registered" means registered on the as-of date (issue 19): the name still matches a
    # cancelled or suspended registration, or one starting after the as-of date
    for status, start, label in (("Cancelled", None, "cancelled"), ("Suspended", None, "suspended"),
                                 ("Registered", b.ahead(30), "registered-after-as-of")):  # fmt: skip
        ent, person = with_director()
        b.case(f"liquidator_linked/{label}", ent,
               s + f" (the matching registration is {label.replace('-', ' ')}: not registered)",
               not_flags=("LIQUIDATOR_LINKED",),
               matches=[match(t, liquidator(ent, person.given_first(), status=status, start=start),
                              "director_name")])  # fmt: skip
    ent = b.company()
    person = b.officer()
    b.officeholder(ent.acn, person, ceased=b.months(6))
    b.officeholder(ent.acn, b.officer())
    b.case("liquidator_linked/former-director", ent, s + " (a former director is no director)",
           not_flags=("LIQUIDATOR_LINKED",),
           non_matches=[match(t, liquidator(ent, person.given_first()))])  # fmt: skip
    ent = b.individual()
    b.case("liquidators/sole-trader-own-name", ent,
           "registered liquidators: no ABN, matched by person name only",
           matches=[match(t, liquidator(ent, Officer(*ent.person, None).given_first()
                                        if ent.person else ent.name), "person_name")])  # fmt: skip

    # financial advisers
    t = "match_financial_advisers"
    fmt = b.targets["advisers"]

    def d(key: str, day: int | None) -> str:
        return fmt.date(dt.date.fromordinal(day)) if day else ""

    licensee = b.company()
    lic_num = f"2P{licensee.j:05d}"
    b.row("afs", REGISTER_NAME="AFS Licensee", AFS_LIC_NUM=lic_num, AFS_LIC_NAME=licensee.name,
          AFS_LIC_ABN_ACN=licensee.abn, AFS_LIC_START_DT=b.months(100), AFS_LIC_PRE_FSR="N",
          AFS_LIC_ADD_LOCAL="BRISBANE", AFS_LIC_ADD_STATE="QLD", AFS_LIC_ADD_PCODE="4000",
          AFS_LIC_ADD_COUNTRY="AUSTRALIA", AFS_LIC_CONDITION="1. Planted licensee\n2. Retail clients")  # fmt: skip

    def adviser(number_of: Ent, name: str, abn: str, *, ceased: bool = False,
                banned: bool = False) -> dict[str, str]:  # fmt: skip
        number = f"P{number_of.j:08d}"
        start = b.months(80).toordinal()
        end = b.months(10).toordinal() if ceased or banned else None
        overall = "Banned" if banned else "Not Registered" if ceased else "Registered"
        row = adviser_row(d, number, name, abn, licensee.name, lic_num, licensee.abn, start, end,
                          overall, banned_from=b.months(10).toordinal() if banned else None)  # fmt: skip
        b.plan.rows.setdefault("advisers", []).append(row)
        return {"adviser_number": number}

    s = "FINANCIAL_ADVISER_BANNED: A director matches by name a financial-adviser register entry with banned=true."
    ent, person = with_director()
    b.case("financial_adviser_banned/director-is-banned-adviser", ent, s,
           flags=("FINANCIAL_ADVISER_BANNED",),
           matches=[match(t, adviser(ent, person.given_first(), "", banned=True), "director_name")])  # fmt: skip
    ent, person = with_director()
    b.case("financial_adviser_banned/director-is-registered-adviser", ent,
           s + " (registered, not banned: no flag)", not_flags=("FINANCIAL_ADVISER_BANNED",),
           matches=[match(t, adviser(ent, person.given_first(), ""), "director_name")])  # fmt: skip
    for label, kw, outcome, row in (
        ("registered", {}, "PASS", "Currently registered => PASS"),
        ("ceased", {"ceased": True}, "WARN", "Ceased or Not Registered => WARN"),
        ("prohibited", {"banned": True}, "FAIL", "Prohibition order active => FAIL"),
    ):
        ent = b.individual()
        name = Officer(*ent.person, None).given_first() if ent.person else ent.name
        b.case(f"financial_advisers/{label}", ent, row, "financial_advisers", outcome,
               matches=[match(t, adviser(ent, name, ent.abn, **kw), "abn")])  # fmt: skip
    ent = b.individual()
    name = Officer(*ent.person, None).given_first() if ent.person else ent.name
    b.case("financial_advisers/sole-trader-by-name", ent,
           "Currently registered => PASS (ABN plus name similarity at least 0.8: by name)",
           "financial_advisers", "PASS",
           matches=[match(t, adviser(ent, name, ""), "name", name=name)])  # fmt: skip
    b.case("financial_advisers/not-found", b.individual(), "Not found => N/A",
           "financial_advisers", "N/A")  # fmt: skip

    # banned and disqualified
    t = "match_banned_organisations"

    def org(ent: Ent, name: str, end: str, *, acn: bool = False) -> dict[str, str]:
        b.row("banned_organisations", REGISTER_NAME="Banned and Disqualified Organisations",
              BD_ORG_NAME=name, BD_ORG_ACN=ent.acn if acn else "",
              BD_ORG_TYPE="AFS Banned & Disqualified", BD_ORG_START_DT=b.months(30),
              BD_ORG_END_DT=end, BD_ORG_COMMENT="Planted case")  # fmt: skip
        return {"organisation_name": name.replace(F.NBSP, " ")}

    fut = b.ahead(700).strftime("%d/%m/%Y")
    past = b.months(2).strftime("%d/%m/%Y")
    b.case("banned_disqualified/no-match", b.company(), "No match => PASS",
           "banned_disqualified", "PASS")  # fmt: skip
    ent = b.company()
    b.case("banned_disqualified/organisation-by-acn-permanent", ent,
           "Active ban or disqualification => FAIL (end date 'Permanent banning')",
           "banned_disqualified", "FAIL",
           matches=[match(t, org(ent, ent.name, "Permanent banning", acn=True), "acn")])  # fmt: skip
    ent = b.company()
    nbsp = ent.name.replace(" ", F.NBSP, 1)
    b.case("banned_disqualified/organisation-by-name-nbsp", ent,
           "Active ban or disqualification => FAIL (name with a non-breaking space, similarity "
           "at least 0.75)", "banned_disqualified", "FAIL",
           matches=[match(t, org(ent, nbsp, fut), "name", name=nbsp)])  # fmt: skip
    ent = b.company()
    b.case("banned_disqualified/organisation-expired", ent, "Expired ban => WARN",
           "banned_disqualified", "WARN",
           matches=[match(t, org(ent, ent.name, past, acn=True), "acn")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.75)
    b.case("banned_disqualified/organisation-name-decoy", ent,
           "No match => PASS (organisation name below 0.75)", "banned_disqualified", "PASS",
           non_matches=[match(t, org(ent, decoy, fut), name=decoy)])  # fmt: skip
    t = "match_banned_persons"

    def banned(name: str, kind: str, end: dt.date | None) -> dict[str, str]:
        start = b.months(40)
        b.row("banned_persons", REGISTER_NAME="Banned and Disqualified Persons", BD_PER_NAME=name,
              BD_PER_TYPE=kind, BD_PER_DOC_NUM="P000001", BD_PER_START_DT=start,
              BD_PER_END_DT=end, BD_PER_ADD_LOCAL="BRISBANE", BD_PER_ADD_STATE="QLD",
              BD_PER_ADD_PCODE="4000", BD_PER_ADD_COUNTRY="AUSTRALIA")  # fmt: skip
        return {"person_name": name, "start_date": start.isoformat()}

    for label, end, outcome, row in (
        ("active", None, "FAIL", "Active ban or disqualification => FAIL"),
        ("expired", b.months(3), "WARN", "Expired ban => WARN"),
    ):
        ent = b.individual()
        name = f"{ent.person[1]}, {ent.person[0]}" if ent.person else ent.name
        b.case(f"banned_disqualified/person-sole-trader-{label}", ent, row,
               "banned_disqualified", outcome,
               matches=[match(t, banned(name, "Banned Securities", end), "person_name", name=name)])  # fmt: skip
    ent, person = with_director()
    b.case("banned_disqualified/director-disqualified", ent,
           "Active ban or disqualification => FAIL (a current director is a disqualified person)",
           "banned_disqualified", "FAIL",
           matches=[match(t, banned(person.surname_first(), "Disq. Director", b.ahead(900)), "director_name")])  # fmt: skip

    # A prohibition is read from the banned and disqualified persons register (a
    # financial-services banning naming the adviser), not only from a status word (issue 19):
    # these advisers' own register rows say "Not Registered", as real ones do
    t = "match_financial_advisers"
    for label, kind, end, outcome, row in (
        ("afs-banning", "AFS Banned & Disqualified", None, "FAIL",
         "Prohibition order active => FAIL (an AFS banning in the banned persons register)"),
        ("securities-banning", "Banned Securities", b.ahead(400), "FAIL",
         "Prohibition order active => FAIL (a securities banning, in force until next year)"),
        ("credit-banning", "Credit Banned & Disqualified", None, "WARN",
         "Ceased or Not Registered => WARN (a credit banning is no financial-advice prohibition)"),
        ("afs-banning-ended", "AFS Banned & Disqualified", b.months(3), "WARN",
         "Ceased or Not Registered => WARN (the AFS banning ended before the as-of date)"),
    ):  # fmt: skip
        ent = b.individual()
        assert ent.person is not None
        officer = Officer(*ent.person, None)
        banned(officer.surname_first(), kind, end)
        b.case(f"financial_advisers/{label}", ent, row, "financial_advisers", outcome,
               matches=[match(t, adviser(ent, officer.given_first(), ent.abn, ceased=True), "abn")])  # fmt: skip
    ent, person = with_director()
    banned(person.surname_first(), "AFS Banned & Disqualified", None)
    b.case("financial_adviser_banned/director-banned-in-banning-register", ent,
           "FINANCIAL_ADVISER_BANNED: A director matches by name a financial-adviser register "
           "entry with banned=true (banned: an AFS banning names the adviser)",
           flags=("FINANCIAL_ADVISER_BANNED",),
           matches=[match(t, adviser(ent, person.given_first(), "", ceased=True), "director_name")])  # fmt: skip
