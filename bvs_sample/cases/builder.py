"""The planted cases' builder: the case entities and their rows, name-similarity thresholds,
the plan written to ``planted.json``."""

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
from bvs_sample.families.asx import ASX_CODE_CAPACITY, asx_codes
from bvs_sample.numbering import Numbering
from pipelines.identifiers import abn_from_acn, abn_is_valid, acn_is_valid
from pipelines.matching import normalise_name, trigram_similarity

CRLF = "\r\n"
ALL_FLAGS = (
    "PHOENIX_PATTERN", "ADVERSE_ACTIVE", "FINANCIAL_ADVISER_BANNED", "LIQUIDATOR_LINKED",
    "LICENCE_MISMATCH", "LICENCE_SUSPENDED_ACTIVE", "ADVERSE_PATTERN", "COMPLIANCE_DUAL_FAILURE",
)  # fmt: skip

# (threshold, inclusive) of name similarity per match table (docs/rules.md; docs/decisions/08-similarity.md:
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

    def financial_year_start(self, years_back: int = 0) -> dt.date:
        """1 July of the Australian financial year holding the as-of date, ``years_back``
        financial years earlier."""
        year = self.as_of.year - (0 if self.as_of.month >= 7 else 1) - years_back
        return dt.date(year, 7, 1)

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

    # -- identifiers a record lists that name no entity (docs/decisions/19-a-records-own-identifier.md) -------------

    def unknown_abn(self) -> str:
        """A valid ABN no ABR record has (an index the background and the cases never use)."""
        abn = self.numbers.abn_for(self.body_index)
        self.body_index += 1
        return abn

    @staticmethod
    def failing_check_digits(identifier: str) -> str:
        """``identifier`` with its last digit changed: it fails its check digits."""
        bad = identifier[:-1] + str((int(identifier[-1]) + 1) % 10)
        assert not (abn_is_valid(bad) if len(bad) == 11 else acn_is_valid(bad)), bad
        return bad

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
                abn: bool = True, k: int = 0, listed_abn: str = "") -> dict[str, str]:  # fmt: skip
        record_id = f"{regulator[:4]}-P{ent.j if ent else 0:05d}{k}"
        action = action or {"ACCC": "COURT_ORDER", "FWO": "COMPLIANCE_NOTICE",
                            "NDIS_COMMISSION": "BANNING_ORDER"}.get(regulator, "Disciplinary action")  # fmt: skip
        day = day or self.months(4)
        self.row(f"adverse/{regulator}", regulator=regulator, record_id=record_id,
                 abn=listed_abn or (ent.abn if (ent and abn) else ""),
                 entity_name=name or (ent.name if ent else ""),
                 action_type=action, severity=severity, status=status, action_date=day,
                 resolved_date=self.months(1) if status == "RESOLVED" else None,
                 summary=f"{action.replace('_', ' ').capitalize()} (planted case)",
                 url=f"https://example.gov.au/{regulator.lower()}/{record_id}")  # fmt: skip
        return {"regulator": regulator, "record_id": record_id}

    def licence(self, ent: Ent, register: str, trade: str, status: str, *, k: int = 0,
                expiry: dt.date | None = None, abn: bool = True, acn: bool = False,
                name: str = "", listed_abn: str = "") -> dict[str, str]:  # fmt: skip
        number = f"{register[:2]}P{ent.j:05d}{k}"
        if expiry is None:
            expiry = self.ahead(400) if status in ("ACTIVE", "CONDITIONAL") else self.months(3)
        self.row(f"licences/{register}", register=register, licence_number=number,
                 licensee_name=name or ent.name, abn=listed_abn or (ent.abn if abn else ""),
                 acn=ent.acn if acn else "", licence_class="Contractor licence", trade=trade,
                 status=status, granted_date=self.months(60), expiry_date=expiry)  # fmt: skip
        return {"register": register, "licence_number": number}

    def gazette_notice(self, ent: Ent, name: str, *, acn: str = "",
                       k: int = 0) -> dict[str, str]:  # fmt: skip
        notice_id = f"GZP{ent.j:05d}{k}"
        self.row("gazette", notice_id=notice_id, published_date=self.months(2),
                 notice_type="APPOINTMENT_OF_LIQUIDATOR", company_name=name, acn=acn, abn="",
                 summary="Appointment of liquidator",
                 url=f"https://example.gov.au/notices/{notice_id}")  # fmt: skip
        return {"notice_id": notice_id}

    def register(self, ent: Ent, register: str, status: str, *, abn: bool = True,
                 acn: str = "", name: str = "", person: str = "", k: int = 0,
                 listed_abn: str = "", day: dt.date | None = None) -> dict[str, str]:  # fmt: skip
        record_id = f"{register[:3]}P{ent.j:05d}{k}"
        self.row(f"registers/{register}", register=register, record_id=record_id,
                 abn=listed_abn or (ent.abn if abn else ""), acn=acn,
                 entity_name=name or ("" if person else ent.name),
                 person_name=person, status=status, status_date=day or self.months(8),
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
        risk: tuple[str, ...] | None = None,
        identity_failures: tuple[str, ...] | None = None,
        reason: str | None = None,
    ) -> None:
        """One planted case: the entity, the SPEC row, the tile it decides and the flags that
        fire or not; ``risk``: the risk levels the verify response may have; and
        ``identity_failures``: the decisive identity tiles it names (docs/decisions/21-decisive-identity-failure.md);
        ``reason``: words the tile's reason holds, where rows share a status."""
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
        if risk is not None:
            doc["risk"] = list(risk)
        if identity_failures is not None:
            doc["identity_failures"] = list(identity_failures)
        if reason is not None:
            doc["reason"] = reason
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
