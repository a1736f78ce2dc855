"""Planted cases: one dedicated ABR entity per outcome of every register check and risk flag.

For each row of SPEC 3.3 the warehouse can decide, and each trigger of SPEC 2.4 (but
WARN_CLUSTER, which needs live checks), :func:`build_cases` makes an entity with a
distinctive name (coined four-syllable words, which the background generator never draws,
so no background record matches it by accident), its ABR record, ASIC company rows,
officeholders and industry code as the case needs, and the register rows that give the
expected outcome; next to most, the neighbour that must not (a deregistration 37 months
back instead of 35, two adverse records instead of three, a name just below a similarity
threshold, a same-name director born on another day, a licence expired 13 months ago...).

All dates count back from one as-of date (the extract date + 2 days). The cases are extra
ABR records appended to the last ABR file, present at every scale; their identifiers come
from index ranges the background never uses (ACN and ABN indexes from 2 * scale up, register
ids with a ``P`` marker). Each case is listed in ``_sample/planted.json`` under ``cases``
(schema in data/README.md). Name pairs are checked with :mod:`pipelines.matching` as they are
built: matches above the register's threshold, decoys below it.
"""

from __future__ import annotations

import calendar
import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bvs_sample import formats as F
from bvs_sample import words as W
from bvs_sample.entity_types import ENTITY_TYPES
from bvs_sample.families.advisers import adviser_row
from bvs_sample.families.asx import ASX_CODE_CAPACITY, asx_codes
from bvs_sample.numbering import Numbering
from pipelines.identifiers import abn_from_acn
from pipelines.matching import normalise_name, person_names_match, trigram_similarity

CRLF = "\r\n"
ALL_FLAGS = (
    "PHOENIX_PATTERN", "ADVERSE_ACTIVE", "FINANCIAL_ADVISER_BANNED", "LIQUIDATOR_LINKED",
    "LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE", "ADVERSE_PATTERN", "COMPLIANCE_DUAL_FAILURE",
)  # fmt: skip

# (threshold, inclusive) of name similarity per match table (SPEC 3.3; CONTRACT decision 8:
# "above" is >, "at least" is >=).
THRESHOLDS: dict[str, tuple[float, bool]] = {
    "match_insolvency": (0.75, False),
    "match_adverse": (0.55, False),
    "match_adverse/NDIS_COMMISSION": (0.65, False),
    "match_adverse/ACCC-competition": (0.6, True),
    "match_gazette": (0.72, False),
    "match_banned_organisations": (0.75, True),
    "match_banned_persons": (0.75, True),
    "match_registers/TAX_DEBT": (0.75, True),
    "match_registers/MODERN_SLAVERY": (0.65, True),
    "match_registers/BCORP": (0.7, True),
    "match_business_names": (0.8, True),
    "match_financial_advisers": (0.8, True),
    "match_licences": (0.8, True),
    "match_afs_licensees": (0.8, True),
    "match_credit_licensees": (0.8, True),
    "match_asx_listed": (0.8, True),
}


def name_similarity(a: str, b: str) -> float:
    """pg_trgm similarity of the two names after the project's normalisation."""
    return trigram_similarity(normalise_name(a) or "", normalise_name(b) or "")


def passes(score: float, threshold: float, inclusive: bool) -> bool:
    return score >= threshold if inclusive else score > threshold


@dataclass
class CasePlan:
    as_of: dt.date
    abr_lines: list[str] = field(default_factory=list)
    company_rows: list[str] = field(default_factory=list)
    business_name_rows: list[str] = field(default_factory=list)
    rows: dict[str, list[list[str]]] = field(default_factory=dict)  # target key -> rows
    cases: list[dict[str, Any]] = field(default_factory=list)
    # Supplier ledgers (bvs_sample.ledgers): planted rows per (customer, ledger) and
    # what each should give.
    ledger_rows: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    ledger_cases: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Ent:
    abn: str
    acn: str
    name: str  # main name, or "GIVEN FAMILY" of an individual
    j: int  # case entity number: register ids are built from it
    person: tuple[str, str] | None = None  # (given, family) of an individual


@dataclass
class Officer:
    given: str
    family: str
    birth: dt.date | None
    middle: str = ""

    def surname_first(self) -> str:
        given = f"{self.given} {self.middle}".strip()
        return f"{self.family}, {given}"

    def given_first(self) -> str:
        return " ".join(p.title() for p in (self.given, self.middle, self.family) if p)


_CODES = {t.code: t for t in ENTITY_TYPES}

# The sample is written for an as-of date: its extracts are dated this long before it, so a
# freshly written sample is inside every source's refresh_days (the shortest is 4 days,
# pipelines/ingest/sources.py) and the planted cases are built around that as-of date.
EXTRACT_AGE = dt.timedelta(days=2)


class Builder:
    def __init__(self, scale: int, seed: int, extract_date: dt.date) -> None:
        self.as_of = extract_date + EXTRACT_AGE
        self.extract = extract_date
        self.rng = random.Random(f"bvs-sample-cases:{seed}")
        self.numbers = Numbering(seed)
        self.acn_index = 2 * scale
        self.body_index = 2 * scale
        self.j = 0
        self.targets = F.targets(extract_date)
        self.plan = CasePlan(self.as_of)
        self.used: set[str] = set()
        self.asx = asx_codes(seed)[20 * ASX_CODE_CAPACITY :]

    # -- dates ----------------------------------------------------------------------------

    def months(self, n: int, days: int = 0) -> dt.date:
        """n calendar months before the as-of date (day clipped to the month's length)."""
        y, m = divmod(self.as_of.year * 12 + self.as_of.month - 1 - n, 12)
        day = min(self.as_of.day, calendar.monthrange(y, m + 1)[1])
        return dt.date(y, m + 1, day) - dt.timedelta(days=days)

    def ago(self, days: int) -> dt.date:
        return self.as_of - dt.timedelta(days=days)

    def ahead(self, days: int) -> dt.date:
        return self.as_of + dt.timedelta(days=days)

    # -- names ----------------------------------------------------------------------------

    def word(self, syllables: int = 4) -> str:
        """A coined word the background never draws (it uses at most three syllables)."""
        while True:
            w = W.syllable_word(self.rng.random, syllables)
            if w not in self.used and 8 <= len(w) <= 16:
                self.used.add(w)
                return w

    def company_name(self) -> str:
        return f"{self.word()} {self.word()} PTY LTD"

    def near(self, base: str, threshold: float, *, band: float = 0.08) -> str:
        """A name whose similarity to ``base`` is just below ``threshold`` (within ``band``)."""
        target = normalise_name(base) or ""
        words = target.split()
        best: tuple[float, str] | None = None
        for attempt in range(3000):
            w = list(words)
            i = 1 if len(w) > 1 else 0
            keep = int(self.rng.random() * len(w[i]))
            w[i] = w[i][:keep] + W.syllable_word(
                self.rng.random, 1 + int(self.rng.random() * 3), prefix=w[i][:keep]
            )
            if attempt % 3 == 0:
                w.append(W.syllable_word(self.rng.random, 2))
            candidate = " ".join(w) + " PTY LTD"
            score = name_similarity(candidate, base)
            if threshold - band <= score < threshold - 0.005:
                if best is None or score > best[0]:
                    best = (score, candidate)
                if score > threshold - 0.03:
                    break
        assert best is not None, f"no name just below {threshold} for {base}"
        return best[1]

    def officer(self, given: str = "", family: str = "", birth: dt.date | None = None) -> Officer:
        given = given or self.rng.choice(W.MALE_GIVEN + W.FEMALE_GIVEN)
        return Officer(
            given,
            family or self.word(3) + "SON",
            birth or self.ago(365 * 40 + int(self.rng.random() * 9000)),
        )

    # -- ABR and ASIC rows ----------------------------------------------------------------

    def _ymd(self, d: dt.date) -> str:
        return d.strftime("%Y%m%d")

    def _dmy(self, d: dt.date | None) -> str:
        return d.strftime("%d/%m/%Y") if d else ""

    def abr(
        self,
        *,
        code: str = "PRV",
        name: str = "",
        person: tuple[str, str] | None = None,
        status: str = "ACT",
        status_from: dt.date | None = None,
        acn: str = "",
        gst: tuple[str, dt.date | None] | None = ("ACT", None),
        state: str = "QLD",
        postcode: str = "4000",
        abn: str = "",
    ) -> str:
        since = status_from or self.months(96)
        et = _CODES[code]
        address = f"<BusinessAddress><AddressDetails><State>{state}</State><Postcode>{postcode}</Postcode></AddressDetails></BusinessAddress>"
        if person is not None:
            entity = (
                '<LegalEntity><IndividualName type="LGL">'
                f"<GivenName>{person[0]}</GivenName><FamilyName>{person[1]}</FamilyName>"
                f"</IndividualName>{address}</LegalEntity>"
            )
        else:
            entity = (
                '<MainEntity><NonIndividualName type="MN"><NonIndividualNameText>'
                f"{name.replace('&', '&amp;').replace(chr(39), '&apos;')}"
                f"</NonIndividualNameText></NonIndividualName>{address}</MainEntity>"
            )
        gst_xml = ""
        if gst is not None:
            if gst[0] == "NON":
                gst_xml = '<GST status="NON" GSTStatusFromDate="19000101" />'
            else:
                gst_xml = (
                    f'<GST status="{gst[0]}" GSTStatusFromDate="{self._ymd(gst[1] or since)}" />'
                )
        asic = f'<ASICNumber ASICNumberType="undetermined">{acn}</ASICNumber>' if acn else ""
        self.plan.abr_lines.append(
            f'<ABR recordLastUpdatedDate="{self._ymd(min(self.extract, since))}" replaced="N">'
            f'<ABN status="{status}" ABNStatusFromDate="{self._ymd(since)}">{abn}</ABN>'
            f"<EntityType><EntityTypeInd>{et.code}</EntityTypeInd><EntityTypeText>{et.text}"
            f"</EntityTypeText></EntityType>{entity}{asic}{gst_xml}</ABR>\n"
        )
        return abn

    def company_row(
        self,
        name: str,
        acn: str,
        abn: str,
        status: str = "REGD",
        reg: dt.date | None = None,
        dereg: dt.date | None = None,
        *,
        current: str = "",
        current_start: dt.date | None = None,
        ctype: str = "APTY",
    ) -> None:
        cls, sub = ("LMSH", "PROP") if ctype == "APTY" else ("LMSH", "LISN")
        indicator = "" if current else "Y"
        self.plan.company_rows.append(
            f"{name}\t{acn}\t{ctype}\t{cls}\t{sub}\t{status}\t{self._dmy(reg or self.months(120))}\t"
            f"{self._dmy(dereg)}\t\t\tN\t{indicator}\t{abn}\t{current}\t{self._dmy(current_start)}{CRLF}"
        )

    def next_acn(self) -> str:
        acn = self.numbers.acn_for(self.acn_index)
        self.acn_index += 1
        return acn

    def company(
        self,
        name: str = "",
        *,
        co_status: str = "REGD",
        abn_status: str = "ACT",
        status_from: dt.date | None = None,
        code: str = "PRV",
        in_asic: bool = True,
        dereg: dt.date | None = None,
        gst: tuple[str, dt.date | None] | None = ("ACT", None),
        state: str = "QLD",
        postcode: str = "4000",
        reg: dt.date | None = None,
    ) -> Ent:
        """A company in the ABR and (unless ``in_asic`` is False) the ASIC company file."""
        name = name or self.company_name()
        acn = self.next_acn()
        abn = abn_from_acn(acn)
        self.abr(code=code, name=name, status=abn_status, status_from=status_from, acn=acn,
                 gst=gst, state=state, postcode=postcode, abn=abn)  # fmt: skip
        if in_asic:
            self.company_row(name, acn, abn, co_status, reg or self.months(120), dereg,
                             ctype="APUB" if code == "PUB" else "APTY")  # fmt: skip
        self.j += 1
        return Ent(abn, acn, name, self.j)

    def other(self, name: str = "", code: str = "PTR", **kwargs: Any) -> Ent:
        """A non-company entity (partnership, trust, association): no ACN."""
        name = name or f"{self.word()} {self.word()} TRADING"
        abn = self.numbers.abn_for(self.body_index)
        self.body_index += 1
        self.abr(code=code, name=name, abn=abn, **kwargs)
        self.j += 1
        return Ent(abn, "", name, self.j)

    def individual(self, given: str = "", family: str = "", **kwargs: Any) -> Ent:
        given = given or self.rng.choice(W.MALE_GIVEN + W.FEMALE_GIVEN)
        family = family or self.word(3) + "SON"
        abn = self.numbers.abn_for(self.body_index)
        self.body_index += 1
        kwargs.setdefault("gst", None)
        self.abr(code="IND", person=(given, family), abn=abn, **kwargs)
        self.j += 1
        return Ent(abn, "", f"{given} {family}", self.j, (given, family))

    def deregistered_company(self, dereg: dt.date, name: str = "") -> tuple[str, str]:
        """A company deregistered on ``dereg``, in the ASIC file (no ABR record): (acn, name).

        The real extract drops a company about a year after deregistration; the warehouse
        keeps history across extracts. A single sample has one extract, so the planted
        deregistered companies stay in it with their old deregistration date.
        """
        name = name or self.company_name()
        acn = self.next_acn()
        self.company_row(name, acn, "", "DRGD", self.months(150), dereg)
        return acn, name

    def bn(self, ent: Ent, name: str, status: str = "Registered", *, abn: bool = True,
           reg: dt.date | None = None) -> None:  # fmt: skip
        cancel = self._dmy(self.months(5)) if status != "Registered" else ""
        self.plan.business_name_rows.append(
            f"BUSINESS NAMES\t   {name}\t{status}\t{self._dmy(reg or self.months(60))}\t{cancel}\t\t\t"
            f"{ent.abn if abn else ''}{CRLF}"
        )

    # -- register rows --------------------------------------------------------------------

    def row(self, key: str, **values: Any) -> list[str]:
        target = self.targets[key]
        out = []
        for column in target.columns:
            v = values.get(column, "")
            out.append(target.date(v) if isinstance(v, dt.date) else ("" if v is None else str(v)))
        self.plan.rows.setdefault(key, []).append(out)
        return out

    def officeholder(self, acn: str, o: Officer, role: str = "DIRECTOR", *,
                     appointed: dt.date | None = None, ceased: dt.date | None = None) -> None:  # fmt: skip
        self.row("directors", acn=acn, person_name=o.surname_first(), role=role,
                 appointed_date=appointed or self.months(100), ceased_date=ceased,
                 birth_date=o.birth, extracted_date=self.extract)  # fmt: skip

    def industry(self, ent: Ent, code: str) -> None:
        c, text, _ = F.ANZSIC_BY_CODE[code]
        self.row("industry", abn=ent.abn, anzsic_code=c, anzsic_description=text)

    def adverse(self, ent: Ent | None, regulator: str, severity: str, status: str, *,
                day: dt.date | None = None, action: str = "", name: str = "",
                abn: bool = True, k: int = 0) -> dict[str, str]:  # fmt: skip
        record_id = f"{regulator[:4]}-P{ent.j if ent else 0:05d}{k}"
        action = action or {"ACCC": "COURT_ORDER", "FWO": "COMPLIANCE_NOTICE",
                            "NDIS_COMMISSION": "BANNING_ORDER"}.get(regulator, "Disciplinary action")  # fmt: skip
        day = day or self.months(4)
        self.row(f"adverse/{regulator}", regulator=regulator, record_id=record_id,
                 abn=ent.abn if (ent and abn) else "", entity_name=name or (ent.name if ent else ""),
                 action_type=action, severity=severity, status=status, action_date=day,
                 resolved_date=self.months(1) if status == "RESOLVED" else None,
                 summary=f"{action.replace('_', ' ').capitalize()} (planted case)",
                 url=f"https://example.gov.au/{regulator.lower()}/{record_id}")  # fmt: skip
        return {"regulator": regulator, "record_id": record_id}

    def licence(self, ent: Ent, register: str, trade: str, status: str, *, k: int = 0,
                expiry: dt.date | None = None, abn: bool = True, acn: bool = False,
                name: str = "") -> dict[str, str]:  # fmt: skip
        number = f"{register[:2]}P{ent.j:05d}{k}"
        if expiry is None:
            expiry = self.ahead(400) if status in ("ACTIVE", "CONDITIONAL") else self.months(3)
        self.row(f"licences/{register}", register=register, licence_number=number,
                 licensee_name=name or ent.name, abn=ent.abn if abn else "",
                 acn=ent.acn if acn else "", licence_class="Contractor licence", trade=trade,
                 status=status, granted_date=self.months(60), expiry_date=expiry)  # fmt: skip
        return {"register": register, "licence_number": number}

    def register(self, ent: Ent, register: str, status: str, *, abn: bool = True,
                 acn: str = "", name: str = "", person: str = "", k: int = 0) -> dict[str, str]:  # fmt: skip
        record_id = f"{register[:3]}P{ent.j:05d}{k}"
        self.row(f"registers/{register}", register=register, record_id=record_id,
                 abn=ent.abn if abn else "", acn=acn, entity_name=name or ("" if person else ent.name),
                 person_name=person, status=status, status_date=self.months(8),
                 detail="planted case")  # fmt: skip
        return {"register": register, "record_id": record_id}

    # -- the case list --------------------------------------------------------------------

    def case(
        self,
        case_id: str,
        ent: Ent | None,
        spec: str,
        check: str | None = None,
        status: str | None = None,
        *,
        flags: tuple[str, ...] = (),
        not_flags: tuple[str, ...] = (),
        matches: list[dict[str, Any]] | None = None,
        non_matches: list[dict[str, Any]] | None = None,
        abn: str = "",
        in_abr: bool = True,
    ) -> None:
        doc: dict[str, Any] = {"id": case_id, "abn": ent.abn if ent else abn, "spec": spec}
        if ent is not None:
            doc["entity_name"] = ent.name
            if ent.acn:
                doc["acn"] = ent.acn
        if not in_abr:
            doc["in_abr"] = False
        if check is not None:
            doc["check"] = check
            doc["status"] = status
        doc["flags"] = list(flags)
        doc["not_flags"] = list(not_flags)
        doc["matches"] = matches or []
        doc["non_matches"] = non_matches or []
        for m in doc["matches"] + doc["non_matches"]:
            if "name" in m:  # name-based: check the pair against the table's threshold now
                threshold, inclusive = THRESHOLDS[m.pop("threshold_key", m["table"])]
                score = name_similarity(m["name"], doc["entity_name"])
                m["threshold"] = threshold
                m["score"] = round(score, 6)
                matched = passes(score, threshold, inclusive)
                wanted = m in doc["matches"]
                assert matched == wanted, (case_id, m, score)
        self.plan.cases.append(doc)


def match(
    table: str, record: Mapping[str, str | None], method: str | None = None, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"table": table, "record": dict(record)}
    if method is not None:
        out["method"] = method
    out.update(extra)
    return out


def build_cases(*, scale: int, seed: int, extract_date: dt.date) -> CasePlan:
    b = Builder(scale, seed, extract_date)
    _abn_status(b)
    _gst(b)
    _company_status(b)
    _business_names(b)
    _insolvency(b)
    _gazette(b)
    _conduct(b)
    _adverse_pattern(b)
    _competition(b)
    _workplace(b)
    _disability(b)
    _licence(b)
    _phoenix(b)
    _persons(b)
    _financial_services(b)
    _registers(b)
    _matches_only(b)
    from bvs_sample.ledgers import plant_ledger_cases

    plant_ledger_cases(b)
    return b.plan


# -- per check ---------------------------------------------------------------------------------


def _abn_status(b: Builder) -> None:
    s = "ABN active, age at least 6 months, name match at least 90% => PASS"
    b.case("abn_status/active-7-months", b.company(status_from=b.months(7)), s, "abn_status", "PASS",
           not_flags=ALL_FLAGS)  # fmt: skip
    b.case("abn_status/active-exactly-6-months", b.company(status_from=b.months(6)), s,
           "abn_status", "PASS")  # fmt: skip
    b.case("abn_status/active-5-months", b.company(status_from=b.months(5), reg=b.months(5)),
           "ABN active, age 1 to 6 months => WARN", "abn_status", "WARN")  # fmt: skip
    b.case("abn_status/active-2-weeks", b.individual(status_from=b.ago(14)),
           "ABN active, age under 1 month => WARN (weight of concern rises with recency)",
           "abn_status", "WARN")  # fmt: skip
    b.case("abn_status/cancelled", b.individual(status="CAN", status_from=b.months(3)),
           "ABN cancelled, suspended or not found => FAIL", "abn_status", "FAIL")  # fmt: skip
    missing = b.numbers.abn_for(b.body_index)
    b.body_index += 1
    b.case("abn_status/not-found", None, "ABN cancelled, suspended or not found => FAIL",
           "abn_status", "FAIL", abn=missing, in_abr=False)  # fmt: skip
    # Reinstated: the company and its business name are old, the ABN status only 2 months.
    ent = b.company(status_from=b.months(2), reg=b.months(130))
    b.bn(ent, f"{b.word()} {b.word()}", reg=b.months(100))
    b.case("abn_status/reinstated-2-months", ent,
           "ABN age is measured from the status_from date of the business register record, so a "
           "cancelled-and-reinstated ABN restarts the clock.", "abn_status", "WARN")  # fmt: skip
    b.case("abn_status/company-deregistered",
           b.company(co_status="DRGD", dereg=b.months(2)),
           "Corporate-register company status deregistered => FAIL", "abn_status", "FAIL")  # fmt: skip


def _gst(b: Builder) -> None:
    b.case("gst/registered-4-months", b.company(gst=("ACT", b.months(4))),
           "Registered, age at least 3 months => PASS", "gst", "PASS")  # fmt: skip
    b.case("gst/registered-2-months", b.company(gst=("ACT", b.months(2))),
           "Registered, age under 3 months => WARN", "gst", "WARN")  # fmt: skip
    b.case("gst/not-registered-company", b.company(gst=("NON", None)),
           "Not registered; company or partnership => WARN", "gst", "WARN")  # fmt: skip
    b.case("gst/not-registered-partnership", b.other(code="PTR", gst=None),
           "Not registered; company or partnership => WARN", "gst", "WARN")  # fmt: skip
    b.case("gst/not-registered-individual", b.individual(),
           "Not registered; individual or sole trader => N/A", "gst", "N/A")  # fmt: skip


def _company_status(b: Builder) -> None:
    for status, outcome, row in (
        ("REGD", "PASS", "REGD => PASS"),
        ("DRGD", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("SOFF", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("CNCL", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("DISS", "FAIL", "DRGD, SOFF, CNCL or DISS => FAIL"),
        ("EXAD", "WARN", "EXAD or NOAC => WARN"),
        ("NOAC", "WARN", "EXAD or NOAC => WARN"),
    ):
        abn_status = "CAN" if status in ("DRGD", "CNCL", "DISS") else "ACT"
        dereg = b.months(3) if status == "DRGD" else None
        ent = b.company(co_status=status, abn_status=abn_status, dereg=dereg)
        b.case(f"company_status/{status.lower()}", ent, row, "company_status", outcome)
    b.case("company_status/acn-not-found", b.company(in_asic=False), "ACN not found => N/A",
           "company_status", "N/A")  # fmt: skip
    b.case("company_status/no-acn", b.other(code="DTT", name=f"THE TRUSTEE FOR {b.word()} TRUST"),
           "ACN not found => N/A", "company_status", "N/A")  # fmt: skip


def _business_names(b: Builder) -> None:
    t = "match_business_names"
    ent = b.company()
    name = f"{b.word()} {b.word()}"
    b.bn(ent, name)
    b.case("business_names/active", ent, "Active registration(s) found => PASS", "business_names",
           "PASS", matches=[match(t, {"business_name": name, "state_number": None}, "abn")])  # fmt: skip
    ent = b.company()
    n1, n2 = f"{b.word()} {b.word()}", f"{b.word()} {b.word()}"
    b.bn(ent, n1, "Cancelled")
    b.bn(ent, n2, "Deregistered")
    b.case("business_names/only-cancelled", ent,
           "Only deregistered names, no active replacement => WARN", "business_names", "WARN",
           matches=[match(t, {"business_name": n, "state_number": None}, "abn") for n in (n1, n2)])  # fmt: skip
    b.case("business_names/none", b.company(), "No registration => N/A", "business_names", "N/A")
    ent = b.company()
    variant = ent.name.replace(" PTY LTD", "")
    b.bn(ent, variant, abn=False)
    b.case("business_names/name-match-without-abn", ent,
           "business names register: ABN plus name similarity at least 0.8 (name) => PASS",
           "business_names", "PASS",
           matches=[match(t, {"business_name": variant, "state_number": None}, "name", name=variant)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.8)
    b.bn(ent, decoy, abn=False)
    b.case("business_names/name-decoy", ent,
           "business names register: name similarity below 0.8 is no match => N/A",
           "business_names", "N/A",
           non_matches=[match(t, {"business_name": decoy, "state_number": None}, name=decoy)])  # fmt: skip


def _insolvency(b: Builder) -> None:
    t = "match_insolvency"
    ent = b.company(co_status="EXAD")
    b.case("insolvency/exad-by-abn", ent, "Found with status EXAD => FAIL", "insolvency", "FAIL",
           matches=[match(t, {"acn": ent.acn}, "abn")])  # fmt: skip
    ent = b.company(co_status="DISS", abn_status="CAN")
    b.case("insolvency/diss-by-abn", ent,
           "only status EXAD or DISS retained (a DISS company is on the register)",
           matches=[match(t, {"acn": ent.acn}, "abn")])  # fmt: skip
    # name matches: a partnership trading under the name of a company in administration
    ent = b.other()
    acn = b.next_acn()
    b.company_row(f"{ent.name} PTY. LTD.", acn, "", "EXAD", b.months(80))
    b.case("insolvency/exad-name-match", ent,
           "Found with status EXAD => FAIL (name trigram above 0.75 against company_name)",
           "insolvency", "FAIL",
           matches=[match(t, {"acn": acn}, "name", name=f"{ent.name} PTY. LTD.")])  # fmt: skip
    ent = b.other()
    acn = b.next_acn()
    current = b.company_name()
    b.company_row(current, acn, "", "EXAD", b.months(80))
    b.company_row(f"{ent.name} PTY LTD", acn, "", "EXAD", b.months(80), current=current,
                  current_start=b.months(20))  # fmt: skip
    b.case("insolvency/exad-former-name-match", ent,
           "Found with status EXAD => FAIL (name trigram above 0.75 against company_name and "
           "current_name: here a former name)", "insolvency", "FAIL",
           matches=[match(t, {"acn": acn}, "name", name=f"{ent.name} PTY LTD")])  # fmt: skip
    ent = b.other()
    acn = b.next_acn()
    decoy = b.near(ent.name, 0.75)
    b.company_row(decoy, acn, "", "EXAD", b.months(80))
    b.case("insolvency/name-decoy", ent, "Not found => PASS (name similarity not above 0.75)",
           "insolvency", "PASS", non_matches=[match(t, {"acn": acn}, name=decoy)])  # fmt: skip
    b.case("insolvency/not-found", b.company(), "Not found => PASS", "insolvency", "PASS")


def _gazette(b: Builder) -> None:
    t = "match_gazette"

    def notice(ent: Ent, name: str, *, acn: str = "", k: int = 0) -> dict[str, str]:
        notice_id = f"GZP{ent.j:05d}{k}"
        b.row("gazette", notice_id=notice_id, published_date=b.months(2),
              notice_type="APPOINTMENT_OF_LIQUIDATOR", company_name=name, acn=acn, abn="",
              summary="Appointment of liquidator", url=f"https://example.gov.au/notices/{notice_id}")  # fmt: skip
        return {"notice_id": notice_id}

    ent = b.company()
    b.case("gazette/notice-by-acn", ent, "Matching notice => FAIL", "gazette", "FAIL",
           matches=[match(t, notice(ent, ent.name, acn=ent.acn), "acn")])  # fmt: skip
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PTY. LIMITED")
    b.case("gazette/notice-by-name", ent, "Matching notice => FAIL (name trigram above 0.72)",
           "gazette", "FAIL", matches=[match(t, notice(ent, name), "name", name=name)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.72)
    b.case("gazette/name-decoy", ent, "No matching notices => PASS (similarity not above 0.72)",
           "gazette", "PASS", non_matches=[match(t, notice(ent, decoy), name=decoy)])  # fmt: skip
    b.case("gazette/no-notice", b.company(), "No matching notices => PASS", "gazette", "PASS")


CONDUCT_REGULATORS = ("ACCC", "QBCC", "NSW_FAIR_TRADING", "VBA_BPC", "QLD_OFT")


def _conduct(b: Builder) -> None:
    t = "match_adverse"
    b.case("conduct/no-records", b.company(), "No records => PASS", "conduct", "PASS",
           not_flags=("ADVERSE_ACTIVE", "ADVERSE_PATTERN"))  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "QBCC", "LOW", "ACTIVE")
    b.case("conduct/low-only", ent, "Low-severity or resolved records only => WARN", "conduct",
           "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "NSW_FAIR_TRADING", "HIGH", "RESOLVED")
    b.case("conduct/resolved-only", ent, "Low-severity or resolved records only => WARN",
           "conduct", "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "QBCC", "CRITICAL", "EXPIRED")
    b.case("conduct/expired-critical", ent,
           "Low-severity or resolved records only => WARN (an expired record is no longer active)",
           "conduct", "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "QLD_OFT", "MEDIUM", "ACTIVE")
    b.case("conduct/active-medium", ent, "Active MEDIUM or HIGH records => WARN", "conduct",
           "WARN", not_flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    for regulator in CONDUCT_REGULATORS:
        ent = b.company()
        r = b.adverse(ent, regulator, "HIGH", "ACTIVE")
        b.case(f"conduct/active-high-{regulator.lower()}", ent,
               "Active MEDIUM or HIGH records => WARN; ADVERSE_ACTIVE: name or ABN matches an active "
               "(unresolved) enforcement record of severity HIGH or CRITICAL", "conduct", "WARN",
               flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
        ent = b.company()
        r = b.adverse(ent, regulator, "CRITICAL", "ACTIVE")
        b.case(f"conduct/active-critical-{regulator.lower()}", ent,
               "Active CRITICAL record => FAIL (and ADVERSE_ACTIVE fires)", "conduct", "FAIL",
               flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    name = ent.name.title()
    r = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE", abn=False, name=name)
    b.case("conduct/name-match", ent,
           "Active CRITICAL record => FAIL (and ADVERSE_ACTIVE fires); name trigram above 0.55",
           "conduct", "FAIL", flags=("ADVERSE_ACTIVE",), matches=[match(t, r, "name", name=name)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.55)
    r = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE", abn=False, name=decoy)
    b.case("conduct/name-decoy", ent, "No records => PASS (name similarity not above 0.55)",
           "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",),
           non_matches=[match(t, r, name=decoy)])  # fmt: skip
    ent = b.company()
    b.adverse(ent, "NDIS_COMMISSION", "CRITICAL", "ACTIVE")
    b.case("conduct/ndis-record-is-not-conduct", ent,
           "ADVERSE_ACTIVE lists the competition regulator, QBCC, NSW Fair Trading, VBA/BPC and "
           "QLD OFT only", "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",))  # fmt: skip
    ent = b.company()
    b.adverse(ent, "FWO", "CRITICAL", "ACTIVE", action="LITIGATION")
    b.case("conduct/fwo-record-is-not-conduct", ent,
           "ADVERSE_ACTIVE lists the competition regulator, QBCC, NSW Fair Trading, VBA/BPC and "
           "QLD OFT only", "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",))  # fmt: skip


def _adverse_pattern(b: Builder) -> None:
    s = "ADVERSE_PATTERN: Three or more adverse records within 24 months spanning multiple government authorities."
    t = "match_adverse"

    def records(ent: Ent, spec: list[tuple[str, int]]) -> list[dict[str, Any]]:
        return [
            match(t, b.adverse(ent, reg, "LOW", "RESOLVED", day=b.months(m), k=k), "abn")
            for k, (reg, m) in enumerate(spec)
        ]

    ent = b.company()
    rs = records(ent, [("ACCC", 20), ("QBCC", 10), ("NSW_FAIR_TRADING", 3)])
    b.case("adverse_pattern/three-records-three-regulators", ent, s, "conduct", "WARN",
           flags=("ADVERSE_PATTERN",), not_flags=("ADVERSE_ACTIVE",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("QBCC", 23), ("QBCC", 10), ("QLD_OFT", 2)])
    b.case("adverse_pattern/three-records-two-regulators", ent, s, "conduct", "WARN",
           flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("ACCC", 10), ("QBCC", 3)])
    b.case("adverse_pattern/two-records", ent, s + " (two records: no flag)", "conduct", "WARN",
           not_flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("ACCC", 25), ("QBCC", 10), ("NSW_FAIR_TRADING", 3)])
    b.case("adverse_pattern/one-record-25-months-old", ent, s + " (one is 25 months old: no flag)",
           "conduct", "WARN", not_flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip
    ent = b.company()
    rs = records(ent, [("QBCC", 20), ("QBCC", 10), ("QBCC", 3)])
    b.case("adverse_pattern/one-regulator", ent, s + " (one authority: no flag)", "conduct",
           "WARN", not_flags=("ADVERSE_PATTERN",), matches=rs)  # fmt: skip


def _competition(b: Builder) -> None:
    t = "match_adverse"
    ent = b.company()
    r = b.adverse(ent, "ACCC", "MEDIUM", "RESOLVED", action="UNDERTAKING")
    b.case("competition_enforcement/action-by-abn", ent, "action found => FAIL",
           "competition_enforcement", "FAIL", matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PROPRIETARY LIMITED")
    r = b.adverse(
        ent, "ACCC", "LOW", "RESOLVED", action="INFRINGEMENT_NOTICE", abn=False, name=name
    )
    b.case("competition_enforcement/action-by-name", ent,
           "action found => FAIL (name trigram at least 0.6)", "competition_enforcement", "FAIL",
           matches=[match(t, r, "name", name=name, threshold_key="match_adverse/ACCC-competition")])  # fmt: skip
    ent = b.company()
    between = b.near(ent.name, 0.6, band=0.04)
    r = b.adverse(ent, "ACCC", "LOW", "RESOLVED", action="PUBLIC_WARNING", abn=False, name=between)
    assert name_similarity(between, ent.name) > 0.55
    b.case("competition_enforcement/name-between-0.55-and-0.6", ent,
           "none => N/A (competition needs name trigram at least 0.6; the record still matches "
           "conduct, above 0.55)", "competition_enforcement", "N/A",
           matches=[match(t, r, "name", name=between)])  # fmt: skip
    b.case("competition_enforcement/none", b.company(), "none => N/A",
           "competition_enforcement", "N/A")  # fmt: skip


def _workplace(b: Builder) -> None:
    t = "match_adverse"
    b.case("workplace_compliance/no-records", b.company(), "No records => PASS",
           "workplace_compliance", "PASS")  # fmt: skip
    for action in ("COMPLIANCE_NOTICE", "ENFORCEABLE_UNDERTAKING"):
        ent = b.company()
        r = b.adverse(ent, "FWO", "MEDIUM", "ACTIVE", action=action)
        b.case(f"workplace_compliance/{action.lower().replace('_', '-')}", ent,
               "Notice or undertaking found => WARN", "workplace_compliance", "WARN",
               matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.adverse(ent, "FWO", "MEDIUM", "ACTIVE", abn=False)
    b.case("workplace_compliance/name-only-record", ent,
           "Workplace compliance (opt-in; ABN exact): a record without the ABN does not match => PASS",
           "workplace_compliance", "PASS", non_matches=[match(t, r)])  # fmt: skip


def _disability(b: Builder) -> None:
    t = "match_adverse"
    b.case("disability_register/none", b.company(), "No action found => N/A",
           "disability_register", "N/A")  # fmt: skip
    for action, severity, outcome, row in (
        ("BANNING_ORDER", "CRITICAL", "FAIL", "Active banning order => FAIL"),
        ("REVOCATION", "CRITICAL", "FAIL", "Active revocation => FAIL"),
        ("SUSPENSION", "HIGH", "WARN", "Active suspension or compliance notice => WARN"),
        ("COMPLIANCE_NOTICE", "MEDIUM", "WARN", "Active suspension or compliance notice => WARN"),
    ):
        ent = b.company()
        r = b.adverse(ent, "NDIS_COMMISSION", severity, "ACTIVE", action=action)
        b.case(f"disability_register/active-{action.lower().replace('_', '-')}", ent, row,
               "disability_register", outcome, matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    rs = [match(t, b.adverse(ent, "NDIS_COMMISSION", "HIGH", "EXPIRED", action=a, k=k), "abn")
          for k, a in enumerate(("SUSPENSION", "COMPLIANCE_NOTICE"))]  # fmt: skip
    b.case("disability_register/all-expired", ent, "Historical actions all expired => WARN",
           "disability_register", "WARN", matches=rs)  # fmt: skip
    ent = b.individual(gst=None)
    name = f"{ent.person[0].title()} {ent.person[1].title()}" if ent.person else ent.name
    r = b.adverse(ent, "NDIS_COMMISSION", "CRITICAL", "ACTIVE", abn=False, name=name)
    b.case("disability_register/individual-by-name", ent,
           "Active banning order => FAIL (name-only matches for individuals, trigram above 0.65)",
           "disability_register", "FAIL",
           matches=[match(t, r, "name", name=name, threshold_key="match_adverse/NDIS_COMMISSION")])  # fmt: skip
    ent = b.individual()
    decoy = b.near(ent.name, 0.65).replace(" PTY LTD", "")
    r = b.adverse(ent, "NDIS_COMMISSION", "CRITICAL", "ACTIVE", abn=False, name=decoy)
    b.case("disability_register/individual-name-decoy", ent,
           "No action found => N/A (name similarity not above 0.65)", "disability_register", "N/A",
           non_matches=[match(t, r, name=decoy, threshold_key="match_adverse/NDIS_COMMISSION")])  # fmt: skip


def _licence(b: Builder) -> None:
    t = "match_licences"

    def trades(code: str = "3232", **kw: Any) -> Ent:
        ent = b.company(**kw)
        b.industry(ent, code)
        return ent

    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE")
    b.case("licence/active-correct-trade", ent, "Active licence of correct class => PASS",
           "licence", "PASS", not_flags=("LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE"),
           matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades("3231", state="VIC")
    r = b.licence(ent, "VBA", "plumbing", "ACTIVE")
    b.case("licence/active-other-state-register", ent,
           "Active licence of correct class => PASS (NSW, VIC and SA registers)", "licence", "PASS",
           not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "EXPIRED", expiry=b.months(11))
    b.case("licence/expired-11-months", ent,
           "Expired within 12 months, or conditional licence => WARN (no active licence: "
           "LICENCE_MISMATCH fires)", "licence", "WARN", flags=("LICENCE_MISMATCH",),
           not_flags=("LICENCE_SUSPENDED_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "EXPIRED", expiry=b.months(13))
    b.case("licence/expired-13-months", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): expired more than 12 months ago", "licence", "WARN",
           flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "CONDITIONAL")
    b.case("licence/conditional", ent, "Expired within 12 months, or conditional licence => WARN",
           "licence", "WARN", not_flags=("LICENCE_SUSPENDED_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    for status in ("SUSPENDED", "CANCELLED"):
        ent = trades("3011")
        r = b.licence(ent, "QBCC", "building", status)
        b.case(f"licence/{status.lower()}", ent,
               "Suspended or cancelled licence => FAIL (and LICENCE_SUSPENDED_ACTIVE fires)",
               "licence", "FAIL", flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"),
               not_flags=("COMPLIANCE_DUAL_FAILURE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = trades("3011")
    rs = [match(t, b.licence(ent, "QBCC", "building", "SUSPENDED"), "abn"),
          match(t, b.licence(ent, "NSW_FAIR_TRADING", "building", "ACTIVE", k=1), "abn")]  # fmt: skip
    b.case("licence/suspended-with-active-alternative", ent,
           "LICENCE_SUSPENDED_ACTIVE: a suspended or cancelled licence and no active alternative "
           "(here there is one: best licence decides, PASS)", "licence", "PASS",
           not_flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"), matches=rs)  # fmt: skip
    b.case("licence/trades-no-licence", trades("3231"),
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH fires)",
           "licence", "WARN", flags=("LICENCE_MISMATCH",))  # fmt: skip
    # CONTRACT decision 17: no loaded register covers WA, NT or TAS (seed licence_registers);
    # a QLD, NSW, VIC or SA trades entity without a licence is the neighbour above
    for state, postcode in (("WA", "6000"), ("TAS", "7000")):
        ent = trades("3231", state=state, postcode=postcode)
        b.case(f"licence/trades-state-not-covered-{state.lower()}", ent,
               "No licence register covers the entity's state => N/A (decided; no "
               "LICENCE_MISMATCH)", "licence", "N/A", not_flags=("LICENCE_MISMATCH",))  # fmt: skip
    ent = trades("3232", state="WA", postcode="6000")
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE")
    b.case("licence/state-not-covered-but-licensed-elsewhere", ent,
           "Active licence of correct class => PASS (a WA entity licensed by the QBCC: a "
           "licence found decides before coverage)", "licence", "PASS",
           not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "abn")])  # fmt: skip
    # the best licence of the entity's trade decides (decision 4), and the flag reads the
    # licences the tile reads
    ent = trades()
    rs = [match(t, b.licence(ent, "QBCC", "electrical", "SUSPENDED"), "abn"),
          match(t, b.licence(ent, "QBCC", "electrical", "CONDITIONAL", k=1), "abn")]  # fmt: skip
    b.case("licence/conditional-beside-suspended", ent,
           "Expired within 12 months, or conditional licence => WARN (a conditional licence "
           "beside a suspended one of the same trade: best licence decides)", "licence", "WARN",
           not_flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"), matches=rs)  # fmt: skip
    ent = trades("3011")
    rs = [match(t, b.licence(ent, "QBCC", "building", "CANCELLED"), "abn"),
          match(t, b.licence(ent, "QBCC", "electrical", "ACTIVE", k=1), "abn")]  # fmt: skip
    b.case("licence/cancelled-beside-other-trade-active", ent,
           "Suspended or cancelled licence => FAIL (and LICENCE_SUSPENDED_ACTIVE fires: an active "
           "licence of another trade is no alternative)", "licence", "FAIL",
           flags=("LICENCE_SUSPENDED_ACTIVE", "LICENCE_MISMATCH"), matches=rs)  # fmt: skip
    ent = trades("3232")
    r = b.licence(ent, "QBCC", "building", "CANCELLED")
    b.case("licence/cancelled-other-trade-only", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): a cancelled licence of another trade is not the entity's licence",
           "licence", "WARN", flags=("LICENCE_MISMATCH",),
           not_flags=("LICENCE_SUSPENDED_ACTIVE",), matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    b.industry(ent, "6932")
    b.case("licence/non-trades", ent, "Non-trades industry => N/A", "licence", "N/A",
           not_flags=("LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE"))  # fmt: skip
    ent = trades()
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", abn=False, acn=True)
    b.case("licence/by-acn", ent, "Active licence of correct class => PASS (ACN exact)",
           "licence", "PASS", not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "acn")])  # fmt: skip
    ent = trades()
    name = ent.name.replace("PTY LTD", "P/L")
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", abn=False, name=name)
    b.case("licence/by-name", ent, "Active licence of correct class => PASS (name at least 0.8)",
           "licence", "PASS", not_flags=("LICENCE_MISMATCH",),
           matches=[match(t, r, "name", name=name)])  # fmt: skip
    ent = trades()
    decoy = b.near(ent.name, 0.8)
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", abn=False, name=decoy)
    b.case("licence/name-decoy", ent,
           "Construction or trades entity with no licence found => WARN (and LICENCE_MISMATCH "
           "fires): the only licence's name is below 0.8", "licence", "WARN",
           flags=("LICENCE_MISMATCH",), non_matches=[match(t, r, name=decoy)])  # fmt: skip
    # COMPLIANCE_DUAL_FAILURE
    s = "COMPLIANCE_DUAL_FAILURE: Both the licence check and the adverse-records check return FAIL"
    ent = trades("3011")
    rl = b.licence(ent, "QBCC", "building", "SUSPENDED")
    ra = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE")
    b.case("compliance_dual_failure/licence-and-conduct-fail", ent, s, "licence", "FAIL",
           flags=("COMPLIANCE_DUAL_FAILURE", "LICENCE_SUSPENDED_ACTIVE", "ADVERSE_ACTIVE"),
           matches=[match(t, rl, "abn"), match("match_adverse", ra, "abn")])  # fmt: skip
    ent = trades("3011")
    rl = b.licence(ent, "QBCC", "building", "CANCELLED")
    ra = b.adverse(ent, "QBCC", "HIGH", "ACTIVE")
    b.case("compliance_dual_failure/conduct-only-warn", ent,
           s + " (conduct is WARN on an active HIGH record: no flag)", "conduct", "WARN",
           flags=("ADVERSE_ACTIVE", "LICENCE_SUSPENDED_ACTIVE"),
           not_flags=("COMPLIANCE_DUAL_FAILURE",),
           matches=[match(t, rl, "abn"), match("match_adverse", ra, "abn")])  # fmt: skip


def _phoenix(b: Builder) -> None:
    s = ("PHOENIX_PATTERN: Entity has an ACN and one of its directors is also an officeholder of "
         "a company deregistered within the past 36 months.")  # fmt: skip
    t = "phoenix_links"

    def linked(months: int, *, role: str = "DIRECTOR", other_birth: bool = False,
               ceased_here: bool = False) -> tuple[Ent, str]:  # fmt: skip
        ent = b.company()
        person = b.officer()
        dereg = b.months(months)
        acn, _ = b.deregistered_company(dereg)
        b.officeholder(ent.acn, person, ceased=b.months(1) if ceased_here else None)
        if ceased_here:
            b.officeholder(ent.acn, b.officer())  # a current director with no history
        twin = Officer(person.given, person.family, person.birth - dt.timedelta(days=4000)) if other_birth and person.birth else person  # fmt: skip
        b.officeholder(acn, twin, role, appointed=b.months(months + 60), ceased=dereg)
        return ent, acn

    ent, acn = linked(35)
    b.case("phoenix/director-of-company-deregistered-35-months", ent,
           s + " The phoenix tile shows FAIL and lists the deregistered company.", "phoenix",
           "FAIL", flags=("PHOENIX_PATTERN",),
           matches=[match(t, {"deregistered_acn": acn}, "director_name")])  # fmt: skip
    ent, acn = linked(35, role="SECRETARY")
    b.case("phoenix/secretary-of-company-deregistered-35-months", ent,
           s + " (an officeholder: the secretary)", "phoenix", "FAIL", flags=("PHOENIX_PATTERN",),
           matches=[match(t, {"deregistered_acn": acn}, "director_name")])  # fmt: skip
    ent, acn = linked(37)
    b.case("phoenix/deregistered-37-months", ent, s + " (37 months: outside the window)",
           "phoenix", "PASS", not_flags=("PHOENIX_PATTERN",),
           non_matches=[match(t, {"deregistered_acn": acn})])  # fmt: skip
    ent, acn = linked(20, other_birth=True)
    b.case("phoenix/same-name-different-birth-date", ent,
           s + " Director matching must not link two different people who share a common name "
           "when a birth date says they differ.", "phoenix", "PASS",
           not_flags=("PHOENIX_PATTERN",), non_matches=[match(t, {"deregistered_acn": acn})])  # fmt: skip
    ent, acn = linked(20, ceased_here=True)
    b.case("phoenix/former-director-of-entity", ent,
           s + " (the person left the entity's board: not one of its directors)", "phoenix",
           "PASS", not_flags=("PHOENIX_PATTERN",), non_matches=[match(t, {"deregistered_acn": acn})])  # fmt: skip
    b.case("phoenix/no-acn", b.other(code="FPT"),
           "Sole traders and partnerships without an ACN are not assessed (N/A).", "phoenix",
           "N/A", not_flags=("PHOENIX_PATTERN",))  # fmt: skip
    b.case("phoenix/no-officeholder-rows", b.company(),
           "N/A for a company with no officeholder rows (CONTRACT decision 6)", "phoenix", "N/A",
           not_flags=("PHOENIX_PATTERN",))  # fmt: skip
    ent = b.company()
    b.officeholder(ent.acn, b.officer())
    b.case("phoenix/no-history", ent, "PASS otherwise (CONTRACT decision 6)", "phoenix", "PASS",
           not_flags=("PHOENIX_PATTERN",))  # fmt: skip


def _persons(b: Builder) -> None:
    """Liquidators, financial advisers and banned persons against directors and sole traders."""

    def with_director(middle: str = "") -> tuple[Ent, Officer]:
        ent = b.company()
        person = b.officer()
        person.middle = middle
        b.officeholder(ent.acn, person)
        return ent, person

    def liquidator(ent: Ent, name: str, k: int = 0, status: str = "Registered",
                   start: dt.date | None = None) -> dict[str, str]:  # fmt: skip
        number = f"9P{ent.j:05d}{k}"
        b.row("liquidators", REGISTER_NAME="Registered Liquidators", LIQ_NUM=number, LIQ_NAME=name,
              LIQ_START_DT=start or b.months(90), LIQ_STATUS=status,
              LIQ_SUSP_DT=b.months(2) if status == "Suspended" else "", LIQ_ADD_LOCAL="BRISBANE",
              LIQ_ADD_STATE="QLD", LIQ_ADD_PCODE="4000", LIQ_ADD_COUNTRY="AUSTRALIA",
              LIQ_FIRM=f"{b.word()} INSOLVENCY")  # fmt: skip
        return {"liquidator_number": number}

    s = "LIQUIDATOR_LINKED: A director name matches the register of registered liquidators."
    t = "match_liquidators"
    ent, person = with_director(middle="JAMES")
    plain = Officer(person.given, person.family, None)
    assert person_names_match(person.surname_first(), plain.given_first())
    b.case("liquidator_linked/director-is-registered-liquidator", ent, s,
           flags=("LIQUIDATOR_LINKED",),
           matches=[match(t, liquidator(ent, plain.given_first()), "director_name")])  # fmt: skip
    ent, person = with_director()
    other = Officer(
        "ZEPHYRINUS" if person.given != "ZEPHYRINUS" else "QUENTIN", person.family, None
    )
    assert not person_names_match(person.surname_first(), other.given_first())
    b.case("liquidator_linked/same-surname-other-given-name", ent, s + " (another person)",
           not_flags=("LIQUIDATOR_LINKED",),
           non_matches=[match(t, liquidator(ent, other.given_first()))])  # fmt: skip
    # "registered" means registered on the as-of date (issue 19): the name still matches a
    # cancelled or suspended registration, or one starting after the as-of date
    for status, start, label in (("Cancelled", None, "cancelled"), ("Suspended", None, "suspended"),
                                 ("Registered", b.ahead(30), "registered-after-as-of")):  # fmt: skip
        ent, person = with_director()
        b.case(f"liquidator_linked/{label}", ent,
               s + f" (the matching registration is {label.replace('-', ' ')}: not registered)",
               not_flags=("LIQUIDATOR_LINKED",),
               matches=[match(t, liquidator(ent, person.given_first(), status=status, start=start),
                              "director_name")])  # fmt: skip
    ent = b.company()
    person = b.officer()
    b.officeholder(ent.acn, person, ceased=b.months(6))
    b.officeholder(ent.acn, b.officer())
    b.case("liquidator_linked/former-director", ent, s + " (a former director is no director)",
           not_flags=("LIQUIDATOR_LINKED",),
           non_matches=[match(t, liquidator(ent, person.given_first()))])  # fmt: skip
    ent = b.individual()
    b.case("liquidators/sole-trader-own-name", ent,
           "registered liquidators: no ABN, matched by person name only",
           matches=[match(t, liquidator(ent, Officer(*ent.person, None).given_first()
                                        if ent.person else ent.name), "person_name")])  # fmt: skip

    # financial advisers
    t = "match_financial_advisers"
    fmt = b.targets["advisers"]

    def d(key: str, day: int | None) -> str:
        return fmt.date(dt.date.fromordinal(day)) if day else ""

    licensee = b.company()
    lic_num = f"2P{licensee.j:05d}"
    b.row("afs", REGISTER_NAME="AFS Licensee", AFS_LIC_NUM=lic_num, AFS_LIC_NAME=licensee.name,
          AFS_LIC_ABN_ACN=licensee.abn, AFS_LIC_START_DT=b.months(100), AFS_LIC_PRE_FSR="N",
          AFS_LIC_ADD_LOCAL="BRISBANE", AFS_LIC_ADD_STATE="QLD", AFS_LIC_ADD_PCODE="4000",
          AFS_LIC_ADD_COUNTRY="AUSTRALIA", AFS_LIC_CONDITION="1. Planted licensee\n2. Retail clients")  # fmt: skip

    def adviser(number_of: Ent, name: str, abn: str, *, ceased: bool = False,
                banned: bool = False) -> dict[str, str]:  # fmt: skip
        number = f"P{number_of.j:08d}"
        start = b.months(80).toordinal()
        end = b.months(10).toordinal() if ceased or banned else None
        overall = "Banned" if banned else "Not Registered" if ceased else "Registered"
        row = adviser_row(d, number, name, abn, licensee.name, lic_num, licensee.abn, start, end,
                          overall, banned_from=b.months(10).toordinal() if banned else None)  # fmt: skip
        b.plan.rows.setdefault("advisers", []).append(row)
        return {"adviser_number": number}

    s = "FINANCIAL_ADVISER_BANNED: A director matches by name a financial-adviser register entry with banned=true."
    ent, person = with_director()
    b.case("financial_adviser_banned/director-is-banned-adviser", ent, s,
           flags=("FINANCIAL_ADVISER_BANNED",),
           matches=[match(t, adviser(ent, person.given_first(), "", banned=True), "director_name")])  # fmt: skip
    ent, person = with_director()
    b.case("financial_adviser_banned/director-is-registered-adviser", ent,
           s + " (registered, not banned: no flag)", not_flags=("FINANCIAL_ADVISER_BANNED",),
           matches=[match(t, adviser(ent, person.given_first(), ""), "director_name")])  # fmt: skip
    for label, kw, outcome, row in (
        ("registered", {}, "PASS", "Currently registered => PASS"),
        ("ceased", {"ceased": True}, "WARN", "Ceased or Not Registered => WARN"),
        ("prohibited", {"banned": True}, "FAIL", "Prohibition order active => FAIL"),
    ):
        ent = b.individual()
        name = Officer(*ent.person, None).given_first() if ent.person else ent.name
        b.case(f"financial_advisers/{label}", ent, row, "financial_advisers", outcome,
               matches=[match(t, adviser(ent, name, ent.abn, **kw), "abn")])  # fmt: skip
    ent = b.individual()
    name = Officer(*ent.person, None).given_first() if ent.person else ent.name
    b.case("financial_advisers/sole-trader-by-name", ent,
           "Currently registered => PASS (ABN plus name similarity at least 0.8: by name)",
           "financial_advisers", "PASS",
           matches=[match(t, adviser(ent, name, ""), "name", name=name)])  # fmt: skip
    b.case("financial_advisers/not-found", b.individual(), "Not found => N/A",
           "financial_advisers", "N/A")  # fmt: skip

    # banned and disqualified
    t = "match_banned_organisations"

    def org(ent: Ent, name: str, end: str, *, acn: bool = False) -> dict[str, str]:
        b.row("banned_organisations", REGISTER_NAME="Banned and Disqualified Organisations",
              BD_ORG_NAME=name, BD_ORG_ACN=ent.acn if acn else "",
              BD_ORG_TYPE="AFS Banned & Disqualified", BD_ORG_START_DT=b.months(30),
              BD_ORG_END_DT=end, BD_ORG_COMMENT="Planted case")  # fmt: skip
        return {"organisation_name": name.replace(F.NBSP, " ")}

    fut = b.ahead(700).strftime("%d/%m/%Y")
    past = b.months(2).strftime("%d/%m/%Y")
    b.case("banned_disqualified/no-match", b.company(), "No match => PASS",
           "banned_disqualified", "PASS")  # fmt: skip
    ent = b.company()
    b.case("banned_disqualified/organisation-by-acn-permanent", ent,
           "Active ban or disqualification => FAIL (end date 'Permanent banning')",
           "banned_disqualified", "FAIL",
           matches=[match(t, org(ent, ent.name, "Permanent banning", acn=True), "acn")])  # fmt: skip
    ent = b.company()
    nbsp = ent.name.replace(" ", F.NBSP, 1)
    b.case("banned_disqualified/organisation-by-name-nbsp", ent,
           "Active ban or disqualification => FAIL (name with a non-breaking space, similarity "
           "at least 0.75)", "banned_disqualified", "FAIL",
           matches=[match(t, org(ent, nbsp, fut), "name", name=nbsp)])  # fmt: skip
    ent = b.company()
    b.case("banned_disqualified/organisation-expired", ent, "Expired ban => WARN",
           "banned_disqualified", "WARN",
           matches=[match(t, org(ent, ent.name, past, acn=True), "acn")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.75)
    b.case("banned_disqualified/organisation-name-decoy", ent,
           "No match => PASS (organisation name below 0.75)", "banned_disqualified", "PASS",
           non_matches=[match(t, org(ent, decoy, fut), name=decoy)])  # fmt: skip
    t = "match_banned_persons"

    def banned(name: str, kind: str, end: dt.date | None) -> dict[str, str]:
        start = b.months(40)
        b.row("banned_persons", REGISTER_NAME="Banned and Disqualified Persons", BD_PER_NAME=name,
              BD_PER_TYPE=kind, BD_PER_DOC_NUM="P000001", BD_PER_START_DT=start,
              BD_PER_END_DT=end, BD_PER_ADD_LOCAL="BRISBANE", BD_PER_ADD_STATE="QLD",
              BD_PER_ADD_PCODE="4000", BD_PER_ADD_COUNTRY="AUSTRALIA")  # fmt: skip
        return {"person_name": name, "start_date": start.isoformat()}

    for label, end, outcome, row in (
        ("active", None, "FAIL", "Active ban or disqualification => FAIL"),
        ("expired", b.months(3), "WARN", "Expired ban => WARN"),
    ):
        ent = b.individual()
        name = f"{ent.person[1]}, {ent.person[0]}" if ent.person else ent.name
        b.case(f"banned_disqualified/person-sole-trader-{label}", ent, row,
               "banned_disqualified", outcome,
               matches=[match(t, banned(name, "Banned Securities", end), "person_name", name=name)])  # fmt: skip
    ent, person = with_director()
    b.case("banned_disqualified/director-disqualified", ent,
           "Active ban or disqualification => FAIL (a current director is a disqualified person)",
           "banned_disqualified", "FAIL",
           matches=[match(t, banned(person.surname_first(), "Disq. Director", b.ahead(900)), "director_name")])  # fmt: skip

    # A prohibition is read from the banned and disqualified persons register (a
    # financial-services banning naming the adviser), not only from a status word (issue 19):
    # these advisers' own register rows say "Not Registered", as real ones do
    t = "match_financial_advisers"
    for label, kind, end, outcome, row in (
        ("afs-banning", "AFS Banned & Disqualified", None, "FAIL",
         "Prohibition order active => FAIL (an AFS banning in the banned persons register)"),
        ("securities-banning", "Banned Securities", b.ahead(400), "FAIL",
         "Prohibition order active => FAIL (a securities banning, in force until next year)"),
        ("credit-banning", "Credit Banned & Disqualified", None, "WARN",
         "Ceased or Not Registered => WARN (a credit banning is no financial-advice prohibition)"),
        ("afs-banning-ended", "AFS Banned & Disqualified", b.months(3), "WARN",
         "Ceased or Not Registered => WARN (the AFS banning ended before the as-of date)"),
    ):  # fmt: skip
        ent = b.individual()
        assert ent.person is not None
        officer = Officer(*ent.person, None)
        banned(officer.surname_first(), kind, end)
        b.case(f"financial_advisers/{label}", ent, row, "financial_advisers", outcome,
               matches=[match(t, adviser(ent, officer.given_first(), ent.abn, ceased=True), "abn")])  # fmt: skip
    ent, person = with_director()
    banned(person.surname_first(), "AFS Banned & Disqualified", None)
    b.case("financial_adviser_banned/director-banned-in-banning-register", ent,
           "FINANCIAL_ADVISER_BANNED: A director matches by name a financial-adviser register "
           "entry with banned=true (banned: an AFS banning names the adviser)",
           flags=("FINANCIAL_ADVISER_BANNED",),
           matches=[match(t, adviser(ent, person.given_first(), "", ceased=True), "director_name")])  # fmt: skip


def _financial_services(b: Builder) -> None:
    def afs(ent: Ent, ident: str, name: str = "") -> dict[str, str]:
        number = f"2P{ent.j:05d}"
        b.row("afs", REGISTER_NAME="AFS Licensee", AFS_LIC_NUM=number, AFS_LIC_NAME=name or ent.name,
              AFS_LIC_ABN_ACN=ident, AFS_LIC_START_DT=b.months(50), AFS_LIC_PRE_FSR="N",
              AFS_LIC_ADD_LOCAL="SYDNEY", AFS_LIC_ADD_STATE="NSW", AFS_LIC_ADD_PCODE="2000",
              AFS_LIC_ADD_COUNTRY="AUSTRALIA", AFS_LIC_LAT="-33.8688", AFS_LIC_LNG="151.2093",
              AFS_LIC_CONDITION="1. This licence authorises the licensee\n2. to deal in a financial product")  # fmt: skip
        return {"licence_number": number}

    def credit(ent: Ent, status: str) -> dict[str, str]:
        number = f"3P{ent.j:05d}"
        b.row("credit", REGISTER_NAME="Credit Licensee", CRED_LIC_NUM=number, CRED_LIC_NAME=ent.name,
              CRED_LIC_START_DT=b.months(50),
              CRED_LIC_END_DT=b.months(2) if status == "Cancelled" else None,
              CRED_LIC_STATUS=status, CRED_LIC_ABN_ACN=ent.abn,
              CRED_LIC_STATUS_HISTORY=f"{status} (planted)", CRED_LIC_LOCALITY="SYDNEY",
              CRED_LIC_STATE="NSW", CRED_LIC_PCODE="2000", CRED_LIC_EDRS="AFCA",
              CRED_LIC_AUTHORISATIONS="Credit provider")  # fmt: skip
        return {"licence_number": number}

    s = "Current active licence => PASS"
    ent = b.company()
    b.case("financial_services_licence/afs-by-abn", ent, s, "financial_services_licence", "PASS",
           matches=[match("match_afs_licensees", afs(ent, ent.abn), "abn")])  # fmt: skip
    ent = b.company()
    b.case("financial_services_licence/afs-by-acn", ent, s, "financial_services_licence", "PASS",
           matches=[match("match_afs_licensees", afs(ent, ent.acn), "acn")])  # fmt: skip
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PTY. LTD.")
    b.case("financial_services_licence/afs-by-name", ent, s + " (name at least 0.8)",
           "financial_services_licence", "PASS",
           matches=[match("match_afs_licensees", afs(ent, "", name), "name", name=name)])  # fmt: skip
    ent = b.company()
    b.case("financial_services_licence/credit-current", ent, s, "financial_services_licence",
           "PASS", matches=[match("match_credit_licensees", credit(ent, "Current"), "abn")])  # fmt: skip
    for status in ("Suspended", "Cancelled"):
        ent = b.company()
        b.case(f"financial_services_licence/credit-{status.lower()}", ent,
               "Suspended or cancelled licence => FAIL", "financial_services_licence", "FAIL",
               matches=[match("match_credit_licensees", credit(ent, status), "abn")])  # fmt: skip
    b.case("financial_services_licence/not-found", b.company(), "Not found => N/A",
           "financial_services_licence", "N/A")  # fmt: skip


def _charity_row(b: Builder, ent: Ent) -> None:
    values: dict[str, object] = {c: "" for c in F.CHARITIES}
    values.update(ABN=ent.abn, Charity_Legal_Name=ent.name, Address_Type="Business",
                  Address_Line_1="1 PLANTED STREET", Town_City="BRISBANE", State="QLD",
                  Postcode="4000", Country="AUSTRALIA", Registration_Date=b.months(60),
                  Date_Organisation_Established=b.months(200), Charity_Size="Small",
                  Number_of_Responsible_Persons="3", Financial_Year_End="30-Jun", Operates_in_QLD="Y",
                  Advancing_Education="Y", Children="Y")  # fmt: skip
    b.row("charities", **values)


def _registers(b: Builder) -> None:
    t = "match_registers"
    ent = b.other(code="OIE", name=f"{b.word()} {b.word()} ASSOCIATION INCORPORATED")
    _charity_row(b, ent)
    b.case("charities/registered", ent, "Found, status Registered => PASS", "charities", "PASS",
           matches=[match("match_charities", {"charity_legal_name": ent.name}, "abn")])  # fmt: skip
    b.case("charities/not-found", b.other(code="OIE"), "Not found => N/A", "charities", "N/A")
    for status, outcome, row in (
        ("Current", "PASS", "Found, status Current => PASS"),
        ("Terminated", "WARN", "Found, status Terminated or Suspended => WARN"),
        ("Suspended", "WARN", "Found, status Terminated or Suspended => WARN"),
    ):
        ent = b.individual()
        name = Officer(*ent.person, None).given_first() if ent.person else ent.name
        r = b.register(ent, "TAX_PRACTITIONERS", status, person=name)
        b.case(f"tax_practitioners/{status.lower()}", ent, row, "tax_practitioners", outcome,
               matches=[match(t, r, "abn")])  # fmt: skip
    b.case(
        "tax_practitioners/not-found",
        b.individual(),
        "Not found => N/A",
        "tax_practitioners",
        "N/A",
    )
    ent = b.company(code="PUB", name=f"{b.word()} {b.word()} BANK LIMITED")
    r = b.register(ent, "APRA_ENTITIES", "Registered", acn=ent.acn)
    b.case(
        "prudential/found", ent, "Found => PASS", "prudential", "PASS", matches=[match(t, r, "abn")]
    )
    b.case("prudential/not-found", b.company(code="PUB", name=f"{b.word()} {b.word()} LIMITED"),
           "Not found => N/A", "prudential", "N/A")  # fmt: skip
    ent = b.other(code="SMF", name=f"THE TRUSTEE FOR {b.word()} SUPER FUND")
    r = b.register(ent, "SUPER_FUNDS", "Complying")
    b.case("super_fund/registered-fund", ent, "ABN is a registered fund, or a registered trustee => PASS",
           "super_fund", "PASS", matches=[match(t, r, "abn")])  # fmt: skip
    trustee = b.company()
    fund = b.other(code="SMF", name=f"THE TRUSTEE FOR {b.word()} SUPER FUND")
    r = b.register(fund, "SUPER_FUNDS", "Complying", acn=trustee.acn, k=1)
    b.case("super_fund/registered-trustee", trustee,
           "ABN is a registered fund, or a registered trustee => PASS (the fund's trustee ACN)",
           "super_fund", "PASS", matches=[match(t, r, "acn")])  # fmt: skip
    b.case("super_fund/not-found", b.company(), "Not found => N/A", "super_fund", "N/A")
    # tax debt
    ent = b.company()
    r = b.register(ent, "TAX_DEBT", "Disclosed")
    b.case("tax_debt/on-list-by-abn", ent, "On list => FAIL", "tax_debt", "FAIL",
           matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    name = ent.name.title()
    r = b.register(ent, "TAX_DEBT", "Disclosed", abn=False, name=name)
    b.case("tax_debt/on-list-by-name", ent, "On list => FAIL (name matching at 0.75)", "tax_debt",
           "FAIL", matches=[match(t, r, "name", name=name, threshold_key="match_registers/TAX_DEBT")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.75)
    r = b.register(ent, "TAX_DEBT", "Disclosed", abn=False, name=decoy)
    b.case("tax_debt/name-decoy", ent, "Not on list => PASS (name below 0.75)", "tax_debt", "PASS",
           non_matches=[match(t, r, name=decoy, threshold_key="match_registers/TAX_DEBT")])  # fmt: skip
    b.case("tax_debt/not-on-list", b.company(), "Not on list => PASS", "tax_debt", "PASS")
    # ABN-only informational registers
    for register, check, label in (
        (
            "RD_INCENTIVE",
            "rd_incentive",
            "R&D tax incentive (ABN exact): found => PASS; not found => N/A",
        ),
        (
            "WGEA",
            "workforce_gender",
            "Workforce gender reporting (ABN exact): found => PASS; not found => N/A",
        ),
        (
            "GOV_CONTRACTS",
            "government_contracts",
            "Government contracts (ABN exact): found => PASS; none => N/A",
        ),
    ):
        ent = b.company()
        r = b.register(ent, register, "Published")
        b.case(f"{check}/found", ent, label, check, "PASS", matches=[match(t, r, "abn")])
        b.case(f"{check}/not-found", b.company(), label, check, "N/A")
    # modern slavery and B Corp: names
    ent = b.company()
    r = b.register(ent, "MODERN_SLAVERY", "Published")
    ms = "Modern slavery statement (ABN exact or name trigram at least 0.65): found => PASS; not found => N/A"
    b.case("modern_slavery/by-abn", ent, ms, "modern_slavery", "PASS", matches=[match(t, r, "abn")])
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PTY LIMITED")
    r = b.register(ent, "MODERN_SLAVERY", "Published", abn=False, name=name)
    b.case("modern_slavery/by-name", ent, ms, "modern_slavery", "PASS",
           matches=[match(t, r, "name", name=name, threshold_key="match_registers/MODERN_SLAVERY")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.65)
    r = b.register(ent, "MODERN_SLAVERY", "Published", abn=False, name=decoy)
    b.case("modern_slavery/name-decoy", ent, ms, "modern_slavery", "N/A",
           non_matches=[match(t, r, name=decoy, threshold_key="match_registers/MODERN_SLAVERY")])  # fmt: skip
    bc = "B Corp certification (name trigram at least 0.7): matched => PASS; not found => N/A"
    ent = b.company()
    name = ent.name.replace(" PTY LTD", "")
    r = b.register(ent, "BCORP", "Certified", abn=False, name=name)
    b.case("bcorp/by-name", ent, bc, "bcorp", "PASS",
           matches=[match(t, r, "name", name=name, threshold_key="match_registers/BCORP")])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.7)
    r = b.register(ent, "BCORP", "Certified", abn=False, name=decoy)
    b.case("bcorp/name-decoy", ent, bc, "bcorp", "N/A",
           non_matches=[match(t, r, name=decoy, threshold_key="match_registers/BCORP")])  # fmt: skip


def _matches_only(b: Builder) -> None:
    """Registers read by no tile of their own here: ASX list (by name) and PPSR."""
    t = "match_asx_listed"
    ent = b.company(code="PUB", name=f"{b.word()} {b.word()} LIMITED")
    code = b.asx[0]
    b.row("asx", **{"Company name": ent.name.replace("LIMITED", "LTD"), "ASX code": code,
                    "GICS industry group": "Materials"})  # fmt: skip
    b.case("asx_listed/name-match", ent, "ASX list: maps tickers to company names (and, through "
           "name matching at least 0.8, to ABNs)",
           matches=[match(t, {"asx_code": code}, "name", name=ent.name.replace("LIMITED", "LTD"))])  # fmt: skip
    ent = b.company(code="PUB", name=f"{b.word()} {b.word()} LIMITED")
    decoy = b.near(ent.name, 0.8).replace(" PTY LTD", " LIMITED")
    code = b.asx[1]
    b.row("asx", **{"Company name": decoy, "ASX code": code, "GICS industry group": "Energy"})
    b.case("asx_listed/name-decoy", ent, "ASX list name below 0.8 is no match",
           non_matches=[match(t, {"asx_code": code}, name=decoy)])  # fmt: skip
    t = "match_ppsr"
    ent = b.company()
    rs = []
    for k, (abn, end) in enumerate(((False, None), (True, b.ahead(800)), (False, None))):
        number = f"9P{ent.j:05d}{k:02d}"
        b.row("ppsr", registration_number=number, grantor_abn=ent.abn if abn else "",
              grantor_acn=ent.acn, grantor_name=ent.name, collateral_class="MOTOR_VEHICLE",
              start_date=b.months(20 - k), end_date=end)  # fmt: skip
        rs.append(match(t, {"registration_number": number}, "abn" if abn else "acn"))
    b.case("ppsr/three-current-registrations", ent,
           "Shape B ppsr.registrations (integer count): current while end_date is null or in the future",
           matches=rs)  # fmt: skip
