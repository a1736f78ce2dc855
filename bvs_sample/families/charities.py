"""ACNC charities."""

from __future__ import annotations

import datetime as dt

from bvs_sample import formats as F
from bvs_sample import words as W
from bvs_sample.entities import Entity
from bvs_sample.families.background import BackgroundDraws


class Charities(BackgroundDraws):
    """The ACNC register row of a charity."""

    def charity(self, e: Entity) -> None:
        rnd = self.rnd
        size = self.pick(("Small", "Small", "Medium", "Large"))
        state = e.state or "NSW"
        reg = self.between(max(e.since, dt.date(2012, 12, 3).toordinal()), self.end - 1)
        flags = ["Y" if rnd() < 0.2 else "" for _ in range(len(F.CHARITIES) - 17)]
        row = [e.abn, e.name, "", "Postal" if rnd() < 0.3 else "Business",
               f"{int(rnd() * 200) + 1} {self.pick(W.PLACES)} ROAD", "", "", self.pick(W.PLACES),
               state, e.postcode, "AUSTRALIA", "", self.d("charities", reg),
               self.d("charities", self.between(self.base, reg)), size,
               str(1 + int(rnd() * 9)), "30-Jun", *flags]  # fmt: skip
        self.put("charities", row[: len(F.CHARITIES)])
