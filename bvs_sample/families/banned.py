"""ASIC's banned and disqualified persons and organisations."""

from __future__ import annotations

from bvs_sample import formats as F
from bvs_sample.entities import Entity
from bvs_sample.families.background import BackgroundDraws

BANNED_TYPES = (("Disq. Director", 0.45), ("Banned Securities", 0.2),
                ("AFS Banned & Disqualified", 0.2), ("Credit Banned & Disqualified", 0.15))  # fmt: skip


class Banned(BackgroundDraws):
    """Banned organisations (generated companies) and banned persons (sometimes directors)."""

    def banned_organisation(self, e: Entity) -> None:
        rnd = self.rnd
        start = self.between(self.end - 15 * 365, self.end - 1)
        u = rnd()
        end = (
            "Permanent banning"
            if u < 0.3
            else ""
            if u < 0.45
            else self.d("banned_organisations", self.between(start, self.end + 5 * 365))
        )
        name = e.name.replace(" ", F.NBSP, 1) if rnd() < 0.2 else e.name
        self.put("banned_organisations", ["Banned and Disqualified Organisations", name,
                                          e.acn if rnd() < 0.85 else "",
                                          self.pick(("AFS Banned & Disqualified",
                                                     "Credit Banned & Disqualified")),
                                          self.d("banned_organisations", start), end,
                                          "Banned under the Corporations Act"])  # fmt: skip

    def banned_person(self) -> None:
        rnd = self.rnd
        person, _ = self.someone(0.35)
        u = rnd()
        acc = 0.0
        kind = BANNED_TYPES[0][0]
        for k, w in BANNED_TYPES:
            acc += w
            if u < acc:
                kind = k
                break
        start = self.between(self.end - 15 * 365, self.end - 1)
        v = rnd()
        end = None if v < 0.4 else self.between(start, self.end - 1) if v < 0.7 else self.between(self.end + 1, self.end + 10 * 365)  # fmt: skip
        place, state, pcode = self.address()
        self.put("banned_persons", ["Banned and Disqualified Persons", person.surname_first(),
                                    kind, f"{int(rnd() * 900000) + 100000}",
                                    self.d("banned_persons", start), self.d("banned_persons", end),
                                    place, state, pcode, "AUSTRALIA", ""])  # fmt: skip
