"""ABN and ACN check digits (the rules every load's blocking checks rely on)."""

from __future__ import annotations

import duckdb
import pytest

from pipelines.identifiers import (
    abn_from_acn,
    abn_is_valid,
    abn_valid_sql,
    abn_with_check_digits,
    acn_is_valid,
    acn_valid_sql,
    clean_identifier,
)

# Published examples: the ATO's sample ABN and ASIC's ACN examples.
VALID_ABNS = ["51824753556", "53004085616"]
VALID_ACNS = ["000000019", "004085616", "010499966", "005999977"]


@pytest.mark.parametrize("abn", VALID_ABNS)
def test_valid_abn(abn: str) -> None:
    assert abn_is_valid(abn)


@pytest.mark.parametrize(
    "abn", ["51824753557", "5182475355", "518247535560", "5182475355a", "", None]
)
def test_invalid_abn(abn: str | None) -> None:
    assert not abn_is_valid(abn)


@pytest.mark.parametrize("acn", VALID_ACNS)
def test_valid_acn(acn: str) -> None:
    assert acn_is_valid(acn)


@pytest.mark.parametrize("acn", ["000000018", "00408561", "00408561x", None])
def test_invalid_acn(acn: str | None) -> None:
    assert not acn_is_valid(acn)


def test_company_abn_is_built_on_its_acn() -> None:
    assert abn_from_acn("004085616") == "53004085616"


def test_every_body_gets_a_valid_prefix() -> None:
    for body in ("000000000", "999999999", "123456789", "004085616"):
        abn = abn_with_check_digits(body)
        assert abn.endswith(body) and abn_is_valid(abn)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("51 824 753 556", "51824753556"),
        ("0", None),
        ("00000000000", None),
        ("", None),
        (None, None),
    ],
)
def test_clean_identifier(raw: str | None, clean: str | None) -> None:
    assert clean_identifier(raw) == clean


def test_sql_rules_agree_with_python() -> None:
    values = [*VALID_ABNS, "51824753557", "abc", "5182475355", *VALID_ACNS, "000000018", None]
    con = duckdb.connect()
    rows = con.execute(
        f"select x, {abn_valid_sql('x')}, {acn_valid_sql('x')} from unnest(?) t(x)", [values]
    ).fetchall()
    for value, abn_ok, acn_ok in rows:
        assert abn_ok == abn_is_valid(value)
        assert acn_ok == acn_is_valid(value)
