"""Background rows of every other register, drawn in the chunk workers from the chunk's entities.

Each ABR record (and each ASIC company with no ABR record) passes through
:meth:`RegisterRows.entity`; it may give rise to officeholders, an industry code, licences,
adverse records, gazette notices, PPSR registrations, register records, charity and ASX
rows, and person-register rows (banned persons, liquidators, advisers) drawn like the
officeholders (common names collide, as in the real registers). Draws come from an RNG of
their own seeded with (seed, chunk), so adding a register never changes the core files, and
identifiers are functions of the record index, so they are unique whatever the worker count.
Each register family's rows are drawn in its module of :mod:`bvs_sample.families`.

Sizes: ``SIZES`` holds each register's size at the real extract's 20 million ABN records;
a sample of ``scale`` records gets ``max(size * scale / 20M, minimum)``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bvs_sample.entities import Entity
from bvs_sample.families.advisers import Advisers
from bvs_sample.families.asx import ASX_CODE_CAPACITY, Asx, asx_codes
from bvs_sample.families.banned import Banned
from bvs_sample.families.charities import Charities
from bvs_sample.families.enforcement import Enforcement
from bvs_sample.families.industry import Industry
from bvs_sample.families.insolvency import Insolvency
from bvs_sample.families.licensees import Licensees
from bvs_sample.families.officeholders import Officeholders
from bvs_sample.families.ppsr import Ppsr
from bvs_sample.families.public_registers import APRA_KIND_DRAWS, PublicRegisters

REAL_SCALE = 20_000_000

# register -> (rows at 20M ABN records, minimum rows in any sample). Sources: docs/rules.md
# where it gives a size, otherwise the public registers' published sizes (see data/README.md).
SIZES: dict[str, tuple[int, int]] = {
    "banned_persons": (2_400, 12),
    "banned_organisations": (400, 8),
    "advisers": (88_583, 30),
    "afs": (6_200, 12),
    "credit": (4_800, 12),
    "liquidators": (700, 10),
    "charities": (65_000, 20),
    "asx": (2_200, 8),
    "adverse": (51_200, 40),
    "tax_practitioners": (80_000, 12),
    "apra": (562, 6),
    "tax_debt": (60_000, 10),
    "rd_incentive": (26_000, 8),
    "modern_slavery": (8_000, 8),
    "wgea": (9_000, 8),
    "gov_contracts": (52_000, 10),  # suppliers; about 2.3 contracts each
    "bcorp": (650, 6),
}

COMPANY_STYLES = ("private_company", "public_company")
CHARITY_STYLES = ("incorporated", "unincorporated", "cooperative")


def rate(register: str, scale: int, eligible_share: float) -> float:
    """Probability per eligible record that gives the register its size at this scale."""
    size, minimum = SIZES[register]
    wanted = max(size * scale / REAL_SCALE, minimum)
    return min(1.0, wanted / max(1.0, scale * eligible_share))


class RegisterRows(
    Officeholders, Industry, Enforcement, Insolvency, Ppsr, PublicRegisters, Charities, Asx,
    Licensees, Banned, Advisers,
):  # fmt: skip
    """The other registers' rows for one chunk, written to one part file per target."""

    def __init__(
        self, seed: int, index: int, scale: int, extract_date: dt.date, part_dir: Path
    ) -> None:
        super().__init__(seed, index, scale, extract_date, part_dir)
        self.asx_codes = asx_codes(seed)[
            index * ASX_CODE_CAPACITY : (index + 1) * ASX_CODE_CAPACITY
        ]
        self.asx_used = 0
        s = scale
        self.p = {
            "banned_persons": rate("banned_persons", s, 1.0),
            "banned_organisations": rate("banned_organisations", s, 0.175),
            "advisers": rate("advisers", s, 1.0) / 1.2,  # 1.2 rows per adviser
            "afs": rate("afs", s, 0.12),
            "credit": rate("credit", s, 0.12),
            "liquidators": rate("liquidators", s, 1.0),
            "charities": rate("charities", s, 0.021),
            "asx": rate("asx", s, 0.0021),
            "adverse": rate("adverse", s, 0.7),
            "tax_practitioners": rate("tax_practitioners", s, 0.47),
            "apra": rate("apra", s, 0.0021),
            "tax_debt": rate("tax_debt", s, 0.47),
            "rd_incentive": rate("rd_incentive", s, 0.12),
            "modern_slavery": rate("modern_slavery", s, 0.12),
            "wgea": rate("wgea", s, 0.12),
            "gov_contracts": rate("gov_contracts", s, 0.47),
            "bcorp": rate("bcorp", s, 0.12),
        }

    def entity(self, e: Entity) -> None:
        rnd = self.rnd
        p = self.p
        is_company = bool(e.acn) and e.style in COMPANY_STYLES
        if e.acn:
            self.officeholders(e)
        if not e.abn:
            return
        trade = ""
        if rnd() < (0.85 if e.active else 0.5):
            trade = self.industry(e)
        if trade and e.active:
            self.licences(e, trade)
        if rnd() < p["adverse"] * (1.0 if e.active else 0.4):
            self.adverse(e)
        if is_company:
            self.recent_companies.append(e)
            if len(self.recent_companies) > 64:
                del self.recent_companies[: len(self.recent_companies) - 64]
            if e.co_status in ("EXAD", "SOFF", "DRGD", "DISS") or rnd() < 0.002:
                self.gazette(e)
        if e.active and rnd() < 0.25:
            self.ppsr(e, is_company)
        if e.style == "super_fund" and e.active and rnd() < 0.97:
            self.register_row(e, "SUPER_FUNDS", "Complying", "Regulated superannuation fund",
                              acn=self.trustee_acn())  # fmt: skip
        if e.active:
            self.active_entity(e, is_company)
        if rnd() < p["banned_persons"]:
            self.banned_person()
        if rnd() < p["liquidators"]:
            self.liquidator(e.r)
        if rnd() < p["advisers"]:
            self.adviser(e)

    def active_entity(self, e: Entity, is_company: bool) -> None:
        rnd = self.rnd
        p = self.p
        individual_or_company = is_company or e.style == "individual"
        if individual_or_company and rnd() < p["tax_practitioners"]:
            u = rnd()
            status = "Current" if u < 0.85 else "Terminated" if u < 0.95 else "Suspended"
            self.register_row(e, "TAX_PRACTITIONERS", status, "Registered tax agent")
        if individual_or_company and rnd() < p["tax_debt"]:
            self.register_row(e, "TAX_DEBT", "Disclosed", "Tax debt over $100,000 disclosed")
        if individual_or_company and rnd() < p["gov_contracts"]:
            for k in range(1 + int(rnd() ** 2 * 5)):
                self.register_row(e, "GOV_CONTRACTS", "Published", "Contract notice", k=k)
        if e.style in CHARITY_STYLES and rnd() < p["charities"]:
            self.charity(e)
        if not is_company:
            return
        if e.style == "public_company":
            if rnd() < p["apra"]:
                self.register_row(e, "APRA_ENTITIES", "Registered", self.pick(APRA_KIND_DRAWS))
            if rnd() < p["asx"]:
                self.asx(e)
            if rnd() < 0.3:
                self.charity(e)
        if rnd() < p["rd_incentive"]:
            self.register_row(e, "RD_INCENTIVE", "Registered", "R&D activities registered")
        if rnd() < p["modern_slavery"]:
            self.register_row(e, "MODERN_SLAVERY", "Published", "Modern slavery statement")
        if rnd() < p["wgea"]:
            self.register_row(e, "WGEA", "Compliant", "Employer of 100 or more staff")
        if rnd() < p["bcorp"]:
            self.register_row(e, "BCORP", "Certified", "Certified B Corporation", with_abn=False)
        if rnd() < p["afs"]:
            self.afs(e)
        if rnd() < p["credit"]:
            self.credit(e)
        if rnd() < p["banned_organisations"]:
            self.banned_organisation(e)
