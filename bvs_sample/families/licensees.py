"""ASIC's AFS and credit licensees."""

from __future__ import annotations

import datetime as dt

from bvs_sample.entities import Entity
from bvs_sample.families.background import BackgroundDraws


class Licensees(BackgroundDraws):
    """AFS and credit licences of companies; AFS licensees are remembered for the advisers."""

    def afs(self, e: Entity) -> None:
        rnd = self.rnd
        number = f"{200000 + e.r}"
        place, state, pcode = self.address()
        conditions = "\n".join(
            f"{i + 1}. This licence authorises the licensee to carry on a financial services "
            "business to provide general financial product advice"
            for i in range(1 + int(rnd() * 3))
        )
        start = self.between(max(e.since, dt.date(2002, 3, 11).toordinal()), self.end - 1)
        self.put("afs", ["AFS Licensee", number, e.name, e.abn if rnd() < 0.6 else e.acn,
                         self.d("afs", start), "N", place, state, pcode, "AUSTRALIA",
                         f"-{27 + rnd() * 10:.4f}", f"{140 + rnd() * 13:.4f}", conditions])  # fmt: skip
        self.recent_afs.append((number, e.name, e.abn))

    def credit(self, e: Entity) -> None:
        rnd = self.rnd
        u = rnd()
        status = "Current" if u < 0.8 else "Cancelled" if u < 0.97 else "Suspended"
        start = self.between(max(e.since, dt.date(2010, 7, 1).toordinal()), self.end - 1)
        end = self.between(start, self.end - 1) if status == "Cancelled" else None
        place, state, pcode = self.address()
        afsl = self.recent_afs[-1][0] if self.recent_afs and rnd() < 0.3 else ""
        self.put("credit", ["Credit Licensee", f"{380000 + e.r}", e.name, self.d("credit", start),
                            self.d("credit", end), status, e.abn if rnd() < 0.7 else e.acn, afsl,
                            f"{status} from {self.d('credit', start)}", place, state, pcode,
                            f"-{27 + rnd() * 10:.4f}", f"{140 + rnd() * 13:.4f}",
                            "AFCA", "", "Credit provider"])  # fmt: skip
