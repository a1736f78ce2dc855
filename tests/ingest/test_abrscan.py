"""The C record scanner must return exactly what the reference regex returns."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipelines.ingest._abrscan import scan  # built by setup.py; CI must have it

from bvs_sample import write_sample
from pipelines.ingest import abr

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "abr").glob("*.xml"))

COMPANY = (
    '<ABR recordLastUpdatedDate="20240101" replaced="N"><ABN status="ACT" ABNStatusFromDate="20100101">'
    "53004085616</ABN><EntityType><EntityTypeInd>PRV</EntityTypeInd><EntityTypeText>Australian Private"
    ' Company</EntityTypeText></EntityType><MainEntity><NonIndividualName type="MN"><NonIndividualNameText>'
    "A &amp; B PTY LTD</NonIndividualNameText></NonIndividualName><BusinessAddress><AddressDetails>"
    "<State>QLD</State><Postcode>4000</Postcode></AddressDetails></BusinessAddress></MainEntity>"
    '<ASICNumber ASICNumberType="undetermined">004085616</ASICNumber><GST status="ACT" '
    'GSTStatusFromDate="20100101" /></ABR>'
)
PERSON = (
    '<ABR replaced="N" recordLastUpdatedDate="20240101"><ABN ABNStatusFromDate="20150101" status="CAN">'
    "51824753556</ABN><EntityType><EntityTypeInd>IND</EntityTypeInd><EntityTypeText>Individual/Sole"
    ' Trader</EntityTypeText></EntityType><LegalEntity><IndividualName type="LGL"><NameTitle>MS'
    "</NameTitle><GivenName>JANE</GivenName><GivenName>ANN</GivenName><FamilyName>CITIZEN</FamilyName>"
    "</IndividualName><BusinessAddress><AddressDetails><State /><Postcode>0000</Postcode></AddressDetails>"
    '</BusinessAddress></LegalEntity><GST GSTStatusFromDate="19000101" status="NON"/></ABR>'
)
TAILS = (
    '<DGR DGRStatusFromDate="20100101" status="ACT" /><DGR DGRStatusFromDate="20110101" status="ACT">'
    '<NonIndividualName type="DGR"><NonIndividualNameText>FUND</NonIndividualNameText>'
    '</NonIndividualName></DGR><OtherEntity><NonIndividualName type="TRD"><NonIndividualNameText>'
    "SHOP</NonIndividualNameText></NonIndividualName></OtherEntity>"
)

EDGE_CASES = {
    "company": COMPANY,
    "person, attributes reversed, empty state": PERSON,
    "other names and DGR": COMPANY.replace("</ABR>", TAILS + "</ABR>"),
    "asic self-closed": COMPANY.replace(
        '<ASICNumber ASICNumberType="undetermined">004085616</ASICNumber>',
        '<ASICNumber ASICNumberType="undetermined" />',
    ),
    "no gst, no asic": COMPANY.split("<ASICNumber")[0] + "</ABR>",
    "three given names": PERSON.replace(
        "<GivenName>ANN</GivenName>", "<GivenName>A</GivenName>" * 2
    ),
    "single quotes": COMPANY.replace('replaced="N"', "replaced='N'"),
    "extra attribute": COMPANY.replace('replaced="N"', 'replaced="N" extra="1"'),
    "space before >": COMPANY.replace("<EntityType>", "<EntityType >"),
    "no end tag then a record": "<ABR " + COMPANY[5:-6] + COMPANY,
    "record without attributes": "<ABR>" + COMPANY[COMPANY.index("<ABN") :],
    "not a record": "<ABRX>noise</ABR>" + COMPANY,
    "gt in an attribute": COMPANY.replace('status="ACT" ABN', 'status="A>T" ABN'),
    "truncated": COMPANY[:-20],
    "newlines between": "\n".join([COMPANY, PERSON, COMPANY]),
}


@pytest.mark.parametrize("name", EDGE_CASES)
def test_edge_cases_match_the_reference(name: str) -> None:
    data = EDGE_CASES[name].encode()
    assert scan(data) == abr._RECORDS_B.findall(data)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixtures_match_the_reference(path: Path) -> None:
    data = path.read_bytes()
    assert scan(data) == abr._RECORDS_B.findall(data)


def test_generated_extract_matches_the_reference(tmp_path: Path) -> None:
    summary = write_sample(tmp_path, scale=20_000, seed=5, abr_format="xml", workers=1)
    records = 0
    for path in sorted((tmp_path / "abr").glob("*.xml")):
        data = path.read_bytes()
        expected = abr._RECORDS_B.findall(data)
        assert scan(data) == expected
        records += len(expected)
    # The sample's records plus the extra records of its planted cases.
    assert records == 20_000 + summary.per_source["abr"]["planted_cases"]
    assert records == summary.per_source["abr"]["records"]
