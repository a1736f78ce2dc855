"""Sample supplier ledgers: two customers' ledgers as finance teams export them.

* ``ledgers/harbour-health/suppliers.csv``: Windows-1252 (a name with É), comma-separated,
  ``Annual Spend (AUD)`` with ``$`` and thousands separators, ``Y``/``N`` and ``yes``/``no``,
  two exports pasted together (a blank line, then the header again), a trailing totals row,
  and every intake fault of docs/ledgers.md: ABNs with spaces and a leading apostrophe, one a
  spreadsheet turned into ``5.1824753556E+10``, a wrong check digit, ten digits, an ACN in
  the ABN column (beside nine digits that are no ACN, and the ACN of no registered
  company), a duplicate supplier_ref, the same ABN twice, an unknown state, a state spelled
  out, a postcode that lost its leading zero, rows without an ABN (found by name, ambiguous,
  not found, a name that starts with "Total");
* ``ledgers/coastal-council/vendors.xlsx``: one sheet, ABNs as number cells (one with a
  number format), a blank row, a totals row, and cells the spreadsheet broke: ``#N/A`` and
  ``#DIV/0!`` in the ABN column, an ABN formatted as a date, ``#DIV/0!`` in the spend.

Each ledger-aware rule row of docs/rules.md (decisions 13-15 in docs/decisions/) has a dedicated entity and a
planted row (:func:`plant_ledger_cases`, called by ``build_cases``): the invoice name at 0.9
and 0.5 similarity exactly and on either side, A$75,000 exactly, the same state with another
postcode, and a supplier whose ABN status and GST registration change between the as-of date
and five days later. The rest of each ledger is background suppliers read back from the
sample's own ABR extract. ``_sample/planted.json`` lists it all under ``ledgers``: the files,
the supplier cases by line, and the rows intake ignores (``ignored``: the header again, the
totals rows).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bvs_sample import words as W
from pipelines.matching import normalise_name, trigram_similarity

if TYPE_CHECKING:
    from bvs_sample.cases.builder import Builder

CSV_LEDGER = ("harbour-health", "suppliers")
XLSX_LEDGER = ("coastal-council", "vendors")
HEADER = (
    "Supplier Ref", "ABN", "Supplier Name", "Domain", "Email", "Phone", "State", "Postcode",
    "Annual Spend (AUD)", "GST Charged",
)  # fmt: skip
KEYS = (
    "supplier_ref", "abn", "supplier_name", "domain", "email", "phone", "state", "postcode",
    "annual_spend_aud", "gst_charged",
)  # fmt: skip
LATER_DAYS = 5  # the second as-of date of the changing supplier: five days later
BACKGROUND = {CSV_LEDGER: 1200, XLSX_LEDGER: 800}


def _similarity(a: str, b: str) -> float:
    return trigram_similarity(normalise_name(a) or "", normalise_name(b) or "")


def _spaced(abn: str) -> str:
    return f"{abn[:2]} {abn[2:5]} {abn[5:8]} {abn[8:]}"


class _Planter:
    def __init__(self, b: Builder) -> None:
        self.b = b
        self.n = 0

    def ref(self, prefix: str = "HH") -> str:
        self.n += 1
        return f"{prefix}-P{self.n:03d}"

    def row(
        self,
        ledger: tuple[str, str],
        *,
        ref: str | None = None,
        abn: str = "",
        name: str = "",
        state: str = "",
        postcode: str = "",
        spend: str = "",
        gst: str = "",
        case: dict[str, Any] | None = None,
        cells: dict[str, tuple[str, Any]] | None = None,
    ) -> str:
        """One ledger row; ``cells`` writes a workbook cell as a spreadsheet holds it:
        ``("error", "#N/A")``, ``("date", n)`` (n formatted as a date), ``("number", n)``."""
        ref = ref or self.ref("HH" if ledger == CSV_LEDGER else "CC")
        self.b.plan.ledger_rows.setdefault(ledger, []).append(
            {
                "cells": cells or {},
                "supplier_ref": ref,
                "abn": abn,
                "supplier_name": name,
                "domain": "",
                "email": "",
                "phone": "",
                "state": state,
                "postcode": postcode,
                "annual_spend_aud": spend,
                "gst_charged": gst,
            }
        )
        if case is not None:
            self.b.plan.ledger_cases.append(
                {"customer": ledger[0], "ledger": ledger[1], "supplier_ref": ref, **case}
            )
        return ref


def _name_at(b: Builder, similarity: float) -> tuple[str, str]:
    """A (legal name, invoice name) pair exactly ``similarity`` apart: the invoice name is
    the legal name with words added (their trigrams are the difference)."""
    for _ in range(100):
        first = b.word()
        for _ in range(2000):
            base = f"{first} {W.syllable_word(b.rng.random, 1 + int(b.rng.random() * 4))}"
            if similarity > 0.75:  # one short word of k letters adds k + 1 trigrams
                extras = ["Q", "QX", "QXZ", "QXZJ"]
            else:
                extras = [
                    " ".join(
                        W.syllable_word(b.rng.random, 1 + int(b.rng.random() * 3))
                        for _ in range(1 + int(b.rng.random() * 4))
                    )
                    for _ in range(5)
                ]
            for extra in extras:
                invoice = f"{base} {extra}"
                if _similarity(base, invoice) == similarity:
                    return f"{base} PTY LTD", f"{invoice} PTY LTD"
    raise AssertionError(f"no name pair at similarity {similarity}")


def _name_between(b: Builder, low: float, high: float) -> tuple[str, str]:
    """A (legal name, invoice name) pair at least ``low`` and below ``high`` similar."""
    for _ in range(200):
        base = f"{b.word()} {b.word()}"
        for _ in range(400):
            extra = " ".join(
                W.syllable_word(b.rng.random, 1 + int(b.rng.random() * 3))
                for _ in range(1 + int(b.rng.random() * 4))
            )
            invoice = f"{base} {extra}"
            if low <= _similarity(base, invoice) < high:
                return f"{base} PTY LTD", f"{invoice} PTY LTD"
    raise AssertionError(f"no name pair between {low} and {high}")


def plant_ledger_cases(b: Builder) -> None:
    """Dedicated entities and ledger rows for every ledger rule row and intake fault."""
    p = _Planter(b)
    L = CSV_LEDGER

    def case(
        case_id: str, spec: str, check: str | None, status: str | None, **more: Any
    ) -> dict[str, Any]:
        return {"id": case_id, "spec": spec, "check": check, "status": status, **more}

    # -- ABN status: the invoice name (docs/decisions/13-invoice-name.md) -------------------------------
    ent = b.company(state="NSW", postcode="2000")
    p.row(L, abn=ent.abn, name=ent.name.title(), state="NSW", postcode="2000", spend="$12,000.00", gst="Y",
          case=case("ledger/abn_status/name-matches", "ABN active, age at least 6 months, name match at least 90% => PASS", "abn_status", "PASS"))  # fmt: skip
    ent = b.company(state="NSW", postcode="2000")
    trading = f"{b.word()} SUPPLIES"
    b.bn(ent, trading)
    p.row(L, abn=ent.abn, name=trading, state="NSW", postcode="2000", spend="$8,500", gst="Y",
          case=case("ledger/abn_status/business-name-matches", "ABN active, age at least 6 months, name match at least 90% => PASS (a registered business name)", "abn_status", "PASS"))  # fmt: skip
    legal, invoice = _name_at(b, 0.9)
    ent = b.company(legal, state="NSW", postcode="2000")
    p.row(L, abn=ent.abn, name=invoice, state="NSW", postcode="2000", spend="$9,100", gst="Y",
          case=case("ledger/abn_status/similarity-exactly-0.9", "ABN active, age at least 6 months, name match at least 90% => PASS (0.9 exactly)", "abn_status", "PASS", similarity=0.9))  # fmt: skip
    legal, invoice = _name_between(b, 0.8, 0.9)
    ent = b.company(legal, state="NSW", postcode="2000")
    p.row(L, abn=ent.abn, name=invoice, state="NSW", postcode="2000", spend="$4,000", gst="Y",
          case=case("ledger/abn_status/similarity-just-below-0.9", "ABN active, name differs from the invoice name (match 50% to 90%) => WARN (decided)", "abn_status", "WARN", similarity=round(_similarity(invoice, ent.name), 6)))  # fmt: skip
    legal, invoice = _name_at(b, 0.5)
    ent = b.company(legal, state="NSW", postcode="2000")
    p.row(L, abn=ent.abn, name=invoice, state="NSW", postcode="2000", spend="$3,300", gst="Y",
          case=case("ledger/abn_status/similarity-exactly-0.5", "ABN active, name differs from the invoice name (match 50% to 90%) => WARN (decided): 0.5 exactly is not below 0.5", "abn_status", "WARN", similarity=0.5))  # fmt: skip
    legal, invoice = _name_between(b, 0.3, 0.5)
    ent = b.company(legal, state="NSW", postcode="2000")
    p.row(L, abn=ent.abn, name=invoice, state="NSW", postcode="2000", spend="$2,750", gst="Y",
          case=case("ledger/abn_status/similarity-below-0.5", "Registered name differs materially from invoice name => FAIL", "abn_status", "FAIL", similarity=round(_similarity(invoice, ent.name), 6)))  # fmt: skip
    ent = b.company(state="NSW", postcode="2000")
    p.row(L, abn=ent.abn, name="", state="NSW", postcode="2000", spend="$1,000", gst="Y",
          case=case("ledger/abn_status/no-invoice-name", "ABN active, age at least 6 months => PASS (no invoice name: CONTRACT decision 2)", "abn_status", "PASS"))  # fmt: skip
    # changes between two as-of dates: 6 months less 3 days old, GST 3 months less 3 days
    ent = b.company(state="NSW", postcode="2000", status_from=b.months(6, days=-3),
                    gst=("ACT", b.months(3, days=-3)))  # fmt: skip
    p.row(L, abn=ent.abn, name=ent.name, state="NSW", postcode="2000", spend="$20,000", gst="Y",
          case=case("ledger/changes/ages-into-pass", "ABN active, age 1 to 6 months => WARN, then age at least 6 months => PASS five days later", "abn_status", "WARN",
                    later={"days": LATER_DAYS, "statuses": {"abn_status": "PASS", "gst": "PASS"}}))  # fmt: skip

    # -- GST: billing above the threshold (docs/decisions/14-gst-billing.md) --------------------------
    gst_fail = "Not registered; appears to bill above the GST threshold => FAIL"
    ent = b.company(gst=("NON", None), state="VIC", postcode="3000")
    p.row(L, abn=ent.abn, name=ent.name, state="VIC", postcode="3000", spend="$1,200.00", gst="Y",
          case=case("ledger/gst/charges-gst-unregistered", gst_fail, "gst", "FAIL"))  # fmt: skip
    ent = b.company(gst=("NON", None), state="VIC", postcode="3000")
    p.row(L, abn=ent.abn, name=ent.name, state="VIC", postcode="3000", spend="$75,000.00", gst="N",
          case=case("ledger/gst/spend-exactly-75000", gst_fail + " (A$75,000 exactly)", "gst", "FAIL"))  # fmt: skip
    ent = b.company(gst=("NON", None), state="VIC", postcode="3000")
    p.row(L, abn=ent.abn, name=ent.name, state="VIC", postcode="3000", spend="74,999.99", gst="no",
          case=case("ledger/gst/spend-just-below", "Not registered; company or partnership => WARN", "gst", "WARN"))  # fmt: skip
    ind = b.individual(state="VIC", postcode="3000")
    p.row(L, abn=ind.abn, name=ind.name, state="VIC", postcode="3000", spend="$80,000", gst="",
          case=case("ledger/gst/sole-trader-above-threshold", gst_fail + " (a sole trader too)", "gst", "FAIL"))  # fmt: skip
    ind = b.individual(state="VIC", postcode="3000")
    p.row(L, abn=ind.abn, name=ind.name, state="VIC", postcode="3000", spend="$900", gst="N",
          case=case("ledger/gst/sole-trader-below", "Not registered; individual or sole trader => N/A", "gst", "N/A"))  # fmt: skip
    ent = b.company(state="VIC", postcode="3000")
    p.row(L, abn=ent.abn, name=ent.name, state="VIC", postcode="3000", spend="$150,000", gst="Y",
          case=case("ledger/gst/registered", "Registered, age at least 3 months => PASS", "gst", "PASS"))  # fmt: skip

    # -- Address (docs/decisions/15-address.md) ----------------------------------------------------
    ent = b.company(state="QLD", postcode="4217")
    p.row(L, abn=ent.abn, name=ent.name, state="QLD", postcode="4217", spend="$5,000", gst="Y",
          case=case("ledger/address/match", "State and postcode match the business register and company status current => PASS", "address", "PASS"))  # fmt: skip
    ent = b.company(state="QLD", postcode="4217")
    p.row(L, abn=ent.abn, name=ent.name, state="QLD", postcode="4000", spend="$5,000", gst="Y",
          case=case("ledger/address/other-postcode", "Minor state or postcode discrepancy => WARN (same state, other postcode)", "address", "WARN"))  # fmt: skip
    ent = b.company(state="QLD", postcode="4217")
    p.row(L, abn=ent.abn, name=ent.name, state="NSW", postcode="2000", spend="$5,000", gst="Y",
          case=case("ledger/address/other-state", "State completely wrong, or company deregistered at the address => FAIL", "address", "FAIL"))  # fmt: skip
    ent = b.company(state="QLD", postcode="4217", co_status="DRGD", dereg=b.months(2))
    p.row(L, abn=ent.abn, name=ent.name, state="QLD", postcode="4217", spend="$5,000", gst="Y",
          case=case("ledger/address/company-deregistered", "State completely wrong, or company deregistered at the address => FAIL (deregistered)", "address", "FAIL"))  # fmt: skip
    ent = b.company(state="QLD", postcode="4217")
    p.row(L, abn=ent.abn, name=ent.name, state="", postcode="", spend="$5,000", gst="Y",
          case=case("ledger/address/no-state", "No state on the ledger row => N/A (decided)", "address", "N/A"))  # fmt: skip
    ind = b.individual(state="QLD", postcode="4870")
    p.row(L, abn=ind.abn, name=ind.name, state="Queensland", postcode="4870", spend="$600", gst="N",
          case=case("ledger/address/sole-trader-state-spelled-out", "State and postcode match the business register and company status current => PASS (no ACN; 'Queensland')", "address", "PASS"))  # fmt: skip
    ent = b.company(state="NT", postcode="0800")
    p.row(L, abn=ent.abn, name=ent.name, state="NT", postcode="800", spend="$5,000", gst="Y",
          case=case("ledger/address/postcode-lost-leading-zero", "State and postcode match the business register and company status current => PASS (800 read as 0800)", "address", "PASS"))  # fmt: skip

    # -- Intake: how each row resolves ---------------------------------------------------------
    def intake(case_id: str, resolution: str, reason: str = "", **more: Any) -> dict[str, Any]:
        return case(case_id, "intake", None, None, resolution=resolution, reason=reason, **more)

    ent = b.company(name=f"CAFÉ {b.word()} PTY LTD", state="SA", postcode="5000")
    p.row(L, abn=_spaced(ent.abn), name=ent.name, state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/abn-with-spaces-cp1252-name", "verified", abn=ent.abn))  # fmt: skip
    ent = b.company(state="SA", postcode="5000")
    p.row(L, abn="'" + ent.abn, name=ent.name, state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/abn-with-apostrophe", "verified", abn=ent.abn))  # fmt: skip
    p.row(L, abn="5.1824753556E+10", name=f"{b.word()} PLUMBING", state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/abn-spreadsheet-number", "needs_review", "turned into a number by a spreadsheet"))  # fmt: skip
    ent = b.company(state="SA", postcode="5000")
    wrong = ent.abn[:-1] + str((int(ent.abn[-1]) + 1) % 10)
    p.row(L, abn=wrong, name=ent.name, state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/abn-bad-check-digit", "needs_review", "check-digit", candidate=ent.abn))  # fmt: skip
    p.row(L, abn=ent.abn[:10], name=f"{b.word()} ELECTRICAL", state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/abn-ten-digits", "needs_review", "is not 11 digits"))  # fmt: skip
    ent = b.company(state="SA", postcode="5000")
    dup_ref = p.row(
        L, abn=ent.abn, name=ent.name, state="SA", postcode="5000", spend="$2,000", gst="Y"
    )
    other = b.company(state="SA", postcode="5000")
    p.row(L, ref=dup_ref, abn=other.abn, name=other.name, state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/duplicate-supplier-ref", "needs_review", "is also on line", occurrence=2))  # fmt: skip
    p.row(L, abn=_spaced(ent.abn), name=ent.name, state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/same-abn-twice", "needs_review", "the same ABN as line"))  # fmt: skip
    ent = b.company(state="SA", postcode="5000")
    p.row(L, abn=ent.abn, name=ent.name, state="S.A", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/unknown-state", "needs_review", "unknown state"))  # fmt: skip
    ent = b.company(state="WA", postcode="6000")
    p.row(L, abn="", name=ent.name.replace(" PTY LTD", " Pty. Ltd."), state="WA", postcode="6000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/no-abn-resolved-by-name", "resolved_by_name", abn=ent.abn))  # fmt: skip
    legal, invoice = _name_at(b, 0.9)
    ent = b.company(legal, state="WA", postcode="6000")
    p.row(L, abn="", name=invoice, state="WA", postcode="6000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/no-abn-name-exactly-0.9", "resolved_by_name", abn=ent.abn, similarity=0.9))  # fmt: skip
    twin = f"{b.word()} {b.word()} PTY LTD"
    first, second = b.other(name=twin, code="DTT"), b.other(name=twin, code="DTT")
    p.row(L, abn="", name=twin, state="WA", postcode="6000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/no-abn-ambiguous-name", "needs_review", "at least 90% similar", candidates=[first.abn, second.abn]))  # fmt: skip
    p.row(L, abn="N/A", name=f"{b.word()} {b.word()} CONSULTING", state="WA", postcode="6000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/no-abn-not-found", "needs_review", "no registered name"))  # fmt: skip
    p.row(L, abn="", name="", state="", postcode="", spend="$50", gst="",
          case=intake("ledger/intake/no-abn-no-name", "needs_review", "no ABN and no supplier name"))  # fmt: skip
    ent = b.company(state="WA", postcode="6000")
    p.row(L, abn=ent.abn, name=ent.name, state="WA", postcode="6000", spend="about 3k", gst="maybe",
          case=intake("ledger/intake/unreadable-amount-and-yes-no", "needs_review", "is not an amount"))  # fmt: skip

    # -- The council's workbook: a few of the rule rows again ---------------------------------
    X = XLSX_LEDGER
    ent = b.company(state="TAS", postcode="7000")
    p.row(X, abn=ent.abn, name=ent.name, state="TAS", postcode="7000", spend="45000", gst="TRUE",
          case=case("ledger/xlsx/abn-as-number", "ABN active, age at least 6 months, name match at least 90% => PASS (ABN in a number cell)", "abn_status", "PASS"))  # fmt: skip
    ent = b.company(gst=("NON", None), state="TAS", postcode="7000")
    p.row(X, abn=ent.abn, name=ent.name, state="TAS", postcode="7250", spend="91000", gst="FALSE",
          case=case("ledger/xlsx/gst-spend-above", gst_fail, "gst", "FAIL"))  # fmt: skip

    # -- Intake: an ACN for an ABN, and its neighbours ---------------------------------------
    ent = b.company(state="SA", postcode="5000")
    acn = f"{ent.acn[:3]} {ent.acn[3:6]} {ent.acn[6:]}"
    p.row(L, abn=acn, name=ent.name, state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/acn-for-abn", "needs_review", "an ACN (a company's 9-digit number)", candidate=ent.abn))  # fmt: skip
    wrong = ent.acn[:-1] + str((int(ent.acn[-1]) + 1) % 10)
    p.row(L, abn=wrong, name=f"{b.word()} HAULAGE", state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/nine-digits-not-an-acn", "needs_review", "is not 11 digits"))  # fmt: skip
    p.row(L, abn=b.next_acn(), name=f"{b.word()} JOINERY", state="SA", postcode="5000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/acn-of-no-company", "needs_review", "no company in the register has the ACN"))  # fmt: skip
    # a supplier whose name starts with "Total" is not a totals row
    ent = b.company(name=f"TOTAL {b.word()} PTY LTD", state="WA", postcode="6000")
    p.row(L, abn="", name=ent.name, state="WA", postcode="6000", spend="$2,000", gst="Y",
          case=intake("ledger/intake/name-starting-with-total", "resolved_by_name", abn=ent.abn))  # fmt: skip

    # -- Intake: cells the council's spreadsheet broke ---------------------------------------
    ent = b.company(state="TAS", postcode="7000")
    p.row(X, name=ent.name, state="TAS", postcode="7000", spend="12000", gst="TRUE", cells={"abn": ("error", "#N/A")},
          case=intake("ledger/xlsx/abn-error-na", "needs_review", "the spreadsheet error #N/A", candidate=ent.abn))  # fmt: skip
    ent = b.company(state="TAS", postcode="7000")
    p.row(X, name=ent.name, state="TAS", postcode="7000", spend="12000", gst="TRUE", cells={"abn": ("error", "#DIV/0!")},
          case=intake("ledger/xlsx/abn-error-div0", "needs_review", "the spreadsheet error #DIV/0!", candidate=ent.abn))  # fmt: skip
    ent = b.company(state="TAS", postcode="7000")
    p.row(X, name=ent.name, state="TAS", postcode="7000", spend="12000", gst="TRUE", cells={"abn": ("date", int(ent.abn))},
          case=intake("ledger/xlsx/abn-formatted-as-date", "needs_review", f"the number {ent.abn} formatted as a date", candidate=ent.abn))  # fmt: skip
    ent = b.company(state="TAS", postcode="7000")
    p.row(X, abn=ent.abn, name=ent.name, state="TAS", postcode="7000", spend="12000", gst="TRUE", cells={"abn": ("number", int(ent.abn))},
          case=intake("ledger/xlsx/abn-number-formatted", "verified", abn=ent.abn))  # fmt: skip
    ent = b.company(state="TAS", postcode="7000")
    p.row(X, abn=ent.abn, name=ent.name, state="TAS", postcode="7000", gst="TRUE", cells={"annual_spend_aud": ("error", "#DIV/0!")},
          case=intake("ledger/xlsx/spend-error-div0", "needs_review", "the annual_spend_aud cell holds the spreadsheet error #DIV/0!", abn=ent.abn))  # fmt: skip


# ---------------------------------------------------------------------------------- writing


def _background(landing: Path, wanted: int, skip: set[str]) -> list[dict[str, Any]]:
    """ABR records of the sample itself (valid, active or not), read back with the loader's
    own parser, in file order."""
    from pipelines.ingest import abr
    from pipelines.ingest.files import discover
    from pipelines.ingest.sources import SOURCES

    found: list[dict[str, Any]] = []
    source = SOURCES["abr"]
    files = discover(landing / source.folder, source.patterns, source.snapshot_key)
    for file in files:
        for batch in abr.parse(file):
            table = batch.tables.get("abns")
            if table is None:
                continue
            for row in table.select(
                ["abn", "entity_name", "state", "postcode", "gst_status", "is_individual"]
            ).to_pylist():
                if row["abn"] in skip or not row["entity_name"]:
                    continue
                found.append(row)
                if len(found) >= wanted:
                    return found
    return found


def _background_rows(
    records: list[dict[str, Any]], prefix: str, rng: random.Random
) -> list[dict[str, Any]]:
    rows = []
    for i, r in enumerate(records):
        postcode = r["postcode"] if r["postcode"] not in (None, "0000") else ""
        if rng.random() < 0.04 and postcode:
            postcode = f"{(int(postcode) + 7) % 10000:04d}"  # a moved supplier
        spend = round(rng.lognormvariate(9.5, 1.4), 2)
        rows.append(
            {
                "supplier_ref": f"{prefix}-{i + 1:05d}",
                "abn": _spaced(r["abn"]) if rng.random() < 0.3 else r["abn"],
                "supplier_name": r["entity_name"],
                "domain": "",
                "email": "",
                "phone": "",
                "state": r["state"] or "",
                "postcode": postcode,
                "annual_spend_aud": f"${spend:,.2f}",
                "gst_charged": "Y" if r["gst_status"] == "ACT" else "N",
            }
        )
    return rows


def write_ledgers(out_dir: Path, plan: Any, seed: int, scale: int) -> dict[str, Any]:
    """Write both sample ledgers under ``out_dir/ledgers``; returns planted.json's
    ``ledgers`` member (files, cases, the background counts)."""
    rng = random.Random(f"bvs-sample-ledgers:{seed}")
    planted_abns = {
        r["abn"].replace(" ", "").lstrip("'") for rows in plan.ledger_rows.values() for r in rows
    }
    wanted = {key: min(n, max(scale // 3, 50)) for key, n in BACKGROUND.items()}
    records = _background(out_dir, sum(wanted.values()), planted_abns)
    split = wanted[CSV_LEDGER] if len(records) >= sum(wanted.values()) else len(records) // 2
    files = []
    lines: dict[str, dict[str, int]] = {}
    ignored: list[dict[str, Any]] = []

    csv_rows = plan.ledger_rows.get(CSV_LEDGER, []) + _background_rows(records[:split], "HH", rng)
    path = out_dir / "ledgers" / CSV_LEDGER[0] / f"{CSV_LEDGER[1]}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(HEADER)
    line = 1
    at: dict[str, int] = {}
    for i, row in enumerate(csv_rows):
        if i == len(csv_rows) // 2:
            # two exports pasted together: a blank line, as spreadsheets export an empty
            # row, then the second export's header
            buffer.write("\r\n")
            writer.writerow(HEADER)
            line += 2
            ignored.append({"customer": CSV_LEDGER[0], "ledger": CSV_LEDGER[1], "line": line,
                            "reason": "the header row again"})  # fmt: skip
        writer.writerow([row[k] for k in KEYS])
        line += 1
        ref = row["supplier_ref"]
        at[ref if ref not in at else f"{ref}#2"] = line
    total = sum(_amount(r["annual_spend_aud"]) for r in csv_rows)
    writer.writerow(["TOTAL", "", "", "", "", "", "", "", f"${total:,.2f}", ""])
    ignored.append({"customer": CSV_LEDGER[0], "ledger": CSV_LEDGER[1], "line": line + 1,
                    "reason": "a totals row"})  # fmt: skip
    path.write_bytes(buffer.getvalue().encode("cp1252"))
    files.append(
        {
            "customer": CSV_LEDGER[0],
            "ledger": CSV_LEDGER[1],
            "path": str(path.relative_to(out_dir)),
            "rows": len(csv_rows),
            "encoding": "cp1252",
        }
    )
    lines[f"{CSV_LEDGER[0]}/{CSV_LEDGER[1]}"] = at

    xlsx_rows = plan.ledger_rows.get(XLSX_LEDGER, []) + _background_rows(records[split:], "CC", rng)
    path = out_dir / "ledgers" / XLSX_LEDGER[0] / f"{XLSX_LEDGER[1]}.xlsx"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines[f"{XLSX_LEDGER[0]}/{XLSX_LEDGER[1]}"], totals_line = _write_xlsx(path, xlsx_rows)
    ignored.append({"customer": XLSX_LEDGER[0], "ledger": XLSX_LEDGER[1], "line": totals_line,
                    "reason": "a totals row"})  # fmt: skip
    files.append(
        {
            "customer": XLSX_LEDGER[0],
            "ledger": XLSX_LEDGER[1],
            "path": str(path.relative_to(out_dir)),
            "rows": len(xlsx_rows),
            "encoding": "xlsx",
        }
    )

    cases = []
    for c in plan.ledger_cases:
        key = f"{c['customer']}/{c['ledger']}"
        ref = c["supplier_ref"] + ("#2" if c.get("occurrence") == 2 else "")
        cases.append({**c, "line": lines[key].get(ref)})
    return {"files": files, "cases": cases, "ignored": ignored, "later_days": LATER_DAYS}


def _amount(text: str) -> float:
    try:
        return float(text.replace("$", "").replace(",", ""))
    except ValueError:
        return 0.0


def _write_xlsx(path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, int], int]:
    """The council's workbook: ABNs as number cells (as a spreadsheet keeps them), a blank
    row, a totals row, the cells planted as a spreadsheet breaks them (error values, a number
    formatted as a date). Returns each supplier_ref's row number, and the totals row's."""
    import xlsxwriter

    at: dict[str, int] = {}
    book = xlsxwriter.Workbook(str(path))
    book.set_properties({"created": dt.datetime(2026, 1, 1)})  # same seed, same bytes
    formats = {"date": book.add_format({"num_format": "dd/mm/yyyy"}),
               "number": book.add_format({"num_format": "0"})}  # fmt: skip
    formulas = {"#N/A": "=NA()", "#DIV/0!": "=1/0"}
    try:
        sheet = book.add_worksheet("Vendors")
        sheet.write_row(0, 0, HEADER)
        r = 1
        for i, row in enumerate(rows):
            if i == len(rows) // 2:
                r += 1  # an empty row
            values: list[Any] = [row[k] for k in KEYS]
            abn = row["abn"].replace(" ", "")
            if abn.isdigit() and len(abn) == 11:
                values[1] = int(abn)  # a number cell
            spend = row["annual_spend_aud"].replace("$", "").replace(",", "")
            with contextlib.suppress(ValueError):
                values[8] = float(spend)
            sheet.write_row(r, 0, values)
            for key, (kind, value) in row.get("cells", {}).items():
                c = KEYS.index(key)
                if kind == "error":
                    sheet.write_formula(r, c, formulas[value], None, value)
                else:
                    sheet.write_number(r, c, value, formats[kind])
            at[row["supplier_ref"]] = r + 1
            r += 1
        sheet.write_row(r, 0, ["Total", None, None, None, None, None, None, None,
                                sum(_amount(x["annual_spend_aud"]) for x in rows)])  # fmt: skip
    finally:
        book.close()
    return at, r + 1
