"""Business names: the ABR's other names (the registered business names among them also go to
the business-names register), business names not in the ABR, and the planted malformed rows."""

from __future__ import annotations

from bvs_sample import words as W
from bvs_sample.families.asic_companies import BAD_DMY
from bvs_sample.families.core import CRLF, STATE_CODES
from bvs_sample.families.names import EntityNames
from bvs_sample.sinks import xml_text

BUSINESS_NAME_KINDS = ("wrong_field_count", "bad_date", "missing_name")


def _other_names_count(u: float, v: float) -> int:
    """Other names per ABN: most none, some one or two, a few dozens, rarely hundreds."""
    if u < 0.80:
        return 0
    if u < 0.92:
        return 1
    if u < 0.965:
        return 2
    if u < 0.991:
        return 3 + int(v * 3)
    if u < 0.9988:
        return 6 + int(v * 10)
    if u < 0.9998:
        return 20 + int(v * 41)
    return 100 + int(v * 201)


class BusinessNames(EntityNames):
    """The business-name rows (and the ABR's other names) a chunk's records give rise to."""

    def business_name_reg_day(self, since: int) -> tuple[int, bool]:
        """(registration day, migrated from a state register before the national one)."""
        if since < self.bn_national and self.rnd() < 0.25:
            return self.between(max(since, self.bn_oldest), self.bn_national - 1), True
        return self.between(max(since, self.bn_national), self.end), False

    def business_name_row(
        self, name: str, abn: str, status: str, reg_day: int, cancel_day: int | None, migrated: bool
    ) -> str:
        pad = " " * (1 + int(self.rnd() ** 2 * 12))
        state = state_no = ""
        if migrated:
            state = self.pick(STATE_CODES)
            state_no = (
                f"BN{int(self.rnd() * 99_999_999):08d}"
                if state == "NSW"
                else f"B{int(self.rnd() * 9_999_999):07d}{self.pick(W.INITIALS)}"
            )
        cancel = self.dmy(cancel_day) if cancel_day is not None else ""
        return (
            f"BUSINESS NAMES\t{pad}{name}\t{status}\t{self.dmy(reg_day)}\t{cancel}\t"
            f"{state_no}\t{state}\t{abn}{CRLF}"
        )

    def other_names(self, abn: str, status: str, since: int, abn_day: int) -> tuple[str, list[str]]:
        """OtherEntity names; the registered business names (BN) also go to the BN register."""
        rnd = self.rnd
        n_other = _other_names_count(rnd(), rnd())
        if not n_other:
            return "", []
        self.counts["other_names"] += n_other
        pieces = []
        rows = []
        for _ in range(n_other):
            t = rnd()
            kind = "BN" if t < 0.31 else "TRD" if t < 0.88 else "OTN"
            trading = self.trading_name()
            pieces.append(
                f'<OtherEntity><NonIndividualName type="{kind}"><NonIndividualNameText>'
                f"{xml_text(trading)}</NonIndividualNameText></NonIndividualName></OtherEntity>"
            )
            if kind == "BN":
                self.counts["business_names_in_abr"] += 1
                reg_day, migrated = self.business_name_reg_day(since)
                if status == "ACT":
                    rows.append(
                        self.business_name_row(trading, abn, "Registered", reg_day, None, migrated)
                    )
                else:
                    cancel = self.between(reg_day, max(reg_day, abn_day))
                    bn_status = "Cancelled" if rnd() < 0.9 else "Deregistered"
                    rows.append(
                        self.business_name_row(trading, abn, bn_status, reg_day, cancel, migrated)
                    )
        return "".join(pieces), rows

    def loose_business_names(self, r: int, abn: str, since: int) -> list[str]:
        """Business names not in the ABR: this holder's cancelled ones, names without ABN
        (migrated state registrations), and holders whose ABN is not in the sample."""
        u = self.rnd()
        if u < 0.012:
            reg_day, migrated = self.business_name_reg_day(since)
            cancel = self.between(reg_day + 1, self.end)
            name = self.trading_name()
            return [self.business_name_row(name, abn, "Cancelled", reg_day, cancel, migrated)]
        if u < 0.016:
            reg_day = self.between(self.bn_oldest, self.bn_national - 1)
            name = self.trading_name()
            if self.rnd() < 0.4:
                return [self.business_name_row(name, "", "Registered", reg_day, None, True)]
            cancel = self.between(reg_day + 1, self.end)
            return [self.business_name_row(name, "", "Cancelled", reg_day, cancel, True)]
        if u < 0.019 and r - self.task.start not in self.task.planted_business_name:
            outside = self.numbers.abn_for(self.scale + r)  # spare index: not in the ABR
            reg_day = self.between(self.bn_national, self.end)
            name = self.trading_name()
            return [self.business_name_row(name, outside, "Registered", reg_day, None, False)]
        return []

    def planted_business_name_row(self, index: int, kind: str) -> str:
        abn = self.numbers.abn_for(index)
        name = self.trading_name()
        cols = [
            "BUSINESS NAMES",
            "  " + name,
            "Registered",
            self.dmy(self.between(self.bn_national, self.end)),
            "",
            "",
            "",
            abn,
        ]
        if kind == "missing_name":  # a listed ABN failing its check digits is kept: decision 19
            cols[1] = "   "
        elif kind == "bad_date":
            cols[3] = self.pick(BAD_DMY)
        elif self.rnd() < 0.5:  # wrong_field_count: a field missing ...
            del cols[5]
        else:  # ... or a tab inside the name
            cols[1] = "  " + name.replace(" ", "\t", 1) if " " in name else f"  {name}\tX"
        return "\t".join(cols) + CRLF
