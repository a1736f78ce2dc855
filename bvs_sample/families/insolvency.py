"""Insolvency: gazette notices of the companies under external administration, deregistered
or winding up, and the registered liquidators."""

from __future__ import annotations

from bvs_sample.entities import Entity, variant
from bvs_sample.families.background import BackgroundDraws


class Insolvency(BackgroundDraws):
    """Gazette notices of a company's administration or deregistration, and liquidators."""

    def gazette(self, e: Entity) -> None:
        rnd = self.rnd
        kinds = {
            "EXAD": ("APPOINTMENT_OF_LIQUIDATOR", "CREDITORS_MEETING"),
            "SOFF": ("DEREGISTRATION",),
            "DRGD": ("DEREGISTRATION",),
            "DISS": ("WINDING_UP_APPLICATION",),
        }.get(e.co_status, ("OTHER",))
        if e.co_status in ("SOFF", "DRGD") and rnd() < 0.5:
            return
        for k, kind in enumerate(kinds):
            day = self.between(self.end - 3 * 365, self.end - 1)
            if e.dereg_day is not None:
                day = self.between(e.dereg_day - 90, e.dereg_day)
            name = variant(e.name, self.rng)
            if kind == "APPOINTMENT_OF_LIQUIDATOR" and rnd() < 0.5:
                name += " (IN LIQUIDATION)"
            notice = f"GZ{e.r:09d}{k}"
            self.put("gazette", [notice, self.d("gazette", day), kind, name,
                                 e.acn if rnd() < 0.85 else "", e.abn if rnd() < 0.4 else "",
                                 kind.replace("_", " ").capitalize(),
                                 f"https://example.gov.au/notices/{notice}"])  # fmt: skip

    def liquidator(self, r: int) -> None:
        rnd = self.rnd
        person, company = self.someone(0.3)
        number = f"{300000 + r}"
        u = rnd()
        status = "Registered" if u < 0.85 else "Cancelled" if u < 0.97 else "Suspended"
        start = self.between(self.end - 30 * 365, self.end - 1)
        place, state, pcode = self.address()
        self.put("liquidators", ["Registered Liquidators", number, person.given_first(), "",
                                 self.d("liquidators", start), "", status,
                                 self.d("liquidators", self.end - 30) if status == "Suspended" else "",
                                 place, state, pcode, "AUSTRALIA",
                                 company or f"{person.family} & ASSOCIATES"])  # fmt: skip
