"""The listed public registers of ``registers/`` (tax practitioners, APRA, super funds, tax
debt, R&D incentive, modern slavery, WGEA, government contracts, B Corp): one row format."""

from __future__ import annotations

from bvs_sample.entities import Entity, variant
from bvs_sample.families.background import BackgroundDraws

APRA_KINDS = (("Authorised deposit-taking institution", 126), ("General insurer", 209),
              ("Life insurer", 32), ("Private health insurer", 195))  # fmt: skip
APRA_KIND_DRAWS = [k for k, n in APRA_KINDS for _ in range(n)]


class PublicRegisters(BackgroundDraws):
    """One row of a listed register for the entity (``registers/<REGISTER>``)."""

    def trustee_acn(self) -> str:
        if self.recent_companies and self.rnd() < 0.3:
            return self.recent_companies[-1].acn
        return ""

    def register_row(self, e: Entity, register: str, status: str, detail: str, *,
                     k: int = 0, acn: str | None = None, with_abn: bool = True) -> None:  # fmt: skip
        key = f"registers/{register}"
        person = e.person.given_first() if e.person is not None else ""
        name = "" if e.person is not None else variant(e.name, self.rng)
        day = self.between(max(e.since, self.end - 2 * 365), self.end - 1)
        self.put(key, [register, f"{register[:3]}{e.r:09d}{k}", e.abn if with_abn else "",
                       e.acn if acn is None else acn, name, person, status, self.d(key, day),
                       detail])  # fmt: skip
