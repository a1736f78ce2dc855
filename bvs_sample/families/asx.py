"""The ASX list: generated listed companies and the codes they draw (the real tickers reserved)."""

from __future__ import annotations

import random

from bvs_sample.entities import Entity, variant
from bvs_sample.families.background import BackgroundDraws

ASX_CODE_CAPACITY = 800  # codes per chunk; the rest of the 17,576 are for planted cases
GICS = ("Materials", "Energy", "Capital Goods", "Banks", "Software & Services",
        "Health Care Equipment & Services", "Real Estate Management & Development",
        "Consumer Discretionary Distribution & Retail", "Food, Beverage & Tobacco",
        "Diversified Financials", "Media & Entertainment", "Transportation", "Utilities")  # fmt: skip

# Real tickers: the core liquid names the market sample gives to the real companies
# (market.CORE_ASX) and the targets of the real activist campaigns (market.REAL_CAMPAIGNS_CSV).
# They sit at the very end of asx_codes(), so no generated company is ever given one.
RESERVED_ASX_CODES: tuple[str, ...] = (
    "BHP", "CBA", "CSL", "NAB", "WBC", "ANZ", "WES", "MQG", "WOW", "TLS", "RIO", "FMG", "GMG",
    "TCL", "WDS", "ALL", "REA", "COL", "STO", "QBE",
    "TFC", "BLA", "CTD", "CIM", "TWE", "RFF", "WTC", "SEK", "TYR", "NEA", "VUL",
)  # fmt: skip


def asx_codes(seed: int) -> list[str]:
    """Every 3-letter code in a seeded order: chunk i uses a slice, planted cases and the
    market sample the tail; the reserved real tickers come last, in a fixed order."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    codes = [a + b + c for a in letters for b in letters for c in letters]
    random.Random(f"bvs-sample-asx:{seed}").shuffle(codes)
    reserved = set(RESERVED_ASX_CODES)
    return [c for c in codes if c not in reserved] + list(RESERVED_ASX_CODES)


class Asx(BackgroundDraws):
    """The ASX list row of a listed public company (codes from the chunk's slice)."""

    asx_codes: list[str]  # this chunk's slice of asx_codes() (registers.RegisterRows)
    asx_used: int

    def asx(self, e: Entity) -> None:
        if self.asx_used >= len(self.asx_codes):
            return
        code = self.asx_codes[self.asx_used]
        self.asx_used += 1
        self.put("asx", [variant(e.name, self.rng).upper(), code, self.pick(GICS)])
