"""ASIC officeholders: each company's directors and secretary, current and former."""

from __future__ import annotations

from bvs_sample.entities import Entity
from bvs_sample.families.background import BackgroundDraws


class Officeholders(BackgroundDraws):
    """Each company's directors and secretary; current directors are remembered for the person registers."""

    def officeholders(self, e: Entity) -> None:
        rnd = self.rnd
        u = rnd()
        directors = 1 if u < 0.78 else 2 if u < 0.95 else 3 if u < 0.99 else 4
        reg = e.reg_day
        ceased_at = e.dereg_day if e.dereg_day is not None and rnd() < 0.5 else None
        rows = [("DIRECTOR", ceased_at) for _ in range(directors)]
        if rnd() < 0.08:
            rows.append(("SECRETARY", ceased_at))
        if rnd() < 0.07:
            rows.append(("DIRECTOR", -1))  # a former director
        for role, ceased in rows:
            person = self.person()
            appointed = self.between(reg, self.end)
            if ceased == -1:
                appointed = self.between(reg, max(reg, self.end - 400))
                ceased = self.between(appointed, self.end)
            elif role == "DIRECTOR" and ceased is None and len(self.recent_directors) < 200:
                self.recent_directors.append((person, e.name))
            elif role == "DIRECTOR" and ceased is None and rnd() < 0.05:
                self.recent_directors[int(rnd() * 200)] = (person, e.name)
            self.put(
                "directors",
                [e.acn, person.surname_first(), role, self.d("directors", appointed),
                 self.d("directors", ceased), self.d("directors", person.birth), self.extracted],
            )  # fmt: skip
