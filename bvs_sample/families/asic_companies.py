"""ASIC companies: the company rows of a company in the ABR (current and former names), the
companies with no ABR record, and the planted malformed company rows."""

from __future__ import annotations

from bisect import bisect

from bvs_sample import words as W
from bvs_sample.draws import cumulative
from bvs_sample.entities import Entity
from bvs_sample.entity_types import EntityType
from bvs_sample.families.core import CRLF, STATE_CODES
from bvs_sample.families.names import EntityNames
from bvs_sample.numbering import ACN_LOW, ACN_PRIME
from pipelines.identifiers import abn_from_acn, acn_is_valid

EXTRA_COMPANY_SHARE = 0.004  # companies in the ASIC file but not the ABR, per ABN record
COMPANY_KINDS = ("wrong_field_count", "bad_date", "bad_acn_check_digit")
BAD_DMY = ("31/02/2019", "32/01/2015", "15/13/2004", "29/02/2023")

# Not an ASIC status code: stands for a code ASIC adds later (parsers keep it).
UNKNOWN_COMPANY_STATUS = "XPND"

# Company status for companies in the ABR: (status, ABN status, share).
# DRGD companies were deregistered in the last year (ASIC drops them after about a year).
_ABR_COMPANY_STATUS = (
    ("REGD", "ACT", 0.6905),
    ("REGD", "CAN", 0.17),
    ("DRGD", "CAN", 0.08),
    ("SOFF", "CAN", 0.02),
    ("SOFF", "ACT", 0.01),
    # EXAD and DISS: about 30,800 ASIC rows at 20M ABN records (docs/rules.md, insolvency)
    ("EXAD", "ACT", 0.004),
    ("EXAD", "CAN", 0.0022),
    ("NOAC", "ACT", 0.004),
    ("NOAC", "CAN", 0.004),
    ("DISS", "CAN", 0.0013),
    ("CNCL", "CAN", 0.002),
    ("NRGD", "CAN", 0.001),
    ("PROV", "ACT", 0.001),
    ("DIV3", "ACT", 0.0005),
    ("PEND", "ACT", 0.0005),
    (UNKNOWN_COMPANY_STATUS, "ACT", 0.0005),
)
# Companies with no ABR record (ABN column empty).
_EXTRA_COMPANY_STATUS = (("DRGD", 0.6), ("REGD", 0.34), ("SOFF", 0.03), ("NOAC", 0.03))
_EXTRA_COMPANY_TYPE = (
    ("APTY", "LMSH", "PROP", 0.70),
    ("FNOS", "LMSH", "", 0.08),
    ("NRET", "", "", 0.05),
    ("NONC", "", "", 0.05),
    ("TRST", "", "", 0.05),
    ("ASSN", "LMGT", "", 0.04),
    ("APUB", "LMGT", "ULSN", 0.03),
)
_CO_STATUS_CUM = cumulative([w for _, _, w in _ABR_COMPANY_STATUS])
_EXTRA_STATUS_CUM = cumulative([w for _, w in _EXTRA_COMPANY_STATUS])
_EXTRA_TYPE_CUM = cumulative([w for *_, w in _EXTRA_COMPANY_TYPE])


class AsicCompanies(EntityNames):
    """The ASIC company rows a chunk's records give rise to."""

    def company_registration(self, first_eight: int) -> tuple[int, bool]:
        """Registration day from the ACN (ACNs grow with time); True if pre-1991 (state)."""
        frac = (first_eight - ACN_LOW) / ACN_PRIME
        if frac < 0.08:
            span = self.acn_start - self.oldest_company
            return self.oldest_company + int(frac / 0.08 * span), True
        return self.acn_start + int((frac - 0.08) / 0.92 * (self.end - self.acn_start)), False

    def company(
        self, r: int, et: EntityType, state: str
    ) -> tuple[str, str, str, str, int, int, list[str]]:
        """A company in the ABR: (ABN, ACN, name, ABN status, ABN start day, ABN status day,
        its ASIC company rows). Status, dates and ABN status agree with each other."""
        rnd = self.rnd
        acn = self.numbers.acn_for(r)
        abn = abn_from_acn(acn)
        reg_day, pre1991 = self.company_registration(int(acn[:8]))
        co_status, status, _ = _ABR_COMPANY_STATUS[bisect(_CO_STATUS_CUM, rnd())]
        if reg_day >= self.abn_start:
            since = self.between(reg_day, reg_day + 30)
        else:
            since = self.abn_start if rnd() < 0.5 else self.abn_registration_day()
        dereg_day: int | None = None
        if co_status == "DRGD":  # ASIC keeps deregistered companies for about a year
            dereg_day = self.between(max(reg_day, self.end - 365), self.end)
            abn_day = self.between(max(since, dereg_day - 90), dereg_day)
        elif status == "CAN":
            abn_day = self.between(since, self.end)
        else:
            abn_day = since
        name = self.main_name(et.style, et.code, acn)
        if et.style == "private_company":
            ctype, cclass = "APTY", "LMSH" if rnd() < 0.99 else "UNLM"
            u = rnd()
            subclass = "PROP" if u < 0.95 else "PSTC" if u < 0.99 else "PNPC"
        elif et.style == "public_company":
            ctype = "APUB"
            u = rnd()
            cclass = "LMSH" if u < 0.6 else "LMGT" if u < 0.95 else "NLIA"
            v = rnd()
            subclass = "ULSN" if v < 0.7 else "LISN" if v < 0.9 else "ULSS"
        else:  # a registered Australian body: the ASIC number is an ARBN
            ctype, cclass, subclass = "RACN", "LMGT", "RACA"
        rows = self.company_rows(
            name=name,
            acn=acn,
            abn=abn,
            ctype=ctype,
            cclass=cclass,
            subclass=subclass,
            status=co_status,
            reg_day=reg_day,
            dereg_day=dereg_day,
            prior_state=(state or "NSW") if pre1991 else "",
        )
        self.counts["companies_in_abr"] += 1
        self._company = (co_status, reg_day, dereg_day)
        return abn, acn, name, status, since, abn_day, rows

    def company_rows(
        self,
        *,
        name: str,
        acn: str,
        abn: str,
        ctype: str,
        cclass: str,
        subclass: str,
        status: str,
        reg_day: int,
        dereg_day: int | None,
        prior_state: str,
    ) -> list[str]:
        """All rows of one company: the current name (indicator Y) and former names."""
        rnd = self.rnd
        u = rnd()
        formers = 0 if u < 0.82 else 1 if u < 0.965 else 2 if u < 0.992 else 3 + int(rnd() * 3)
        reg = self.dmy(reg_day)
        dereg = self.dmy(dereg_day) if dereg_day is not None else ""
        prev = prior_state
        state_no = str(10_000 + int(rnd() * 9_990_000)) if prior_state else ""
        last_change = max(reg_day, dereg_day or 0)
        start_day = self.between(reg_day + 1, self.end) if formers else reg_day
        last_change = max(last_change, start_day)
        modified = "Y" if last_change >= self.end - 31 else "N"
        head = f"{ctype}\t{cclass}\t{subclass}\t{status}\t{reg}\t{dereg}\t{prev}\t{state_no}"
        rows: list[str] = []
        if not formers or rnd() >= 0.02:  # a few ACNs carry former-name rows only
            rows.append(f"{name}\t{acn}\t{head}\t{modified}\tY\t{abn}\t\t{CRLF}")
            self.counts["company_current_rows"] += 1
        start = self.dmy(start_day)
        for k in range(formers):
            former = self.private_company_name(acn) if k == 0 or ctype == "APTY" else name
            rows.append(f"{former}\t{acn}\t{head}\t{modified}\t\t{abn}\t{name}\t{start}{CRLF}")
            self.counts["company_former_rows"] += 1
        return rows

    def extra_company_rows(self, index: int) -> list[str]:
        """A company with no ABR record: mostly deregistered in the last year, ABN empty."""
        rnd = self.rnd
        first = self.numbers.acn_first_eight(index)
        acn = self.numbers.acn_for(index)
        reg_day, pre1991 = self.company_registration(first)
        status = _EXTRA_COMPANY_STATUS[bisect(_EXTRA_STATUS_CUM, rnd())][0]
        ctype, cclass, subclass, _ = _EXTRA_COMPANY_TYPE[bisect(_EXTRA_TYPE_CUM, rnd())]
        dereg = self.between(max(reg_day, self.end - 365), self.end) if status == "DRGD" else None
        if ctype == "APTY":
            name = self.private_company_name(acn)
        elif ctype == "APUB":
            name = self.public_company_name()
        elif ctype == "TRST":
            name = self.trust_name()
        elif ctype == "ASSN":
            name = self.incorporated_name()
        else:
            name = f"{self.core_name()} {self.pick(W.PUB_FORMS)}"
        self.counts["companies_without_abr"] += 1
        if self.reg is not None:
            self.reg.officeholders(
                Entity(index, "", acn, name, "private_company", False, "", "", reg_day,
                       status, reg_day, dereg)
            )  # fmt: skip
        return self.company_rows(
            name=name,
            acn=acn,
            abn="",
            ctype=ctype,
            cclass=cclass,
            subclass=subclass,
            status=status,
            reg_day=reg_day,
            dereg_day=dereg,
            prior_state=self.pick(STATE_CODES) if pre1991 else "",
        )

    def planted_company_row(self, index: int, kind: str) -> str:
        acn = self.numbers.acn_for(index)
        name = self.private_company_name(acn)
        reg = self.dmy(self.company_registration(self.numbers.acn_first_eight(index))[0])
        cols = [name, acn, "APTY", "LMSH", "PROP", "REGD", reg, "", "", "", "N", "Y", "", "", ""]
        if kind == "bad_acn_check_digit":
            cols[1] = acn[:8] + str((int(acn[8]) + 1 + int(self.rnd() * 9)) % 10)
            assert not acn_is_valid(cols[1])
        elif kind == "bad_date":
            cols[6] = self.pick(BAD_DMY)
        elif self.rnd() < 0.5:  # wrong_field_count: an old 14-column row ...
            del cols[7]
        else:  # ... or a tab inside the name
            parts = name.split(" ", 1)
            cols[0] = "\t".join(parts) if len(parts) == 2 else f"{name}\tPTY LTD"
        return "\t".join(cols) + CRLF
