"""Background rows of every other register, drawn in the chunk workers from the chunk's entities.

Each ABR record (and each ASIC company with no ABR record) passes through
:meth:`RegisterRows.entity`; it may give rise to officeholders, an industry code, licences,
adverse records, gazette notices, PPSR registrations, register records, charity and ASX
rows, and person-register rows (banned persons, liquidators, advisers) drawn like the
officeholders (common names collide, as in the real registers). Draws come from an RNG of
their own seeded with (seed, chunk), so adding a register never changes the core files, and
identifiers are functions of the record index, so they are unique whatever the worker count.

Sizes: ``SIZES`` holds each register's size at the real extract's 20 million ABN records;
a sample of ``scale`` records gets ``max(size * scale / 20M, minimum)``.
"""

from __future__ import annotations

import datetime as dt
import random
from bisect import bisect
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from bvs_sample import formats as F
from bvs_sample import words as W

REAL_SCALE = 20_000_000

# register -> (rows at 20M ABN records, minimum rows in any sample). Sources: SPEC 3.3
# where it gives a size, otherwise the public registers' published sizes (see data/README.md).
SIZES: dict[str, tuple[int, int]] = {
    "banned_persons": (2_400, 12),
    "banned_organisations": (400, 8),
    "advisers": (88_583, 30),
    "afs": (6_200, 12),
    "credit": (4_800, 12),
    "liquidators": (700, 10),
    "charities": (65_000, 20),
    "asx": (2_200, 8),
    "adverse": (51_200, 40),
    "tax_practitioners": (80_000, 12),
    "apra": (562, 6),
    "tax_debt": (60_000, 10),
    "rd_incentive": (26_000, 8),
    "modern_slavery": (8_000, 8),
    "wgea": (9_000, 8),
    "gov_contracts": (52_000, 10),  # suppliers; about 2.3 contracts each
    "bcorp": (650, 6),
}
# Adverse records per regulator at 20M (shares of the "adverse" size above).
ADVERSE_WEIGHTS = (
    ("ACCC", 3_000), ("QBCC", 12_000), ("NSW_FAIR_TRADING", 15_000), ("VBA_BPC", 4_000),
    ("QLD_OFT", 5_000), ("FWO", 9_000), ("NDIS_COMMISSION", 3_200),
)  # fmt: skip
ACTION_TYPES = {
    "ACCC": ("INFRINGEMENT_NOTICE", "COURT_ORDER", "UNDERTAKING", "PUBLIC_WARNING"),
    "FWO": ("COMPLIANCE_NOTICE", "ENFORCEABLE_UNDERTAKING", "INFRINGEMENT_NOTICE", "LITIGATION"),
    "NDIS_COMMISSION": ("BANNING_ORDER", "REVOCATION", "SUSPENSION", "COMPLIANCE_NOTICE"),
}
FREE_ACTIONS = (
    "Disciplinary action", "Licence cancelled", "Show cause notice", "Direction to rectify",
    "Prosecution", "Public warning", "Court enforceable undertaking", "Penalty notice",
)  # fmt: skip
SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW")
_SEVERITY_CUM = (0.08, 0.30, 0.70, 1.0)
# Licences: probability that an active trades entity of the register's state holds one.
LICENCE_STATE = {"QLD": ("QBCC", 0.62), "NSW": ("NSW_FAIR_TRADING", 0.13),
                 "VIC": ("VBA", 0.08), "SA": ("SA_CBS", 0.16)}  # fmt: skip
LICENCE_STATUS = (("ACTIVE", 0.85), ("CONDITIONAL", 0.02), ("EXPIRED", 0.09),
                  ("SUSPENDED", 0.01), ("CANCELLED", 0.03))  # fmt: skip
TRADE_SHARE = 0.12  # of industry rows: a licensed trade (building, electrical, plumbing)
COLLATERAL = ("MOTOR_VEHICLE", "OTHER_GOODS", "ALL_PAP_NO_EXCEPT", "AGRICULTURE",
              "FINANCIAL_PROPERTY", "INTANGIBLE_PROPERTY", "WATERCRAFT")  # fmt: skip
APRA_KINDS = (("Authorised deposit-taking institution", 126), ("General insurer", 209),
              ("Life insurer", 32), ("Private health insurer", 195))  # fmt: skip
BANNED_TYPES = (("Disq. Director", 0.45), ("Banned Securities", 0.2),
                ("AFS Banned & Disqualified", 0.2), ("Credit Banned & Disqualified", 0.15))  # fmt: skip
ASX_CODE_CAPACITY = 800  # codes per chunk; the rest of the 17,576 are for planted cases
GICS = ("Materials", "Energy", "Capital Goods", "Banks", "Software & Services",
        "Health Care Equipment & Services", "Real Estate Management & Development",
        "Consumer Discretionary Distribution & Retail", "Food, Beverage & Tobacco",
        "Diversified Financials", "Media & Entertainment", "Transportation", "Utilities")  # fmt: skip
LEGAL_FORMS = ("PTY LTD", "PTY. LTD.", "PROPRIETARY LIMITED", "PTY LIMITED", "P/L")

COMPANY_STYLES = ("private_company", "public_company")
CHARITY_STYLES = ("incorporated", "unincorporated", "cooperative")


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


@lru_cache(maxsize=4)
def day_strings(first: int, last: int) -> tuple[list[str], list[str]]:
    """ISO and DD/MM/YYYY strings for day numbers first..last."""
    iso: list[str] = []
    dmy: list[str] = []
    for n in range(first, last + 1):
        d = dt.date.fromordinal(n)
        iso.append(d.isoformat())
        dmy.append(f"{d.day:02d}/{d.month:02d}/{d.year:04d}")
    return iso, dmy


def rate(register: str, scale: int, eligible_share: float) -> float:
    """Probability per eligible record that gives the register its size at this scale."""
    size, minimum = SIZES[register]
    wanted = max(size * scale / REAL_SCALE, minimum)
    return min(1.0, wanted / max(1.0, scale * eligible_share))


def legal_form_variant(name: str, rnd_value: float) -> str:
    for form in LEGAL_FORMS:
        if name.endswith(" " + form):
            other = LEGAL_FORMS[int(rnd_value * len(LEGAL_FORMS))]
            return name[: -len(form)] + other
    return name


def variant(name: str, rnd: random.Random) -> str:
    """The entity's name as another register spells it (mostly the same)."""
    u = rnd.random()
    if u < 0.55:
        return name
    if u < 0.72:
        return legal_form_variant(name, rnd.random())
    if u < 0.84:
        return name.title()
    if u < 0.92:
        return name.replace("THE TRUSTEE FOR ", "").replace(" & ", " AND ")
    return name.replace(" ", "  ", 1)


@dataclass
class Person:
    given: str
    middle: str
    family: str
    birth: int | None  # day number

    def surname_first(self) -> str:
        given = f"{self.given} {self.middle}" if self.middle else self.given
        return f"{self.family}, {given}"

    def given_first(self) -> str:
        parts = [self.given, self.middle, self.family] if self.middle else [self.given, self.family]
        return " ".join(p.title() for p in parts)


@dataclass
class Entity:
    """What the registers need to know of one ABR record (or ASIC-only company)."""

    r: int
    abn: str
    acn: str
    name: str  # main name, or the individual's "GIVEN FAMILY"
    style: str
    active: bool
    state: str
    postcode: str
    since: int  # ABN start day
    co_status: str = ""
    reg_day: int = 0
    dereg_day: int | None = None
    person: Person | None = None


class _Part:
    def __init__(self, path: Path) -> None:
        self.fh: BinaryIO = open(path, "wb")  # noqa: SIM115 (closed in close())
        self.buf: list[str] = []
        self.rows = 0

    def add(self, text: str) -> None:
        self.buf.append(text)
        self.rows += 1
        if len(self.buf) >= 4000:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            self.fh.write("".join(self.buf).encode("utf-8"))
            self.buf.clear()

    def close(self) -> None:
        self.flush()
        self.fh.close()


class RegisterRows:
    """The other registers' rows for one chunk, written to one part file per target."""

    def __init__(
        self, seed: int, index: int, scale: int, extract_date: dt.date, part_dir: Path
    ) -> None:
        self.rng = random.Random(f"bvs-sample-registers:{seed}:{index}")
        self.rnd = self.rng.random
        self.index = index
        self.scale = scale
        self.part_dir = part_dir
        self.targets = F.targets(extract_date)
        self.end = extract_date.toordinal()
        self.base = dt.date(1930, 1, 1).toordinal()
        self.iso, self.dmy_ = day_strings(self.base, self.end + 4000)
        self.extracted = extract_date.isoformat()
        self.parts: dict[str, _Part] = {}
        self.samples: dict[str, list[str]] = {}  # first row of each target (for planted faults)
        self.recent_directors: list[tuple[Person, str]] = []  # (person, company name)
        self.recent_companies: list[Entity] = []
        # (number, name, abn) of AFS licensees advisers work for: the chunk's own licensees,
        # and one dealer group per chunk licensed elsewhere (its number outside every range)
        self.recent_afs: list[tuple[str, str, str]] = [
            (f"{100000 + index}", f"{W.PLACES[index * 7]} FINANCIAL PLANNING PTY LTD", "")
        ]
        self.asx_codes = asx_codes(seed)[
            index * ASX_CODE_CAPACITY : (index + 1) * ASX_CODE_CAPACITY
        ]
        self.asx_used = 0
        s = scale
        self.p = {
            "banned_persons": rate("banned_persons", s, 1.0),
            "banned_organisations": rate("banned_organisations", s, 0.175),
            "advisers": rate("advisers", s, 1.0) / 1.2,  # 1.2 rows per adviser
            "afs": rate("afs", s, 0.12),
            "credit": rate("credit", s, 0.12),
            "liquidators": rate("liquidators", s, 1.0),
            "charities": rate("charities", s, 0.021),
            "asx": rate("asx", s, 0.0021),
            "adverse": rate("adverse", s, 0.7),
            "tax_practitioners": rate("tax_practitioners", s, 0.47),
            "apra": rate("apra", s, 0.0021),
            "tax_debt": rate("tax_debt", s, 0.47),
            "rd_incentive": rate("rd_incentive", s, 0.12),
            "modern_slavery": rate("modern_slavery", s, 0.12),
            "wgea": rate("wgea", s, 0.12),
            "gov_contracts": rate("gov_contracts", s, 0.47),
            "bcorp": rate("bcorp", s, 0.12),
        }
        total = sum(w for _, w in ADVERSE_WEIGHTS)
        acc = 0.0
        self.adverse_cum: list[float] = []
        for _, w in ADVERSE_WEIGHTS:
            acc += w / total
            self.adverse_cum.append(acc)
        self.adverse_cum[-1] = 1.0
        self.apra_kinds = [k for k, n in APRA_KINDS for _ in range(n)]

    # -- output -----------------------------------------------------------------------------

    def put(self, key: str, values: list[str]) -> None:
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = _Part(self.part_path(key))
            self.samples[key] = values
        part.add(self.targets[key].line(values))

    def part_path(self, key: str) -> Path:
        return self.part_dir / f"{key.replace('/', '__')}.{self.index:02d}.part"

    def close(self) -> dict[str, int]:
        for part in self.parts.values():
            part.close()
        return {key: part.rows for key, part in self.parts.items()}

    # -- helpers ----------------------------------------------------------------------------

    def pick(self, seq: tuple[str, ...] | list[str]) -> str:
        return seq[int(self.rnd() * len(seq))]

    def d(self, key: str, day: int | None) -> str:
        if day is None:
            return ""
        if self.targets[key].date_format == "iso":
            return self.iso[day - self.base]
        return self.dmy_[day - self.base]

    def between(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        return lo + int(self.rnd() * (hi - lo + 1))

    def surname(self) -> str:
        if self.rnd() < W.LONG_TAIL_SURNAME_SHARE:
            return W.syllable_word(self.rnd, 1 + (self.rnd() < 0.7), self.pick(W.SURNAME_ENDINGS))
        return self.pick(W.SURNAMES)

    def person(self) -> Person:
        given_list = W.FEMALE_GIVEN if self.rnd() < 0.5 else W.MALE_GIVEN
        given = self.pick(given_list)
        middle = self.pick(given_list) if self.rnd() < 0.45 else ""
        birth = (
            self.between(self.end - 85 * 365, self.end - 20 * 365) if self.rnd() < 0.95 else None
        )
        return Person(given, middle, self.surname(), birth)

    def someone(self, director_share: float) -> tuple[Person, str]:
        """A person: sometimes a director drawn earlier in this chunk (with their company)."""
        if self.recent_directors and self.rnd() < director_share:
            return self.recent_directors[int(self.rnd() * len(self.recent_directors))]
        return self.person(), ""

    def address(self) -> tuple[str, str, str]:
        place = self.pick(W.PLACES)
        state = self.pick(("NSW", "VIC", "QLD", "WA", "SA", "TAS", "ACT", "NT"))
        return place, state, f"{int(self.rnd() * 7000) + 2000:04d}"

    # -- per entity -------------------------------------------------------------------------

    def entity(self, e: Entity) -> None:
        rnd = self.rnd
        p = self.p
        is_company = bool(e.acn) and e.style in COMPANY_STYLES
        if e.acn:
            self.officeholders(e)
        if not e.abn:
            return
        trade = ""
        if rnd() < (0.85 if e.active else 0.5):
            trade = self.industry(e)
        if trade and e.active:
            self.licences(e, trade)
        if rnd() < p["adverse"] * (1.0 if e.active else 0.4):
            self.adverse(e)
        if is_company:
            self.recent_companies.append(e)
            if len(self.recent_companies) > 64:
                del self.recent_companies[: len(self.recent_companies) - 64]
            if e.co_status in ("EXAD", "SOFF", "DRGD", "DISS") or rnd() < 0.002:
                self.gazette(e)
        if e.active and rnd() < 0.25:
            self.ppsr(e, is_company)
        if e.style == "super_fund" and e.active and rnd() < 0.97:
            self.register_row(e, "SUPER_FUNDS", "Complying", "Regulated superannuation fund",
                              acn=self.trustee_acn())  # fmt: skip
        if e.active:
            self.active_entity(e, is_company)
        if rnd() < p["banned_persons"]:
            self.banned_person()
        if rnd() < p["liquidators"]:
            self.liquidator(e.r)
        if rnd() < p["advisers"]:
            self.adviser(e)

    def active_entity(self, e: Entity, is_company: bool) -> None:
        rnd = self.rnd
        p = self.p
        individual_or_company = is_company or e.style == "individual"
        if individual_or_company and rnd() < p["tax_practitioners"]:
            u = rnd()
            status = "Current" if u < 0.85 else "Terminated" if u < 0.95 else "Suspended"
            self.register_row(e, "TAX_PRACTITIONERS", status, "Registered tax agent")
        if individual_or_company and rnd() < p["tax_debt"]:
            self.register_row(e, "TAX_DEBT", "Disclosed", "Tax debt over $100,000 disclosed")
        if individual_or_company and rnd() < p["gov_contracts"]:
            for k in range(1 + int(rnd() ** 2 * 5)):
                self.register_row(e, "GOV_CONTRACTS", "Published", "Contract notice", k=k)
        if e.style in CHARITY_STYLES and rnd() < p["charities"]:
            self.charity(e)
        if not is_company:
            return
        if e.style == "public_company":
            if rnd() < p["apra"]:
                self.register_row(e, "APRA_ENTITIES", "Registered", self.pick(self.apra_kinds))
            if rnd() < p["asx"]:
                self.asx(e)
            if rnd() < 0.3:
                self.charity(e)
        if rnd() < p["rd_incentive"]:
            self.register_row(e, "RD_INCENTIVE", "Registered", "R&D activities registered")
        if rnd() < p["modern_slavery"]:
            self.register_row(e, "MODERN_SLAVERY", "Published", "Modern slavery statement")
        if rnd() < p["wgea"]:
            self.register_row(e, "WGEA", "Compliant", "Employer of 100 or more staff")
        if rnd() < p["bcorp"]:
            self.register_row(e, "BCORP", "Certified", "Certified B Corporation", with_abn=False)
        if rnd() < p["afs"]:
            self.afs(e)
        if rnd() < p["credit"]:
            self.credit(e)
        if rnd() < p["banned_organisations"]:
            self.banned_organisation(e)

    # -- the registers ----------------------------------------------------------------------

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

    def adverse(self, e: Entity) -> None:
        rnd = self.rnd
        regulator = ADVERSE_WEIGHTS[bisect(self.adverse_cum, rnd())][0]
        key = f"adverse/{regulator}"
        action = self.pick(ACTION_TYPES.get(regulator, FREE_ACTIONS))
        severity = SEVERITIES[bisect(_SEVERITY_CUM, rnd())]
        u = rnd()
        status = "ACTIVE" if u < 0.35 else "RESOLVED" if u < 0.85 else "EXPIRED"
        day = self.between(self.end - 6 * 365, self.end - 1)
        resolved = self.between(day, self.end) if status == "RESOLVED" else None
        record_id = f"{regulator[:4]}-{e.r:09d}"
        self.put(key, [regulator, record_id, e.abn if rnd() < 0.88 else "", variant(e.name, self.rng),
                       action, severity, status, self.d(key, day), self.d(key, resolved),
                       f"{action.replace('_', ' ').capitalize()} issued",
                       f"https://example.gov.au/{regulator.lower()}/{record_id}"])  # fmt: skip

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

    def ppsr(self, e: Entity, is_company: bool) -> None:
        rnd = self.rnd
        if not is_company and rnd() > 0.03:
            return
        for k in range(1 + int(rnd() ** 2 * 6)):
            start = self.between(max(e.since, self.end - 20 * 365), self.end - 1)
            u = rnd()
            end = None if u < 0.6 else self.between(self.end + 1, self.end + 7 * 365) if u < 0.85 else self.between(start, self.end - 1)  # fmt: skip
            self.put("ppsr", [f"2{e.r:09d}{k:02d}", e.abn if rnd() < 0.7 else "",
                              e.acn, variant(e.name, self.rng), self.pick(COLLATERAL),
                              self.d("ppsr", start), self.d("ppsr", end)])  # fmt: skip

    def trustee_acn(self) -> str:
        if self.recent_companies and self.rnd() < 0.3:
            return self.recent_companies[-1].acn
        return ""

    def register_row(self, e: Entity, register: str, status: str, detail: str, *,
                     k: int = 0, acn: str | None = None, with_abn: bool = True) -> None:  # fmt: skip
        key = f"registers/{register}"
        person = e.person.given_first() if e.person is not None else ""
        name = "" if e.person is not None else variant(e.name, self.rng)
        day = self.between(max(e.since, self.end - 2 * 365), self.end - 1)
        self.put(key, [register, f"{register[:3]}{e.r:09d}{k}", e.abn if with_abn else "",
                       e.acn if acn is None else acn, name, person, status, self.d(key, day),
                       detail])  # fmt: skip

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

    def asx(self, e: Entity) -> None:
        if self.asx_used >= len(self.asx_codes):
            return
        code = self.asx_codes[self.asx_used]
        self.asx_used += 1
        self.put("asx", [variant(e.name, self.rng).upper(), code, self.pick(GICS)])

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

    def banned_organisation(self, e: Entity) -> None:
        rnd = self.rnd
        start = self.between(self.end - 15 * 365, self.end - 1)
        u = rnd()
        end = (
            "Permanent banning"
            if u < 0.3
            else ""
            if u < 0.45
            else self.d("banned_organisations", self.between(start, self.end + 5 * 365))
        )
        name = e.name.replace(" ", F.NBSP, 1) if rnd() < 0.2 else e.name
        self.put("banned_organisations", ["Banned and Disqualified Organisations", name,
                                          e.acn if rnd() < 0.85 else "",
                                          self.pick(("AFS Banned & Disqualified",
                                                     "Credit Banned & Disqualified")),
                                          self.d("banned_organisations", start), end,
                                          "Banned under the Corporations Act"])  # fmt: skip

    def banned_person(self) -> None:
        rnd = self.rnd
        person, _ = self.someone(0.35)
        u = rnd()
        acc = 0.0
        kind = BANNED_TYPES[0][0]
        for k, w in BANNED_TYPES:
            acc += w
            if u < acc:
                kind = k
                break
        start = self.between(self.end - 15 * 365, self.end - 1)
        v = rnd()
        end = None if v < 0.4 else self.between(start, self.end - 1) if v < 0.7 else self.between(self.end + 1, self.end + 10 * 365)  # fmt: skip
        place, state, pcode = self.address()
        self.put("banned_persons", ["Banned and Disqualified Persons", person.surname_first(),
                                    kind, f"{int(rnd() * 900000) + 100000}",
                                    self.d("banned_persons", start), self.d("banned_persons", end),
                                    place, state, pcode, "AUSTRALIA", ""])  # fmt: skip

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

    def adviser(self, e: Entity) -> None:
        rnd = self.rnd
        if not self.recent_afs:
            return
        if e.person is not None and e.active and rnd() < 0.5:
            person, abn = e.person, e.abn
        else:
            person, abn = self.someone(0.2)[0], ""
        number = f"{e.r:09d}"
        for k in range(1 if rnd() < 0.8 else 2):
            lic_num, lic_name, lic_abn = self.recent_afs[int(rnd() * len(self.recent_afs))]
            start = self.between(self.end - 20 * 365, self.end - 1)
            current = k == 0 and rnd() < 0.78
            end = None if current else self.between(start, self.end - 1)
            self.put("advisers", adviser_row(self.d, number, person.given_first(), abn,
                                             lic_name, lic_num, lic_abn, start, end,
                                             "Registered" if current else "Not Registered"))  # fmt: skip

    # ---------------------------------------------------------------------------------------


def _licence_number(register: str, r: int, k: int) -> str:
    n = r * 3 + k
    if register == "QBCC":
        return f"{1_000_000 + n}"
    if register == "NSW_FAIR_TRADING":
        return f"{100_000 + n}C"
    if register == "VBA":
        return f"DB-U {n:08d}"
    return f"BLD{n:09d}"


def adviser_row(
    d: object, number: str, name: str, abn: str, lic_name: str, lic_num: str, lic_abn: str,
    start: int, end: int | None, overall: str, *, banned_from: int | None = None,
) -> list[str]:  # fmt: skip
    """One row of the 76-column advisers file (``d(key, day)`` formats a date)."""
    fmt = d  # type: ignore[assignment]
    role_status = "Current" if end is None else "Ceased"
    da = [fmt("advisers", banned_from), "", "Banned", "Permanently banned from providing financial services"] if banned_from is not None else ["", "", "", ""]  # type: ignore[operator]  # fmt: skip
    head = [
        "Financial Advisers", name, number, "Financial adviser", "Relevant provider",
        role_status, abn, "", lic_name, lic_num, lic_abn, "", "", "", "",
        fmt("advisers", start), fmt("advisers", end), *da, overall,  # type: ignore[operator]
        overall, fmt("advisers", start), fmt("advisers", end), "", "", "", "AUSTRALIA",  # type: ignore[operator]
        "Diploma of Financial Planning", "FAAA", "", "", "10", "N", "", "", "", "ASIC", "",
    ]  # fmt: skip
    tail = [
        "Y" if (i * 7 + len(name)) % 3 == 0 else "N" for i in range(len(F.ADVISERS) - len(head) - 4)
    ]
    return head + tail + ["Y", "N", "", ""]
