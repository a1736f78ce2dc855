"""Planted cases of the ABR checks: ABN status and GST."""

from __future__ import annotations

from bvs_sample.cases.builder import ALL_FLAGS, Builder

# docs/decisions/21-decisive-identity-failure.md: a FAIL on abn_status, company_status, insolvency or gst puts the risk
# at least high, whatever the assurance score.
IDENTITY_RISK = ("high", "critical")


def plant_abn_status(b: Builder) -> None:
    s = "ABN active, age at least 6 months, name match at least 90% => PASS"
    b.case("abn_status/active-7-months", b.company(status_from=b.months(7)), s, "abn_status", "PASS",
           not_flags=ALL_FLAGS, risk=("low",), identity_failures=())  # fmt: skip
    b.case("abn_status/active-exactly-6-months", b.company(status_from=b.months(6)), s,
           "abn_status", "PASS")  # fmt: skip
    b.case("abn_status/active-5-months", b.company(status_from=b.months(5), reg=b.months(5)),
           "ABN active, age 1 to 6 months => WARN", "abn_status", "WARN")  # fmt: skip
    b.case("abn_status/active-2-weeks", b.individual(status_from=b.ago(14)),
           "ABN active, age under 1 month => WARN (weight of concern rises with recency)",
           "abn_status", "WARN")  # fmt: skip
    b.case("abn_status/cancelled", b.individual(status="CAN", status_from=b.months(3)),
           "ABN cancelled, suspended or not found => FAIL", "abn_status", "FAIL",
           risk=IDENTITY_RISK, identity_failures=("abn_status",))  # fmt: skip
    missing = b.numbers.abn_for(b.body_index)
    b.body_index += 1
    b.case("abn_status/not-found", None, "ABN cancelled, suspended or not found => FAIL",
           "abn_status", "FAIL", abn=missing, in_abr=False, risk=IDENTITY_RISK,
           identity_failures=("abn_status",))  # fmt: skip
    # Reinstated: the company and its business name are old, the ABN status only 2 months.
    ent = b.company(status_from=b.months(2), reg=b.months(130))
    b.bn(ent, f"{b.word()} {b.word()}", reg=b.months(100))
    b.case("abn_status/reinstated-2-months", ent,
           "ABN age is measured from the status_from date of the business register record, so a "
           "cancelled-and-reinstated ABN restarts the clock.", "abn_status", "WARN")  # fmt: skip
    b.case("abn_status/company-deregistered",
           b.company(co_status="DRGD", dereg=b.months(2)),
           "Corporate-register company status deregistered => FAIL", "abn_status", "FAIL",
           risk=IDENTITY_RISK, identity_failures=("abn_status", "company_status"))  # fmt: skip


def plant_gst(b: Builder) -> None:
    b.case("gst/registered-4-months", b.company(gst=("ACT", b.months(4))),
           "Registered, age at least 3 months => PASS", "gst", "PASS")  # fmt: skip
    b.case("gst/registered-2-months", b.company(gst=("ACT", b.months(2))),
           "Registered, age under 3 months => WARN", "gst", "WARN")  # fmt: skip
    b.case("gst/not-registered-company", b.company(gst=("NON", None)),
           "Not registered; company or partnership => WARN", "gst", "WARN",
           identity_failures=())  # fmt: skip
    b.case("gst/not-registered-partnership", b.other(code="PTR", gst=None),
           "Not registered; company or partnership => WARN", "gst", "WARN")  # fmt: skip
    b.case("gst/not-registered-individual", b.individual(),
           "Not registered; individual or sole trader => N/A", "gst", "N/A")  # fmt: skip


def plant_identity_risk(b: Builder) -> None:
    """A decisive identity failure among otherwise clean tiles: the assurance score stays
    high (about 80), the risk does not follow it down to low (docs/decisions/21-decisive-identity-failure.md); and the
    neighbour with the same clean tiles and an active ABN, low."""
    s = "ABN cancelled, suspended or not found => FAIL; a decisive identity failure is never low risk"
    ent = b.company(abn_status="CAN", status_from=b.months(4), gst=("ACT", b.months(60)))
    b.case("risk/cancelled-abn-of-a-registered-company", ent, s, "abn_status", "FAIL",
           risk=("high",), identity_failures=("abn_status",))  # fmt: skip
    ent = b.company(status_from=b.months(60), gst=("ACT", b.months(60)))
    b.case("risk/active-abn-of-a-registered-company", ent,
           "ABN active, age at least 6 months => PASS; no identity failure: the risk follows the score",
           "abn_status", "PASS", risk=("low",), identity_failures=())  # fmt: skip
