"""Planted cases of insolvency: external administration, and gazette notices."""

from __future__ import annotations

from bvs_sample.cases.builder import Builder, match


def plant_insolvency(b: Builder) -> None:
    t = "match_insolvency"
    ent = b.company(co_status="EXAD")
    b.case("insolvency/exad-by-abn", ent, "Found with status EXAD => FAIL", "insolvency", "FAIL",
           matches=[match(t, {"acn": ent.acn}, "abn")], risk=("high", "critical"),
           identity_failures=("insolvency",))  # fmt: skip
    ent = b.company(co_status="DISS", abn_status="CAN")
    b.case("insolvency/diss-by-abn", ent,
           "only status EXAD or DISS retained (a DISS company is on the register)",
           matches=[match(t, {"acn": ent.acn}, "abn")])  # fmt: skip
    # name matches: a partnership trading under the name of a company in administration
    ent = b.other()
    acn = b.next_acn()
    b.company_row(f"{ent.name} PTY. LTD.", acn, "", "EXAD", b.months(80))
    b.case("insolvency/exad-name-match", ent,
           "Found with status EXAD => FAIL (name trigram above 0.75 against company_name)",
           "insolvency", "FAIL",
           matches=[match(t, {"acn": acn}, "name", name=f"{ent.name} PTY. LTD.")])  # fmt: skip
    ent = b.other()
    acn = b.next_acn()
    current = b.company_name()
    b.company_row(current, acn, "", "EXAD", b.months(80))
    b.company_row(f"{ent.name} PTY LTD", acn, "", "EXAD", b.months(80), current=current,
                  current_start=b.months(20))  # fmt: skip
    b.case("insolvency/exad-former-name-match", ent,
           "Found with status EXAD => FAIL (name trigram above 0.75 against company_name and "
           "current_name: here a former name)", "insolvency", "FAIL",
           matches=[match(t, {"acn": acn}, "name", name=f"{ent.name} PTY LTD")])  # fmt: skip
    ent = b.other()
    acn = b.next_acn()
    decoy = b.near(ent.name, 0.75)
    b.company_row(decoy, acn, "", "EXAD", b.months(80))
    b.case("insolvency/name-decoy", ent, "Not found => PASS (name similarity not above 0.75)",
           "insolvency", "PASS", non_matches=[match(t, {"acn": acn}, name=decoy)])  # fmt: skip
    b.case("insolvency/not-found", b.company(), "Not found => PASS", "insolvency", "PASS")


def plant_gazette(b: Builder) -> None:
    t = "match_gazette"

    ent = b.company()
    b.case("gazette/notice-by-acn", ent, "Matching notice => FAIL", "gazette", "FAIL",
           matches=[match(t, b.gazette_notice(ent, ent.name, acn=ent.acn), "acn")])  # fmt: skip
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PTY. LIMITED")
    b.case("gazette/notice-by-name", ent, "Matching notice => FAIL (name trigram above 0.72)",
           "gazette", "FAIL", matches=[match(t, b.gazette_notice(ent, name), "name", name=name)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.72)
    b.case("gazette/name-decoy", ent, "No matching notices => PASS (similarity not above 0.72)",
           "gazette", "PASS", non_matches=[match(t, b.gazette_notice(ent, decoy), name=decoy)])  # fmt: skip
    # A notice that names an ACN is that company's alone (docs/matching.md, "A record's own
    # identifier").
    ent, holder = b.company(), b.company()
    r = b.gazette_notice(holder, ent.name, acn=holder.acn)
    b.case("gazette/notice-of-another-acn-with-the-same-name", ent,
           "No matching notices => PASS (a notice under another ACN, with this company's name)",
           "gazette", "PASS", non_matches=[match(t, r)])  # fmt: skip
    b.case("gazette/notice-under-its-acn-with-another-name", holder,
           "Matching notice => FAIL: the ACN decides, not the name", "gazette", "FAIL",
           matches=[match(t, r, "acn")])  # fmt: skip
    b.case("gazette/no-notice", b.company(), "No matching notices => PASS", "gazette", "PASS")
