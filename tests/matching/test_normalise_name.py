"""normalise_name agrees with the dbt macro: the dbt unit test's cases, read from its YAML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pipelines.matching import normalise_name

CORE_MODELS_YML = (
    Path(__file__).parents[2] / "dbt_project" / "models" / "marts" / "core" / "_core__models.yml"
)
UNIT_TEST = "entity_names_normalise_name_cases"


def _dbt_cases() -> list[tuple[str, str | None]]:
    document = yaml.safe_load(CORE_MODELS_YML.read_text(encoding="utf-8"))
    (unit_test,) = [t for t in document["unit_tests"] if t["name"] == UNIT_TEST]
    expected = [(row["name"], row["name_normalised"]) for row in unit_test["expect"]["rows"]]
    # The names are SQL literals in the names input's rows; they must be exactly the expected
    # names (the other input, the ABN's hash, says nothing of them).
    (given,) = [g for g in unit_test["given"] if g["input"] == "ref('int_entity_names_unioned')"]
    literals = re.findall(r"\(\s*'((?:[^']|'')*)'\s*\)", given["rows"])
    assert [s.replace("''", "'") for s in literals] == [name for name, _ in expected]
    return expected


DBT_CASES = _dbt_cases()


def test_dbt_unit_test_has_all_the_reference_cases() -> None:
    assert len(DBT_CASES) == 40


@pytest.mark.parametrize(("name", "expected"), DBT_CASES, ids=[c[0] for c in DBT_CASES])
def test_same_as_the_dbt_macro(name: str, expected: str | None) -> None:
    assert normalise_name(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param(None, None, id="null stays null"),
        pytest.param("", None, id="empty is null"),
        pytest.param("   ", None, id="spaces only is null"),
        pytest.param("ACME PTY. LTD.", "ACME", id="dotted legal form"),
        pytest.param("Acme Co-operative Ltd", "ACME", id="co-operative limited"),
        pytest.param("ACME COOPERATIVE", "ACME", id="cooperative"),
        pytest.param("ACME COOP LTD", "ACME", id="coop ltd"),
        pytest.param("ACME N L", "ACME", id="spaced NL"),
        pytest.param("ACME LTD PTY LTD", "ACME", id="legal forms removed repeatedly"),
        pytest.param("PTY LTD", "PTY", id="never emptied by legal forms"),
        pytest.param("ACME PTY LTD TRADING", "ACME PTY LTD TRADING", id="only at the end"),
        pytest.param("LTD PLUMBING", "LTD PLUMBING", id="legal form at the start stays"),
        pytest.param("ACMEPTY", "ACMEPTY", id="whole words only"),
        pytest.param("ACME LIMITED PARTNERSHIP", "ACME LIMITED PS", id="not a suffix"),
        pytest.param("TRUSTEE FOR THE SMITH TRUST", "SMITH TR", id="trustee for prefix"),
        pytest.param("A PTY LTD ATF B PTY LTD ATF C TRUST", "C TR", id="up to the last ATF"),
        pytest.param("SMITH FAMILY TRUST PTY LTD", "SMITH FT", id="designator before a legal form"),
        pytest.param(
            "SMITH FAMILY TRUST NO 2", "SMITH FAMILY TRUST NO 2", id="designator only at the end"
        ),
        pytest.param("SMITH SUPER FUNDS", "SMITH SUPER FUNDS", id="designator whole words only"),
        pytest.param("FAMILY TRUST", "FAMILY TR", id="never reduced to a token"),
        pytest.param(
            "THE OWNERS STRATA PLAN", "OWNERS STRATA PLAN", id="strata needs a plan after it"
        ),
        pytest.param("THEATRE ROYAL", "THEATRE ROYAL", id="leading THE whole word only"),
        pytest.param("SMITH ATF", "SMITH ATF", id="ATF needs a name after it"),
        pytest.param("Crème Brûlée Café", "CREME BRULEE CAFE", id="accents folded"),
        pytest.param("ÅSA ØSTBY", "ASA ØSTBY", id="no decomposition for Ø"),
        pytest.param("straße", "STRASSE", id="lower sharp s"),
        pytest.param("ﬁsh", "ﬁSH", id="ligature kept, as the SQL upper keeps it"),
        pytest.param("GROSSE ẞ", "GROSSE SS", id="capital sharp s"),
        pytest.param("Rock‘n’Roll", "ROCKNROLL", id="curly quotes removed"),
        pytest.param("D`ARCY", "DARCY", id="backtick removed"),
        pytest.param("A+B\tC\n(D)", "A B C D", id="tabs newlines punctuation"),
        pytest.param("R&D&CO", "R AND D AND CO", id="every ampersand"),
        pytest.param("東京 PTY LTD", "東京", id="other scripts are letters"),
        pytest.param("NUMBER ½ ²", "NUMBER ½ ²", id="other numbers kept"),
    ],
)
def test_own_cases(name: str | None, expected: str | None) -> None:
    assert normalise_name(name) == expected
