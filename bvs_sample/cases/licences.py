"""Planted cases of the trades' state licences (QBCC, NSW Fair Trading, VBA, SA CBS)."""

from __future__ import annotations

from typing import Any

from bvs_sample.cases.builder import Builder, Ent, match


def plant_licence(b: Builder) -> None:
    t = "match_licences"

    def trades(code: str = "3232", **kw: Any) -> Ent:
        ent = b.company(**kw)
        b.industry(ent, code)
        return ent

    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE")
    b.case("licence/active-correct-trade", ent, "Active licence of correct class => PASS",
           "licence", "PASS", not_flags=("LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE"),
           matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades("3231", state="VIC")
    r = b.licence(ent, "VBA", "plumbing", "ACTIVE")
    b.case("licence/active-other-state-register", ent,
           "Active licence of correct class => PASS (NSW, VIC and SA registers)", "licence", "PASS",
           not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "EXPIRED", expiry=b.months(11))
    b.case("licence/expired-11-months", ent,
           "Expired within 12 months, or conditional licence => WARN (no active licence: "
           "LICENCE_MISMATCH fires)", "licence", "WARN", flags=("LICENCE_MISMATCH",),
           not_flags=("LICENCE_SUSPENDED_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "EXPIRED", expiry=b.months(13))
    b.case("licence/expired-13-months", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): expired more than 12 months ago", "licence", "WARN",
           flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "CONDITIONAL")
    b.case("licence/conditional", ent, "Expired within 12 months, or conditional licence => WARN",
           "licence", "WARN", not_flags=("LICENCE_SUSPENDED_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    for status in ("SUSPENDED", "CANCELLED"):
        ent = trades("3011")
        r = b.licence(ent, "QBCC", "building", status)
        b.case(f"licence/{status.lower()}", ent,
               "Suspended or cancelled licence => FAIL (and LICENCE_SUSPENDED_ACTIVE fires)",
               "licence", "FAIL", flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"),
               not_flags=("COMPLIANCE_DUAL_FAILURE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades("3011")
    rs = [match(t, b.licence(ent, "QBCC", "building", "SUSPENDED"), "abn"),
          match(t, b.licence(ent, "NSW_FAIR_TRADING", "building", "ACTIVE", k=1), "abn")]  # fmt: skip
    b.case("licence/suspended-with-active-alternative", ent,
           "LICENCE_SUSPENDED_ACTIVE: a suspended or cancelled licence and no active alternative "
           "(here there is one: best licence decides, PASS)", "licence", "PASS",
           not_flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"), matches=rs)  # fmt: skip
    b.case("licence/trades-no-licence", trades("3231"),
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH fires)",
           "licence", "WARN", flags=("LICENCE_MISMATCH",))  # fmt: skip
    # docs/decisions/17-a-register-that-does-not-cover-says-nothing.md: no loaded register covers WA, NT or TAS (seed licence_registers);
    # a QLD, NSW, VIC or SA trades entity without a licence is the neighbour above
    for state, postcode in (("WA", "6000"), ("TAS", "7000")):
        ent = trades("3231", state=state, postcode=postcode)
        b.case(f"licence/trades-state-not-covered-{state.lower()}", ent,
               "No licence register covers the entity's state => N/A (decided; no "
               "LICENCE_MISMATCH)", "licence", "N/A", not_flags=("LICENCE_MISMATCH",))  # fmt: skip
    ent = trades("3232", state="WA", postcode="6000")
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE")
    b.case("licence/state-not-covered-but-licensed-elsewhere", ent,
           "Active licence of correct class => PASS (a WA entity licensed by the QBCC: a "
           "licence found decides before coverage)", "licence", "PASS",
           not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    # the best licence of the entity's trade decides (decision 4), and the flag reads the
    # licences the tile reads
    ent = trades()
    rs = [match(t, b.licence(ent, "QBCC", "electrical", "SUSPENDED"), "abn"),
          match(t, b.licence(ent, "QBCC", "electrical", "CONDITIONAL", k=1), "abn")]  # fmt: skip
    b.case("licence/conditional-beside-suspended", ent,
           "Expired within 12 months, or conditional licence => WARN (a conditional licence "
           "beside a suspended one of the same trade: best licence decides)", "licence", "WARN",
           not_flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"), matches=rs)  # fmt: skip
    ent = trades("3011")
    rs = [match(t, b.licence(ent, "QBCC", "building", "CANCELLED"), "abn"),
          match(t, b.licence(ent, "QBCC", "electrical", "ACTIVE", k=1), "abn")]  # fmt: skip
    b.case("licence/cancelled-beside-other-trade-active", ent,
           "Suspended or cancelled licence => FAIL (and LICENCE_SUSPENDED_ACTIVE fires: an active "
           "licence of another trade is no alternative)", "licence", "FAIL",
           flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"), matches=rs)  # fmt: skip
    ent = trades("3232")
    r = b.licence(ent, "QBCC", "building", "CANCELLED")
    b.case("licence/cancelled-other-trade-only", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): a cancelled licence of another trade is not the entity's licence",
           "licence", "WARN", flags=("LICENCE_MISMATCH",),
           not_flags=("LICENCE_SUSPENDED_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    b.industry(ent, "6932")
    b.case("licence/non-trades", ent, "Non-trades industry => N/A", "licence", "N/A",
           not_flags=("LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE"))  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", abn=False, acn=True)
    b.case("licence/by-acn", ent, "Active licence of correct class => PASS (ACN exact)",
           "licence", "PASS", not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "acn")])  # fmt: skip
    ent = trades()
    name = ent.name.replace("PTY LTD", "P/L")
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", abn=False, name=name)
    b.case("licence/by-name", ent, "Active licence of correct class => PASS (name at least 0.8)",
           "licence", "PASS", not_flags=("LICENCE_MISMATCH",),
           matches=[match(t, r, "name", name=name)])  # fmt: skip
    ent = trades()
    decoy = b.near(ent.name, 0.8)
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", abn=False, name=decoy)
    b.case("licence/name-decoy", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): the only licence's name is below 0.8", "licence", "WARN",
           flags=("LICENCE_MISMATCH",), non_matches=[match(t, r, name=decoy)])  # fmt: skip
    # A licence that lists an ABN is that entity's alone (docs/matching.md, "A record's own
    # identifier").
    ent, holder = trades(), trades()
    r = b.licence(holder, "QBCC", "electrical", "ACTIVE", name=ent.name)
    b.case("licence/licence-of-another-abn-with-the-same-name", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): the licence with this name lists another ABN", "licence", "WARN",
           flags=("LICENCE_MISMATCH",), non_matches=[match(t, r)])  # fmt: skip
    b.case("licence/licence-under-its-abn-with-another-name", holder,
           "Active licence of correct class => PASS: the ABN decides, not the name", "licence",
           "PASS", not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    # COMPLIANCE_DUAL_FAILURE
    s = "COMPLIANCE_DUAL_FAILURE: Both the licence check and the adverse-records check return FAIL"
    ent = trades("3011")
    rl = b.licence(ent, "QBCC", "building", "SUSPENDED")
    ra = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE")
    b.case("compliance_dual_failure/licence-and-conduct-fail", ent, s, "licence", "FAIL",
           flags=("COMPLIANCE_DUAL_FAILURE", "LICENCE_SUSPENDED_ACTIVE", "ADVERSE_ACTIVE"),
           matches=[match(t, rl, "abn"), match("match_adverse", ra, "abn")])  # fmt: skip
    ent = trades("3011")
    rl = b.licence(ent, "QBCC", "building", "CANCELLED")
    ra = b.adverse(ent, "QBCC", "HIGH", "ACTIVE")
    b.case("compliance_dual_failure/conduct-only-warn", ent,
           s + " (conduct is WARN on an active HIGH record: no flag)", "conduct", "WARN",
           flags=("ADVERSE_ACTIVE", "LICENCE_SUSPENDED_ACTIVE"),
           not_flags=("COMPLIANCE_DUAL_FAILURE",),
           matches=[match(t, rl, "abn"), match("match_adverse", ra, "abn")])  # fmt: skip
