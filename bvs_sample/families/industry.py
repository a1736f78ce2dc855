"""Industry codes (ANZSIC) and the state licences of the licensed trades (QBCC, NSW Fair
Trading, VBA, SA CBS)."""

from __future__ import annotations

from bvs_sample import formats as F
from bvs_sample.entities import Entity, variant
from bvs_sample.families.background import BackgroundDraws

# Licences: probability that an active trades entity of the register's state holds one.
LICENCE_STATE = {"QLD": ("QBCC", 0.62), "NSW": ("NSW_FAIR_TRADING", 0.13),
                 "VIC": ("VBA", 0.08), "SA": ("SA_CBS", 0.16)}  # fmt: skip
LICENCE_STATUS = (("ACTIVE", 0.85), ("CONDITIONAL", 0.02), ("EXPIRED", 0.09),
                  ("SUSPENDED", 0.01), ("CANCELLED", 0.03))  # fmt: skip
TRADE_SHARE = 0.12  # of industry rows: a licensed trade (building, electrical, plumbing)


class Industry(BackgroundDraws):
    """An ANZSIC code per ABN (a licensed trade for some) and the state licences of the trades."""

    def industry(self, e: Entity) -> str:
        if self.rnd() < TRADE_SHARE:
            code, text, trade = F.ANZSIC[F.TRADE_CODES[int(self.rnd() * len(F.TRADE_CODES))]]
        else:
            code, text, trade = F.ANZSIC[F.OTHER_CODES[int(self.rnd() * len(F.OTHER_CODES))]]
        self.put("industry", [e.abn, code, text])
        return trade

    def licences(self, e: Entity, trade: str) -> None:
        register, chance = LICENCE_STATE.get(e.state, ("", 0.0))
        if not register or self.rnd() >= chance:
            return
        rnd = self.rnd
        key = f"licences/{register}"
        for k in range(1 if rnd() < 0.85 else 2):
            u = rnd()
            acc = 0.0
            status = "ACTIVE"
            for s, w in LICENCE_STATUS:
                acc += w
                if u < acc:
                    status = s
                    break
            granted = self.between(max(e.since, self.end - 25 * 365), self.end - 30)
            if status in ("ACTIVE", "CONDITIONAL"):
                expiry = self.between(self.end + 30, self.end + 3 * 365)
            else:
                expiry = self.between(granted, self.end - 1)
            number = _licence_number(register, e.r, k)
            klass = ("Contractor licence", "Nominee supervisor", "Occupational licence")[k % 3]
            self.put(key, [register, number, variant(e.name, self.rng), e.abn,
                           e.acn if rnd() < 0.6 else "", klass, trade if k == 0 else "other",
                           status, self.d(key, granted), self.d(key, expiry)])  # fmt: skip


def _licence_number(register: str, r: int, k: int) -> str:
    n = r * 3 + k
    if register == "QBCC":
        return f"{1_000_000 + n}"
    if register == "NSW_FAIR_TRADING":
        return f"{100_000 + n}C"
    if register == "VBA":
        return f"DB-U {n:08d}"
    return f"BLD{n:09d}"
