"""PPSR registrations: security interests against active companies (and a few others)."""

from __future__ import annotations

from bvs_sample.entities import Entity, variant
from bvs_sample.families.background import BackgroundDraws

COLLATERAL = ("MOTOR_VEHICLE", "OTHER_GOODS", "ALL_PAP_NO_EXCEPT", "AGRICULTURE",
              "FINANCIAL_PROPERTY", "INTANGIBLE_PROPERTY", "WATERCRAFT")  # fmt: skip


class Ppsr(BackgroundDraws):
    """PPSR registrations against the entity (1-6, mostly companies)."""

    def ppsr(self, e: Entity, is_company: bool) -> None:
        rnd = self.rnd
        if not is_company and rnd() > 0.03:
            return
        for k in range(1 + int(rnd() ** 2 * 6)):
            start = self.between(max(e.since, self.end - 20 * 365), self.end - 1)
            u = rnd()
            end = None if u < 0.6 else self.between(self.end + 1, self.end + 7 * 365) if u < 0.85 else self.between(start, self.end - 1)  # fmt: skip
            self.put("ppsr", [f"2{e.r:09d}{k:02d}", e.abn if rnd() < 0.7 else "",
                              e.acn, variant(e.name, self.rng), self.pick(COLLATERAL),
                              self.d("ppsr", start), self.d("ppsr", end)])  # fmt: skip
