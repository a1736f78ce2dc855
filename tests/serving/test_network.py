"""Network analysis (docs/network.md): shared directors, shared addresses and phoenix links.

The fixture registers go through the real dbt models (entities, the officeholder history,
network_officeholders, phoenix_links) into a published serving snapshot, and ``network()``
reads that snapshot, so each rule is checked on what a request really sees. The grouping of
names into people, whose corner cases need no registers, is tested on its own.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import duckdb
import pytest

from pipelines.identifiers import abn_from_acn
from pipelines.serving.market import ServingError
from pipelines.serving.network import (
    DEREGISTERED_COMPANY_REQUESTED,
    DIRECTOR_SHARED,
    SAME_DEREGISTERED_COMPANY,
    Office,
    group_people,
    network,
    parse_abns,
)
from pipelines.serving.verify import VerifyError
from pipelines.warehouse.snapshot import open_snapshot
from tests.conftest import make_acn
from tests.dbt.test_dbt_build import published_snapshot

AS_OF = "2026-11-20"
D = dt.date

ALPHA_ACN, BRAVO_ACN, CHARLIE_ACN, DELTA_ACN = (make_acn(n) for n in (301, 302, 303, 304))
OLDCO_ACN = make_acn(305)  # deregistered 2025-06-30, still in the ABR (cancelled)
GONECO_ACN = make_acn(306)  # deregistered 2026-01-31, no ABN
ALPHA, BRAVO, CHARLIE, DELTA, OLDCO = (
    abn_from_acn(acn) for acn in (ALPHA_ACN, BRAVO_ACN, CHARLIE_ACN, DELTA_ACN, OLDCO_ACN)
)
ECHO_ACN = make_acn(307)
ECHO = abn_from_acn(ECHO_ACN)  # a company without a postcode (ABR 0000)
SOLE_TRADER = "51824753556"  # an individual: no ACN, no officeholders
UNKNOWN = abn_from_acn(make_acn(399))  # a valid ABN the register does not hold


def _abn(abn: str, name: str, state: str, postcode: str, **values: Any) -> dict[str, Any]:
    return {
        "abn": abn,
        "abn_status": "ACT",
        "abn_status_from_date": D(2010, 1, 1),
        "record_last_updated_date": D(2024, 1, 1),
        "replaced": "N",
        "entity_type_code": "PRV",
        "entity_type_text": "Australian Private Company",
        "is_individual": False,
        "entity_name": name,
        "state": state,
        "postcode": postcode,
        "asic_number": abn[2:],
        "asic_number_type": "undetermined",
    } | values


def _company(
    acn: str, name: str, status: str = "REGD", deregistered: D | None = None
) -> dict[str, Any]:
    return {
        "company_name": name,
        "acn": acn,
        "type": "APTY",
        "class": "LMSH",
        "sub_class": "PROP",
        "status": status,
        "date_of_registration": D(2000, 3, 1),
        "date_of_deregistration": deregistered,
        "current_name_indicator": "Y",
        "abn": abn_from_acn(acn),
    }


def _office(acn: str, name: str, born: D | None, **values: Any) -> dict[str, Any]:
    return {
        "acn": acn,
        "person_name": name,
        "role": "DIRECTOR",
        "appointed_date": D(2015, 1, 1),
        "birth_date": born,
        "extracted_date": D(2026, 11, 1),
    } | values


ABNS = [
    _abn(ALPHA, "ALPHA PTY LTD", "QLD", "4000"),
    _abn(BRAVO, "BRAVO PTY LTD", "QLD", "4000"),
    _abn(CHARLIE, "CHARLIE PTY LTD", "NSW", "4000"),  # same postcode, another state
    _abn(DELTA, "DELTA PTY LTD", "QLD", "4001"),  # same state, another postcode
    _abn(OLDCO, "OLDCO PTY LTD", "VIC", "3000", abn_status="CAN"),
    _abn(ECHO, "ECHO PTY LTD", "QLD", "0000"),  # 0000 = unknown postcode
    _abn(
        SOLE_TRADER,
        "JANE CITIZEN",
        "QLD",
        "4000",
        entity_type_code="IND",
        entity_type_text="Individual/Sole Trader",
        is_individual=True,
        asic_number=None,
        asic_number_type=None,
    ),
]
COMPANIES = [
    _company(ALPHA_ACN, "ALPHA PTY LTD"),
    _company(BRAVO_ACN, "BRAVO PTY LTD"),
    _company(CHARLIE_ACN, "CHARLIE PTY LTD"),
    _company(DELTA_ACN, "DELTA PTY LTD"),
    _company(OLDCO_ACN, "OLDCO PTY LTD", "DRGD", D(2025, 6, 30)),
    _company(GONECO_ACN, "GONECO PTY LTD", "DRGD", D(2026, 1, 31)),
    _company(ECHO_ACN, "ECHO PTY LTD"),
]
OFFICEHOLDERS = [
    # one person at ALPHA (now), BRAVO (ceased, initial only) and OLDCO (until it went)
    _office(ALPHA_ACN, "SMITH, JOHN PAUL", D(1970, 1, 1), appointed_date=D(2025, 7, 1)),
    _office(BRAVO_ACN, "Smith, J", D(1970, 1, 1), ceased_date=D(2019, 6, 30)),
    _office(OLDCO_ACN, "SMITH, JOHN", D(1970, 1, 1), ceased_date=D(2025, 6, 30)),
    # the same name, two birth dates: two people
    _office(ALPHA_ACN, "JONES, MARY", D(1960, 3, 3)),
    _office(CHARLIE_ACN, "JONES, MARY", D(1975, 7, 7)),
    # a secretary is an officeholder too
    _office(BRAVO_ACN, "NGUYEN, THI", D(1980, 2, 2), role="SECRETARY"),
    _office(CHARLIE_ACN, "NGUYEN, THI", D(1980, 2, 2)),
    # CHARLIE and DELTA both rose from GONECO
    _office(CHARLIE_ACN, "KING, LEE", D(1966, 6, 6)),
    _office(GONECO_ACN, "KING, LEE", D(1966, 6, 6), ceased_date=D(2026, 1, 31)),
    _office(DELTA_ACN, "BROWN, ANN", D(1990, 9, 9)),
    _office(GONECO_ACN, "BROWN, ANN", D(1990, 9, 9), ceased_date=D(2026, 1, 31)),
]


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """The registers above through the real models into a published serving snapshot."""
    settings = published_snapshot(
        tmp_path_factory.mktemp("network"),
        {
            "raw.abr__abns": ABNS,
            "raw.asic__companies": COMPANIES,
            "raw.directors__officeholders": OFFICEHOLDERS,
        },
        "+network_officeholders +phoenix_links",
        AS_OF,
    )
    snap = open_snapshot(settings)
    yield snap
    snap.close()


def _people(response: dict[str, Any]) -> dict[str, list[str]]:
    return {p["person_name"]: p["abns"] for p in response["shared_directors"]}


def _link(response: dict[str, Any], abn: str, deregistered_acn: str) -> dict[str, Any]:
    (link,) = [
        link
        for link in response["phoenix_links"]
        if (link["abn"], link["deregistered_acn"]) == (abn, deregistered_acn)
    ]
    return link


# --- shared directors -------------------------------------------------------------------------


def test_a_director_of_two_requested_entities_is_shared(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    response = network(snapshot, [ALPHA, BRAVO])
    (smith,) = [p for p in response["shared_directors"] if p["person_name"].startswith("SMITH")]
    assert smith["person_name"] == "SMITH, JOHN PAUL"  # the fullest spelling
    assert smith["birth_date"] == "1970-01-01"
    assert smith["abns"] == [ALPHA, BRAVO]
    assert smith["is_current"] is True
    assert [
        (link["abn"], link["person_name"], link["is_current"], link["ceased_date"])
        for link in smith["links"]
    ] == [
        (ALPHA, "SMITH, JOHN PAUL", True, None),
        (BRAVO, "Smith, J", False, "2019-06-30"),  # a past office counts
    ]


def test_same_name_with_another_birth_date_is_not_shared(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    assert _people(network(snapshot, [ALPHA, CHARLIE])) == {}  # JONES, MARY twice: two people


def test_a_secretary_counts_as_an_officeholder(snapshot: duckdb.DuckDBPyConnection) -> None:
    response = network(snapshot, [BRAVO, CHARLIE])
    assert _people(response) == {"NGUYEN, THI": [BRAVO, CHARLIE]}
    roles = [link["role"] for link in response["shared_directors"][0]["links"]]
    assert roles == ["SECRETARY", "DIRECTOR"]


def test_one_entity_alone_shares_nothing(snapshot: duckdb.DuckDBPyConnection) -> None:
    response = network(snapshot, ALPHA)
    assert (response["shared_directors"], response["shared_addresses"]) == ([], [])


# --- shared addresses -------------------------------------------------------------------------


def test_address_is_shared_only_on_the_same_state_and_postcode(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    response = network(snapshot, [ALPHA, BRAVO, CHARLIE, DELTA, ECHO, SOLE_TRADER])
    assert response["shared_addresses"] == [
        {
            "state": "QLD",
            "postcode": "4000",
            "precision": "postcode",
            "abns": [ALPHA, BRAVO, SOLE_TRADER],
        }
    ]  # not CHARLIE (NSW 4000), DELTA (QLD 4001) or ECHO (QLD, postcode unknown)


# --- phoenix links ----------------------------------------------------------------------------


def test_phoenix_link_to_a_requested_company_is_within_the_request(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    link = _link(network(snapshot, [ALPHA, OLDCO]), ALPHA, OLDCO_ACN)
    assert link["within_request"] is True
    assert link["within_request_reasons"] == [DEREGISTERED_COMPANY_REQUESTED, DIRECTOR_SHARED]
    assert link["deregistered_company_abns"] == [OLDCO]
    assert (link["person_name"], link["deregistration_date"]) == ("SMITH, JOHN PAUL", "2025-06-30")


def test_phoenix_link_of_a_shared_director_is_within_the_request(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    link = _link(network(snapshot, [ALPHA, BRAVO]), ALPHA, OLDCO_ACN)
    assert (link["within_request"], link["within_request_reasons"]) == (True, [DIRECTOR_SHARED])


def test_two_requested_entities_linked_to_one_deregistered_company(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    response = network(snapshot, [CHARLIE, DELTA])
    for abn in (CHARLIE, DELTA):
        link = _link(response, abn, GONECO_ACN)
        assert (link["within_request"], link["within_request_reasons"]) == (
            True,
            [SAME_DEREGISTERED_COMPANY],
        )


def test_phoenix_link_outside_the_request_is_not_marked(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    response = network(snapshot, [ALPHA, DELTA])
    assert _link(response, ALPHA, OLDCO_ACN)["within_request"] is False
    link = _link(response, DELTA, GONECO_ACN)
    assert (link["within_request"], link["within_request_reasons"]) == (False, [])


# --- the request ------------------------------------------------------------------------------


def test_entities_in_request_order_with_status_and_address(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    response = network(snapshot, f"{OLDCO}, {SOLE_TRADER},{OLDCO[:2]} {OLDCO[2:]}")
    assert response["abns"] == [OLDCO, SOLE_TRADER]  # spaces removed, duplicates collapsed
    assert response["as_of"] == AS_OF
    assert response["entities"] == [
        {
            "abn": OLDCO,
            "entity": "OLDCO PTY LTD",
            "status": "Cancelled",
            "acn": OLDCO_ACN,
            "state": "VIC",
            "postcode": "3000",
            "officeholder_count": 1,
        },
        {
            "abn": SOLE_TRADER,
            "entity": "JANE CITIZEN",
            "status": "Active",
            "acn": None,
            "state": "QLD",
            "postcode": "4000",
            "officeholder_count": 0,
        },
    ]


def test_unknown_abns_are_listed_as_not_found(snapshot: duckdb.DuckDBPyConnection) -> None:
    response = network(snapshot, [UNKNOWN, ALPHA])
    assert response["not_found"] == [UNKNOWN]
    assert [e["abn"] for e in response["entities"]] == [ALPHA]


def test_none_found_is_404(snapshot: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ServingError, match=UNKNOWN) as caught:
        network(snapshot, UNKNOWN)
    assert caught.value.status == 404


def test_more_than_20_abns_is_400(snapshot: duckdb.DuckDBPyConnection) -> None:
    many = [abn_from_acn(make_acn(n)) for n in range(500, 521)]
    assert len(set(many)) == 21
    with pytest.raises(ServingError, match="at most 20 ABNs") as caught:
        network(snapshot, many)
    assert caught.value.status == 400
    assert parse_abns([*many[:20], many[0]]) == many[:20]  # 20 distinct after duplicates: fine


def test_a_bad_checksum_is_400_naming_the_abn(snapshot: duckdb.DuckDBPyConnection) -> None:
    bad = ALPHA[:-1] + str((int(ALPHA[-1]) + 1) % 10)
    with pytest.raises(VerifyError, match=f"{bad}.*checksum") as caught:
        network(snapshot, [ALPHA, bad])
    assert caught.value.status == 400


@pytest.mark.parametrize("empty", ["", " , ", []], ids=["empty string", "commas", "empty list"])
def test_no_abn_is_400(snapshot: duckdb.DuckDBPyConnection, empty: str | list[str]) -> None:
    with pytest.raises(ServingError, match="at least one ABN") as caught:
        network(snapshot, empty)
    assert caught.value.status == 400


# --- names into people (no registers needed) ------------------------------------------------


def _offices(*rows: tuple[str, str, str, D | None]) -> list[Office]:
    return [
        Office(
            abn=abn,
            person_key=key,
            person_name=name,
            birth_date=born,
            role="DIRECTOR",
            appointed_date=None,
            ceased_date=None,
            is_current=True,
        )
        for abn, key, name, born in rows
    ]


def _grouped(offices: list[Office]) -> list[list[tuple[str, str]]]:
    return sorted(
        sorted((o.abn, o.person_name) for o in person) for person in group_people(offices)
    )


def test_an_initial_without_birth_date_belongs_to_each_person_it_matches() -> None:
    """SMITH, J could be JOHN or JAMES: listed under both, JOHN and JAMES never together."""
    offices = _offices(
        ("A", "SMITH, JOHN", "SMITH, JOHN", D(1970, 1, 1)),
        ("B", "SMITH, JAMES", "SMITH, JAMES", D(1980, 1, 1)),
        ("C", "SMITH, J", "SMITH, J", None),
    )
    assert _grouped(offices) == [
        [("A", "SMITH, JOHN"), ("C", "SMITH, J")],
        [("B", "SMITH, JAMES"), ("C", "SMITH, J")],
    ]


def test_unknown_birth_date_does_not_join_two_known_ones() -> None:
    offices = _offices(
        ("A", "LEE, ANN", "LEE, ANN", D(1970, 1, 1)),
        ("B", "LEE, ANN", "LEE, ANN", D(1985, 1, 1)),
        ("C", "LEE, ANN", "LEE, ANN", None),
    )
    assert _grouped(offices) == [
        [("A", "LEE, ANN"), ("C", "LEE, ANN")],
        [("B", "LEE, ANN"), ("C", "LEE, ANN")],
    ]


def test_conflicting_middle_names_and_missing_given_names_do_not_match() -> None:
    offices = _offices(
        ("A", "SMITH, JOHN PAUL", "SMITH, JOHN PAUL", None),
        ("B", "SMITH, JOHN PETER", "SMITH, JOHN PETER", None),
        ("C", "SMITH, JOHN", "SMITH, JOHN", None),
        ("D", None, "SMITH,", None),
        ("E", None, "SMITH,", None),
    )
    assert _grouped(offices) == [
        [("A", "SMITH, JOHN PAUL"), ("C", "SMITH, JOHN")],
        [("B", "SMITH, JOHN PETER"), ("C", "SMITH, JOHN")],
    ]  # JOHN PAUL is not JOHN PETER; a surname alone matches nobody


def test_a_person_holding_two_offices_is_one_person() -> None:
    offices = _offices(
        ("A", "TAN, WEI", "TAN, WEI", D(1975, 5, 5)),
        ("A", "TAN, WEI", "Tan, Wei", D(1975, 5, 5)),
        ("B", "TAN, W", "TAN, W", D(1975, 5, 5)),
    )
    assert _grouped(offices) == [[("A", "TAN, WEI"), ("A", "Tan, Wei"), ("B", "TAN, W")]]
