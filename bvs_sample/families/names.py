"""Organisation and trading names, as the ABR, ASIC and the business-names register hold them."""

from __future__ import annotations

from bisect import bisect

from bvs_sample import words as W
from bvs_sample.families.core import STATE_CODES, ChunkDraws


class EntityNames(ChunkDraws):
    """Names drawn from the chunk's RNG (shared by the ABR, ASIC and business-name rows)."""

    def coined(self) -> str:
        """A brand word: a dictionary word, or a made-up one."""
        if self.rnd() < W.LONG_TAIL_COINED_SHARE:
            return W.syllable_word(self.rnd, 2 + (self.rnd() < 0.3))
        return self.pick(W.COINED)

    def core_name(self) -> str:
        """The distinctive part of an organisation's name."""
        rnd = self.rnd
        u = rnd()
        if u < 0.25:
            return f"{self.surname()} {self.pick(W.DESCRIPTORS)}"
        if u < 0.45:
            return f"{self.coined()} {self.pick(W.INDUSTRIES)} {self.pick(W.DESCRIPTORS)}"
        if u < 0.60:
            return f"{self.pick(W.PLACES)} {self.pick(W.INDUSTRIES)}"
        if u < 0.70:
            return f"{self.coined()} {self.coined()} {self.pick(W.DESCRIPTORS)}"
        if u < 0.78:
            return f"{self.surname()} & {self.surname()}"
        if u < 0.85:
            return f"{self.pick(W.INITIALS)} & {self.pick(W.INITIALS)} {self.surname()}"
        if u < 0.92:
            return f"{self.surname()}'S {self.pick(W.INDUSTRIES)}"
        if u < 0.96:
            return f"{self.surname()} & SONS"
        return f"{self.surname()} FAMILY {self.pick(W.DESCRIPTORS)}"

    def private_company_name(self, acn: str) -> str:
        rnd = self.rnd
        u = rnd()
        form = W.PRV_FORMS[bisect((0.70, 0.82, 0.90, 0.97), rnd())]
        if u < 0.03:  # companies registered under their ACN as name
            return f"{acn[:3]} {acn[3:6]} {acn[6:]} {form}"
        if u < 0.06:
            return f"{self.surname()} {form}"
        core = self.core_name()
        if u < 0.08:
            return f"{core} {self.pick(W.STATE_QUALIFIERS)} {form}"
        return f"{core} {form}"

    def public_company_name(self) -> str:
        u = self.rnd()
        form = self.pick(W.PUB_FORMS)
        if u < 0.10:
            return f"{self.core_name()} {self.pick(W.PUB_QUALIFIERS)} {form}"
        return f"{self.core_name()} {form}"

    def trust_name(self) -> str:
        u = self.rnd()
        sur = self.surname()
        if u < 0.35:
            return f"THE TRUSTEE FOR THE {sur} FAMILY TRUST"
        if u < 0.50:
            return f"THE TRUSTEE FOR {sur} FAMILY TRUST"
        if u < 0.65:
            return f"THE TRUSTEE FOR {self.core_name()} UNIT TRUST"
        if u < 0.75:
            return f"THE TRUSTEE FOR {self.core_name()} TRUST"
        if u < 0.85:
            init = f"{self.pick(W.INITIALS)} & {self.pick(W.INITIALS)}"
            return f"THE TRUSTEE FOR {init} {sur} TRUST"
        if u < 0.93:
            return f"THE TRUSTEE FOR {sur} INVESTMENT TRUST"
        return f"THE {sur} FAMILY TRUST"

    def super_fund_name(self, code: str) -> str:
        if code in ("POF", "NPF", "PST", "ADF"):
            return f"{self.core_name()} SUPERANNUATION FUND"
        u = self.rnd()
        sur = self.surname()
        if u < 0.40:
            return f"THE TRUSTEE FOR {sur} SUPERANNUATION FUND"
        if u < 0.70:
            return f"THE TRUSTEE FOR {sur} SUPER FUND"
        if u < 0.90:
            return f"THE TRUSTEE FOR THE {sur} FAMILY SUPER FUND"
        return f"{sur} SUPER FUND"

    def partnership_name(self) -> str:
        u = self.rnd()
        sur = self.surname()
        a, b = self.pick(W.INITIALS), self.pick(W.INITIALS)
        if u < 0.45:
            return f"{a} {sur} & {b} {sur}"
        if u < 0.65:
            return f"{a} {self.pick(W.INITIALS)} {sur} & {b} {self.pick(W.INITIALS)} {sur}"
        if u < 0.85:
            return f"{a} {sur} & {b} {self.surname()}"
        if u < 0.93:
            return f"{a} {sur} & {b} {sur} & {self.pick(W.INITIALS)} {self.surname()}"
        return f"THE TRUSTEE FOR {sur} PARTNERSHIP"

    def cooperative_name(self) -> str:
        place = self.pick(W.PLACES)
        u = self.rnd()
        if u < 0.5:
            return f"{place} {self.pick(W.INDUSTRIES)} CO-OPERATIVE LIMITED"
        if u < 0.8:
            return f"{place} CO-OPERATIVE SOCIETY LTD"
        return f"{place} {self.pick(W.INDUSTRIES)} CO-OPERATIVE LTD"

    def incorporated_name(self) -> str:
        u = self.rnd()
        base = f"{self.pick(W.PLACES)} {self.pick(W.CLUBS)}"
        if u < 0.45:
            return f"{base} INCORPORATED"
        if u < 0.90:
            return f"{base} INC"
        return f"{base} ASSOCIATION INC"

    def government_name(self, style: str) -> str:
        if style == "government_local":
            place = self.pick(W.PLACES)
            u = self.rnd()
            if u < 0.35:
                return f"{place} CITY COUNCIL"
            if u < 0.6:
                return f"{place} SHIRE COUNCIL"
            if u < 0.8:
                return f"SHIRE OF {place}"
            return f"{place} REGIONAL COUNCIL"
        if style == "government_commonwealth":
            return f"AUSTRALIAN {self.pick(W.AUTHORITIES)}"
        u = self.rnd()
        state = W.STATE_NAMES[self.pick(STATE_CODES)]
        if u < 0.5:
            return f"DEPARTMENT OF {self.pick(W.PORTFOLIOS)}"
        return f"{state} {self.pick(W.AUTHORITIES)}"

    def main_name(self, style: str, code: str, acn: str) -> str:
        if style == "private_company":
            return self.private_company_name(acn)
        if style == "public_company":
            return self.public_company_name()
        if style == "trust":
            return self.trust_name()
        if style == "super_fund":
            return self.super_fund_name(code)
        if style == "partnership":
            return self.partnership_name()
        if style == "cooperative":
            return self.cooperative_name()
        if style == "incorporated":
            return self.incorporated_name()
        if style == "unincorporated":
            return f"{self.pick(W.PLACES)} {self.pick(W.CLUBS)}"
        if style == "strata":
            n = 1000 + int(self.rnd() * 98_000)
            if self.rnd() < 0.6:
                return f"THE OWNERS - STRATA PLAN NO {n}"
            return f"OWNERS CORPORATION PLAN NO. PS{n}"
        if style == "estate":
            return (
                f"THE TRUSTEE FOR THE ESTATE OF THE LATE "
                f"{self.pick(W.MALE_GIVEN if self.rnd() < 0.5 else W.FEMALE_GIVEN)} "
                f"{self.surname()}"
            )
        if style.startswith("government"):
            return self.government_name(style)
        return f"{self.core_name()} {self.pick(('TRUST', 'FUND', 'ENTITY', 'BODY'))}"

    def trading_name(self) -> str:
        u = self.rnd()
        if u < 0.25:
            return f"{self.surname()}'S {self.pick(W.INDUSTRIES)}"
        if u < 0.45:
            return f"{self.coined()} {self.pick(W.INDUSTRIES)}"
        if u < 0.60:
            return f"{self.pick(W.PLACES)} {self.pick(W.INDUSTRIES)}"
        if u < 0.70:
            return f"{self.surname()} & SONS {self.pick(W.INDUSTRIES)}"
        if u < 0.80:
            given = self.pick(W.MALE_GIVEN if self.rnd() < 0.5 else W.FEMALE_GIVEN)
            return f"{given} {self.surname()} {self.pick(W.INDUSTRIES)}"
        if u < 0.90:
            return f"{self.coined()} {self.coined()} {self.pick(W.INDUSTRIES)}"
        return f"{self.pick(W.PLACES)} {self.pick(W.INDUSTRIES)} {self.pick(W.DESCRIPTORS)}"
