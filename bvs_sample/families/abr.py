"""The ABR extract: one ``<ABR>`` record per ABN, with its entity, GST, DGR and other names;
the ASIC and business-name rows it gives rise to; and the background registers it feeds."""

from __future__ import annotations

from bisect import bisect

from bvs_sample import words as W
from bvs_sample.draws import cumulative
from bvs_sample.entities import Entity, Person
from bvs_sample.entity_types import ENTITY_TYPES
from bvs_sample.families.asic_companies import EXTRA_COMPANY_SHARE, AsicCompanies
from bvs_sample.families.business_names import BusinessNames
from bvs_sample.sinks import xml_text

ABR_KINDS = ("bad_abn_check_digit", "bad_date", "missing_abn")
BAD_YMD = ("20231345", "20190230", "20211300", "20220431")

DGR_FUNDS = ("FUND", "PUBLIC FUND", "BUILDING FUND", "FOUNDATION FUND", "SCHOLARSHIP FUND")

# Charities and funds: who holds deductible gift recipient endorsements.
_DGR_STYLES = ("incorporated", "public_company", "unincorporated", "cooperative")

_TYPE_CUM = cumulative([t.weight for t in ENTITY_TYPES])
_ENTITY_XML = [
    "<EntityType><EntityTypeInd>"
    f"{t.code}</EntityTypeInd><EntityTypeText>{t.text}</EntityTypeText></EntityType>"
    for t in ENTITY_TYPES
]


class AbrRecords(AsicCompanies, BusinessNames):
    """ABR records; a company's ASIC rows and a holder's business names come with them."""

    def record(self, r: int, planted: str | None) -> tuple[str, list[str], list[str]]:
        """One ``<ABR>`` line and the ASIC company and business-name rows it gives rise to.

        A planted (malformed) record is an individual with no other names, so no ASIC row
        refers to it.
        """
        rnd = self.rnd
        type_index = 0 if planted else bisect(_TYPE_CUM, rnd())
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
                f"{xml_text(name)}"
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
            f"{_ENTITY_XML[type_index]}{entity}"
            f"{asic_xml}{gst_xml}{dgr_xml}{other_xml}</ABR>\n"
        )
        return record, co_rows, bn_rows

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
        parts.append(f"<FamilyName>{xml_text(family)}</FamilyName></IndividualName>")
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
                    f"{xml_text(fund)}</NonIndividualNameText></NonIndividualName></DGR>"
                )
            else:
                pieces.append(f'<DGR DGRStatusFromDate="{self.ymd(day)}" status="ACT" />')
        return "".join(pieces), latest

    def address_xml(self, state: str, postcode: str) -> str:
        state_xml = f"<State>{state}</State>" if state else "<State />"
        return (
            f"<BusinessAddress><AddressDetails>{state_xml}<Postcode>{postcode}</Postcode>"
            "</AddressDetails></BusinessAddress>"
        )
