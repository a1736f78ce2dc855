"""Generate one chunk of the sample: one ABR XML file plus its share of the ASIC rows.

A chunk is the unit of parallel work. Its output depends only on (seed, chunk index, the
chunk's record range, extract date, the planted positions), never on which process runs
it, so the files are identical whatever the worker count. The ASIC company and business
name rows a chunk's records give rise to are written to part files that the caller
concatenates in chunk order.
"""

from __future__ import annotations

import datetime as dt
import random
import zlib
from bisect import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from pipelines.identifiers import abn_from_acn, abn_is_valid, acn_is_valid
from bvs_sample import words as W
from bvs_sample.entity_types import ENTITY_TYPES, EntityType
from bvs_sample.numbering import ACN_LOW, ACN_PRIME, Numbering
from bvs_sample.registers import Entity, Person, RegisterRows

CRLF = "\r\n"
FLUSH_EVERY = 2_000  # records between buffer flushes
REPORT_EVERY = 20_000  # records between progress reports
COMPRESS_LEVEL = 3  # zlib fast levels: 2x the speed of 6 for a 20% larger zip
EXTRA_COMPANY_SHARE = 0.004  # companies in the ASIC file but not the ABR, per ABN record

ABR_KINDS = ("bad_abn_check_digit", "bad_date", "missing_abn")
COMPANY_KINDS = ("wrong_field_count", "bad_date", "bad_acn_check_digit")
BUSINESS_NAME_KINDS = ("wrong_field_count", "bad_date", "bad_abn_check_digit")

BAD_YMD = ("20231345", "20190230", "20211300", "20220431")
BAD_DMY = ("31/02/2019", "32/01/2015", "15/13/2004", "29/02/2023")

DGR_FUNDS = ("FUND", "PUBLIC FUND", "BUILDING FUND", "FOUNDATION FUND", "SCHOLARSHIP FUND")

# Charities and funds: who holds deductible gift recipient endorsements.
_DGR_STYLES = ("incorporated", "public_company", "unincorporated", "cooperative")

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
    # EXAD and DISS: about 30,800 ASIC rows at 20M ABN records (SPEC 3.3, insolvency)
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

# Business address: state shares and postcode ranges.
_STATES = (
    ("NSW", 0.31, ((2000, 2599), (2619, 2899), (2921, 2999))),
    ("VIC", 0.26, ((3000, 3999),)),
    ("QLD", 0.20, ((4000, 4999),)),
    ("WA", 0.10, ((6000, 6797),)),
    ("SA", 0.07, ((5000, 5799),)),
    ("TAS", 0.02, ((7000, 7799),)),
    ("ACT", 0.02, ((2600, 2618), (2900, 2920))),
    ("NT", 0.01, ((800, 899),)),
)
_STATE_CODES = tuple(s for s, _, _ in _STATES)


@lru_cache(maxsize=4)
def _date_tables(first: int, last: int) -> tuple[list[str], list[str]]:
    """YYYYMMDD and DD/MM/YYYY strings for the day numbers first..last."""
    ymd: list[str] = []
    dmy: list[str] = []
    for n in range(first, last + 1):
        d = dt.date.fromordinal(n)
        y, m, day = f"{d.year:04d}", f"{d.month:02d}", f"{d.day:02d}"
        ymd.append(f"{y}{m}{day}")
        dmy.append(f"{day}/{m}/{y}")
    return ymd, dmy


def _cumulative(weights: list[float]) -> list[float]:
    total = sum(weights)
    out: list[float] = []
    acc = 0.0
    for w in weights:
        acc += w / total
        out.append(acc)
    out[-1] = 1.0
    return out


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


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs for one chunk (picklable)."""

    index: int  # 0-based file index
    start: int  # global index of the chunk's first record
    count: int
    seed: int
    scale: int
    extract_date: dt.date
    abr_path: Path  # plain XML, or the raw deflate stream when ``compress``
    compress: bool
    company_part: Path
    business_name_part: Path
    planted_abr: dict[int, str] = field(default_factory=dict)  # local record index -> kind
    planted_company: dict[int, str] = field(default_factory=dict)
    planted_business_name: dict[int, str] = field(default_factory=dict)
    part_dir: Path | None = None  # where the other registers' part files go (None: not written)
    # Planted-case records appended to this chunk (the last one): ABR lines, ASIC rows.
    extra_abr: tuple[str, ...] = ()
    extra_company: tuple[str, ...] = ()
    extra_business_name: tuple[str, ...] = ()


@dataclass
class ChunkResult:
    index: int
    records: int = 0
    abr_bytes: int = 0  # uncompressed size of the XML
    abr_stored_bytes: int = 0  # bytes written (compressed size when compressing)
    crc32: int = 0
    company_rows: int = 0
    business_name_rows: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    # (kind, line): ABR lines are file lines; part lines are 1-based within the part.
    planted_abr: list[tuple[str, int]] = field(default_factory=list)
    planted_company: list[tuple[str, int]] = field(default_factory=list)
    planted_business_name: list[tuple[str, int]] = field(default_factory=list)
    register_rows: dict[str, int] = field(default_factory=dict)  # rows per other target
    register_samples: dict[str, list[str]] = field(default_factory=dict)


class _Sink:
    """Buffered UTF-8 text to a binary file, optionally as a raw deflate stream with CRC."""

    def __init__(self, fh: BinaryIO, compress: bool) -> None:
        self._fh = fh
        self._buf: list[str] = []
        self._zip = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15) if compress else None
        self.raw_bytes = 0
        self.stored_bytes = 0
        self.crc = 0

    def add(self, text: str) -> None:
        self._buf.append(text)

    def flush(self) -> None:
        if not self._buf:
            return
        data = "".join(self._buf).encode("utf-8")
        self._buf.clear()
        self.raw_bytes += len(data)
        if self._zip is not None:
            self.crc = zlib.crc32(data, self.crc)
            data = self._zip.compress(data)
        self.stored_bytes += len(data)
        self._fh.write(data)

    def close(self) -> None:
        self.flush()
        if self._zip is not None:
            tail = self._zip.flush()
            self.stored_bytes += len(tail)
            self._fh.write(tail)


def _xml(text: str) -> str:
    if "&" in text or "'" in text:
        return text.replace("&", "&amp;").replace("'", "&apos;")
    return text


class ChunkGenerator:
    """Draws the records of one chunk. Random draws come from one RNG seeded per chunk."""

    def __init__(self, task: ChunkTask) -> None:
        self.task = task
        self.rng = random.Random(f"bvs-sample:{task.seed}:{task.index}")
        self.rnd = self.rng.random
        self.numbers = Numbering(task.seed)
        self.scale = task.scale

        # Dates are day numbers (proleptic ordinals); strings come from lookup tables.
        self.base = dt.date(1940, 1, 1).toordinal()
        self.end = task.extract_date.toordinal()
        self._ymd, self._dmy = _date_tables(self.base, self.end)
        self.abn_start = dt.date(1999, 11, 1).toordinal()
        self.gst_start = dt.date(2000, 7, 1).toordinal()
        self.acn_start = dt.date(1991, 1, 1).toordinal()
        self.bn_national = dt.date(2012, 5, 28).toordinal()
        self.oldest_company = dt.date(1950, 1, 1).toordinal()
        self.bn_oldest = dt.date(1980, 1, 1).toordinal()

        self._type_cum = _cumulative([t.weight for t in ENTITY_TYPES])
        self._entity_xml = [
            "<EntityType><EntityTypeInd>"
            f"{t.code}</EntityTypeInd><EntityTypeText>{t.text}</EntityTypeText></EntityType>"
            for t in ENTITY_TYPES
        ]
        self._state_cum = _cumulative([w for _, w, _ in _STATES])
        self._postcodes = [
            [f"{p:04d}" for lo, hi in ranges for p in range(lo, hi + 1)] for _, _, ranges in _STATES
        ]
        self._co_status_cum = _cumulative([w for _, _, w in _ABR_COMPANY_STATUS])
        self._extra_status_cum = _cumulative([w for _, w in _EXTRA_COMPANY_STATUS])
        self._extra_type_cum = _cumulative([w for *_, w in _EXTRA_COMPANY_TYPE])

        self.reg = (
            RegisterRows(task.seed, task.index, task.scale, task.extract_date, task.part_dir)
            if task.part_dir is not None
            else None
        )
        self._person: Person | None = None
        self._company: tuple[str, int, int | None] = ("", 0, None)
        self.counts: dict[str, int] = {
            "individuals": 0,
            "companies_in_abr": 0,
            "abn_cancelled": 0,
            "other_names": 0,
            "dgr": 0,
            "dgr_named": 0,
            "gst": 0,
            "company_current_rows": 0,
            "company_former_rows": 0,
            "companies_without_abr": 0,
            "business_names_in_abr": 0,
        }

    # -- small helpers -------------------------------------------------------------------

    def pick(self, seq: tuple[str, ...] | list[str]) -> str:
        return seq[int(self.rnd() * len(seq))]

    def surname(self) -> str:
        """A surname: mostly a common one, sometimes one from the long tail."""
        if self.rnd() < W.LONG_TAIL_SURNAME_SHARE:
            return W.syllable_word(self.rnd, 1 + (self.rnd() < 0.7), self.pick(W.SURNAME_ENDINGS))
        return self.pick(W.SURNAMES)

    def coined(self) -> str:
        """A brand word: a dictionary word, or a made-up one."""
        if self.rnd() < W.LONG_TAIL_COINED_SHARE:
            return W.syllable_word(self.rnd, 2 + (self.rnd() < 0.3))
        return self.pick(W.COINED)

    def ymd(self, day: int) -> str:
        return self._ymd[day - self.base]

    def dmy(self, day: int) -> str:
        return self._dmy[day - self.base]

    def between(self, lo: int, hi: int) -> int:
        """A day in [lo, hi] (hi clipped to the extract date)."""
        hi = min(hi, self.end)
        if hi <= lo:
            return min(lo, self.end)
        return lo + int(self.rnd() * (hi - lo + 1))

    def abn_registration_day(self) -> int:
        """ABN start: a bump at the 1999-2000 launch, then spread, some in recent months."""
        u = self.rnd()
        if u < 0.15:
            return self.between(self.abn_start, self.gst_start - 1)
        if u < 0.968:
            return self.between(self.abn_start, self.end)
        if u < 0.992:
            return self.between(self.end - 182, self.end)
        return self.between(self.end - 30, self.end)

    def company_registration(self, first_eight: int) -> tuple[int, bool]:
        """Registration day from the ACN (ACNs grow with time); True if pre-1991 (state)."""
        frac = (first_eight - ACN_LOW) / ACN_PRIME
        if frac < 0.08:
            span = self.acn_start - self.oldest_company
            return self.oldest_company + int(frac / 0.08 * span), True
        return self.acn_start + int((frac - 0.08) / 0.92 * (self.end - self.acn_start)), False

    def state(self) -> tuple[str, str]:
        """(state, postcode); the state is sometimes empty, the postcode sometimes 0000."""
        u = self.rnd()
        if u < 0.008:
            return "", "0000"
        i = bisect(self._state_cum, self.rnd())
        if u < 0.013:
            return _STATE_CODES[i], "0000"
        return _STATE_CODES[i], self.pick(self._postcodes[i])

    # -- names ---------------------------------------------------------------------------

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
        state = W.STATE_NAMES[self.pick(_STATE_CODES)]
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

    # -- ASIC rows -----------------------------------------------------------------------

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
        status = _EXTRA_COMPANY_STATUS[bisect(self._extra_status_cum, rnd())][0]
        ctype, cclass, subclass, _ = _EXTRA_COMPANY_TYPE[bisect(self._extra_type_cum, rnd())]
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
            prior_state=self.pick(_STATE_CODES) if pre1991 else "",
        )

    def business_name_row(
        self, name: str, abn: str, status: str, reg_day: int, cancel_day: int | None, migrated: bool
    ) -> str:
        pad = " " * (1 + int(self.rnd() ** 2 * 12))
        state = state_no = ""
        if migrated:
            state = self.pick(_STATE_CODES)
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

    def business_name_reg_day(self, since: int) -> tuple[int, bool]:
        """(registration day, migrated from a state register before the national one)."""
        if since < self.bn_national and self.rnd() < 0.25:
            return self.between(max(since, self.bn_oldest), self.bn_national - 1), True
        return self.between(max(since, self.bn_national), self.end), False

    # -- planted malformed rows ----------------------------------------------------------

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
        if kind == "bad_abn_check_digit":
            cols[7] = abn[:10] + str((int(abn[10]) + 1) % 10)
            assert not abn_is_valid(cols[7])
        elif kind == "bad_date":
            cols[3] = self.pick(BAD_DMY)
        elif self.rnd() < 0.5:  # wrong_field_count: a field missing ...
            del cols[5]
        else:  # ... or a tab inside the name
            cols[1] = "  " + name.replace(" ", "\t", 1) if " " in name else f"  {name}\tX"
        return "\t".join(cols) + CRLF

    # -- the chunk -----------------------------------------------------------------------

    def run(self, report: Callable[[int], None] | None = None) -> ChunkResult:
        task = self.task
        result = ChunkResult(index=task.index, records=task.count + len(task.extra_abr))
        with (
            open(task.abr_path, "wb") as abr_fh,
            open(task.company_part, "wb") as co_fh,
            open(task.business_name_part, "wb") as bn_fh,
        ):
            abr = _Sink(abr_fh, task.compress)
            co = _Sink(co_fh, False)
            bn = _Sink(bn_fh, False)
            date = task.extract_date
            abr.add(
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                f"<Transfer><TransferInfo><FileSequenceNumber>{task.index + 1}"
                f"</FileSequenceNumber><RecordCount>{task.count + len(task.extra_abr):010d}</RecordCount>"
                f"<ExtractTime>{date.isoformat()}T03:{11 + task.index:02d}:13</ExtractTime>"
                "</TransferInfo>\n"
            )
            co_lines = 0
            bn_lines = 0
            for j in range(task.count):
                r = task.start + j
                record, co_rows, bn_rows = self.record(r, task.planted_abr.get(j))
                abr.add(record)
                kind = task.planted_abr.get(j)
                if kind is not None:
                    result.planted_abr.append((kind, j + 3))
                if co_rows:
                    for row in co_rows:
                        co.add(row)
                    co_lines += len(co_rows)
                if bn_rows:
                    for row in bn_rows:
                        bn.add(row)
                    bn_lines += len(bn_rows)
                kind = task.planted_company.get(j)
                if kind is not None:
                    co.add(self.planted_company_row(self.scale + r, kind))
                    co_lines += 1
                    result.planted_company.append((kind, co_lines))
                kind = task.planted_business_name.get(j)
                if kind is not None:
                    bn.add(self.planted_business_name_row(self.scale + r, kind))
                    bn_lines += 1
                    result.planted_business_name.append((kind, bn_lines))
                if j % FLUSH_EVERY == FLUSH_EVERY - 1:
                    abr.flush()
                    co.flush()
                    bn.flush()
                if report is not None and j % REPORT_EVERY == REPORT_EVERY - 1:
                    report(j + 1)
            for line in task.extra_abr:
                abr.add(line)
            for row in task.extra_company:
                co.add(row)
            for row in task.extra_business_name:
                bn.add(row)
            co_lines += len(task.extra_company)
            bn_lines += len(task.extra_business_name)
            abr.add("</Transfer>\n")
            abr.close()
            co.close()
            bn.close()
        if report is not None:
            report(task.count)
        result.abr_bytes = abr.raw_bytes
        result.abr_stored_bytes = abr.stored_bytes
        result.crc32 = abr.crc
        result.company_rows = co_lines
        result.business_name_rows = bn_lines
        result.counts = dict(self.counts)
        if self.reg is not None:
            result.register_rows = self.reg.close()
            result.register_samples = self.reg.samples
        return result

    def record(self, r: int, planted: str | None) -> tuple[str, list[str], list[str]]:
        """One ``<ABR>`` line and the ASIC company and business-name rows it gives rise to.

        A planted (malformed) record is an individual with no other names, so no ASIC row
        refers to it.
        """
        rnd = self.rnd
        type_index = 0 if planted else bisect(self._type_cum, rnd())
        et = ENTITY_TYPES[type_index]
        state, postcode = self.state()
        is_company = et.style in ("private_company", "public_company") or (
            et.style in ("cooperative", "incorporated") and rnd() < 0.04  # registered bodies
        )
        if is_company:
            abn, acn, name, status, since, abn_day, co_rows = self.company(r, et, state)
        else:
            abn, acn, name, co_rows = self.numbers.abn_for(r), "", "", []
            status = "CAN" if rnd() < 0.30 else "ACT"
            since = self.abn_registration_day()
            abn_day = since if status == "ACT" else self.between(since, self.end)
        if status == "CAN":
            self.counts["abn_cancelled"] += 1

        if et.style == "individual":
            entity = self.individual_xml(state, postcode)
        else:
            name = name or self.main_name(et.style, et.code, acn)
            entity = (
                '<MainEntity><NonIndividualName type="MN"><NonIndividualNameText>'
                f"{_xml(name)}"
                f"</NonIndividualNameText></NonIndividualName>"
                f"{self.address_xml(state, postcode)}</MainEntity>"
            )
        abn_xml = self.abn_xml(abn, status, abn_day, planted)
        gst_xml, latest = self.gst_xml(status, since, abn_day)
        latest = max(latest, abn_day)
        dgr_xml = other_xml = ""
        bn_rows: list[str] = []
        if not planted:
            if (et.style in _DGR_STYLES or et.code == "TRT") and rnd() < 0.06:
                dgr_xml, dgr_day = self.dgr_xml(since)
                latest = max(latest, dgr_day)
            other_xml, bn_rows = self.other_names(abn, status, since, abn_day)
            bn_rows += self.loose_business_names(r, abn, since)
            # Companies with no ABR record use this record's spare ACN index (scale + r).
            if rnd() < EXTRA_COMPANY_SHARE and r - self.task.start not in self.task.planted_company:
                co_rows = co_rows + self.extra_company_rows(self.scale + r)

        if self.reg is not None and not planted:
            person = self._person if et.style == "individual" else None
            co_status, reg_day, dereg_day = self._company if is_company else ("", 0, None)
            self.reg.entity(
                Entity(
                    r=r,
                    abn=abn,
                    acn=acn,
                    name=f"{person.given} {person.family}" if person else name or "",
                    style=et.style,
                    active=status == "ACT",
                    state=state,
                    postcode=postcode,
                    since=since,
                    co_status=co_status,
                    reg_day=reg_day,
                    dereg_day=dereg_day,
                    person=person,
                )
            )
        updated = self.between(latest, self.end) if rnd() < 0.6 else latest
        asic_xml = f'<ASICNumber ASICNumberType="undetermined">{acn}</ASICNumber>' if acn else ""
        record = (
            f'<ABR recordLastUpdatedDate="{self.ymd(updated)}" replaced="N">{abn_xml}'
            f"{self._entity_xml[type_index]}{entity}"
            f"{asic_xml}{gst_xml}{dgr_xml}{other_xml}</ABR>\n"
        )
        return record, co_rows, bn_rows

    def company(
        self, r: int, et: EntityType, state: str
    ) -> tuple[str, str, str, str, int, int, list[str]]:
        """A company in the ABR: (ABN, ACN, name, ABN status, ABN start day, ABN status day,
        its ASIC company rows). Status, dates and ABN status agree with each other."""
        rnd = self.rnd
        acn = self.numbers.acn_for(r)
        abn = abn_from_acn(acn)
        reg_day, pre1991 = self.company_registration(int(acn[:8]))
        co_status, status, _ = _ABR_COMPANY_STATUS[bisect(self._co_status_cum, rnd())]
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

    def individual_xml(self, state: str, postcode: str) -> str:
        rnd = self.rnd
        self.counts["individuals"] += 1
        female = rnd() < 0.5
        given_list = W.FEMALE_GIVEN if female else W.MALE_GIVEN
        parts = ['<LegalEntity><IndividualName type="LGL">']
        if rnd() < 0.55:
            title = self.pick(W.TITLES_FEMALE if female else W.TITLES_MALE)
            parts.append(f"<NameTitle>{title}</NameTitle>")
        g = rnd()
        given = middle = ""
        if g >= 0.01:
            given = self.pick(given_list)
            parts.append(f"<GivenName>{given}</GivenName>")
            if g >= 0.45:
                middle = self.pick(given_list)
                parts.append(f"<GivenName>{middle}</GivenName>")
        family = self.surname()
        parts.append(f"<FamilyName>{_xml(family)}</FamilyName></IndividualName>")
        self._person = Person(given, middle, family, None)
        parts.append(self.address_xml(state, postcode))
        parts.append("</LegalEntity>")
        return "".join(parts)

    def abn_xml(self, abn: str, status: str, day: int, planted: str | None) -> str:
        """The ABN element, attribute order varying as in the real files (or planted faults)."""
        if planted == "missing_abn":
            return ""
        when = self.pick(BAD_YMD) if planted == "bad_date" else self.ymd(day)
        if planted == "bad_abn_check_digit":
            abn = abn[:10] + str((int(abn[10]) + 1) % 10)  # one digit off is never valid
        if self.rnd() < 0.5:
            return f'<ABN status="{status}" ABNStatusFromDate="{when}">{abn}</ABN>'
        return f'<ABN ABNStatusFromDate="{when}" status="{status}">{abn}</ABN>'

    def gst_xml(self, status: str, since: int, abn_day: int) -> tuple[str, int]:
        """(GST element or "", its day). NON carries the dummy date 19000101."""
        u = self.rnd()
        if status == "ACT":
            gst = "" if u < 0.15 else "ACT" if u < 0.55 else "CAN" if u < 0.70 else "NON"
        else:
            gst = "" if u < 0.20 else "CAN" if u < 0.60 else "NON"
        if not gst:
            return "", 0
        self.counts["gst"] += 1
        lo = max(since, self.gst_start)
        hi = abn_day if status == "CAN" else self.end
        if gst == "NON" or hi < lo:  # (ABN cancelled before GST existed: never registered)
            return '<GST status="NON" GSTStatusFromDate="19000101" />', 0
        day = self.between(lo, hi)
        return f'<GST status="{gst}" GSTStatusFromDate="{self.ymd(day)}" />', day

    def dgr_xml(self, since: int) -> tuple[str, int]:
        """Deductible gift recipient endorsements, with or without a fund name."""
        rnd = self.rnd
        pieces = []
        latest = 0
        for _ in range(1 if rnd() < 0.9 else 2):
            day = self.between(max(since, self.abn_start), self.end)
            latest = max(latest, day)
            self.counts["dgr"] += 1
            if rnd() < 0.5:
                self.counts["dgr_named"] += 1
                fund = f"{self.core_name()} {self.pick(DGR_FUNDS)}"
                pieces.append(
                    f'<DGR DGRStatusFromDate="{self.ymd(day)}" status="ACT">'
                    '<NonIndividualName type="DGR"><NonIndividualNameText>'
                    f"{_xml(fund)}</NonIndividualNameText></NonIndividualName></DGR>"
                )
            else:
                pieces.append(f'<DGR DGRStatusFromDate="{self.ymd(day)}" status="ACT" />')
        return "".join(pieces), latest

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
                f"{_xml(trading)}</NonIndividualNameText></NonIndividualName></OtherEntity>"
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

    def address_xml(self, state: str, postcode: str) -> str:
        state_xml = f"<State>{state}</State>" if state else "<State />"
        return (
            f"<BusinessAddress><AddressDetails>{state_xml}<Postcode>{postcode}</Postcode>"
            "</AddressDetails></BusinessAddress>"
        )


def generate_chunk(task: ChunkTask, report: Callable[[int], None] | None = None) -> ChunkResult:
    return ChunkGenerator(task).run(report)
