"""Person names: one key for `SURNAME, GIVEN NAMES` and `Given Middle Surname`, and a match
that tolerates missing middle names and initials but not conflicting names."""

from __future__ import annotations

import pytest

from pipelines.matching import person_name_key, person_names_match


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("SMITH, JOHN PAUL", ("SMITH", ("JOHN", "PAUL")), id="surname comma given"),
        pytest.param("John Paul Smith", ("SMITH", ("JOHN", "PAUL")), id="given then surname"),
        pytest.param("  smith ,  john  ", ("SMITH", ("JOHN",)), id="spaces and case"),
        pytest.param(
            "O'Brien, Mary-Anne", ("OBRIEN", ("MARYANNE",)), id="apostrophe and hyphen joined"
        ),
        pytest.param("J. R. Smith", ("SMITH", ("J", "R")), id="dotted initials"),
        pytest.param("Zoë Müller", ("MULLER", ("ZOE",)), id="accents folded"),
        pytest.param("Maria de la Cruz", ("DE LA CRUZ", ("MARIA",)), id="surname particles"),
        pytest.param("DE LA CRUZ, MARIA", ("DE LA CRUZ", ("MARIA",)), id="particles before comma"),
        pytest.param("Van Nguyen", ("NGUYEN", ("VAN",)), id="a particle word can be a given name"),
        pytest.param("SMITH", ("SMITH", ()), id="surname only"),
        pytest.param("SMITH,", ("SMITH", ()), id="comma without given names"),
        pytest.param("", ("", ()), id="empty"),
    ],
)
def test_person_name_key(name: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert person_name_key(name) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param("SMITH, JOHN PAUL", "John Smith", True, id="middle name missing on one side"),
        pytest.param("SMITH, JOHN PAUL", "John Peter Smith", False, id="conflicting middle names"),
        pytest.param("SMITH, J", "John Smith", True, id="initial of the first given name"),
        pytest.param("SMITH, JOHN", "J Smith", True, id="initial on the other side"),
        pytest.param("SMITH, JOHN", "John Smyth", False, id="different surname"),
        pytest.param("SMITH, JOHN", "Jane Smith", False, id="different first given name"),
        pytest.param("SMITH, JOHN", "Paul Smith", False, id="different initial"),
        pytest.param("SMITH, JOHN PAUL", "John P Smith", True, id="middle initial"),
        pytest.param("SMITH, JOHN PAUL", "John Q Smith", False, id="conflicting middle initial"),
        pytest.param("SMITH, JOHN PAUL GEORGE", "John George Smith", True, id="one middle of two"),
        pytest.param(
            "SMITH, JOHN PAUL GEORGE", "John George Paul Smith", False, id="middle names reordered"
        ),
        pytest.param("SMITH, JOHN", "Paul John Smith", False, id="first given name must agree"),
        pytest.param("smith, john", "JOHN SMITH", True, id="case"),
        pytest.param("O'BRIEN, MARY", "Mary OBrien", True, id="apostrophe"),
        pytest.param("SMITH", "John Smith", False, id="no given names is too weak"),
        pytest.param("SMITH-JONES, MARY", "Mary Smith-Jones", True, id="hyphenated surname"),
        pytest.param("SMITH, JO", "John Smith", False, id="a short name is not an initial"),
        pytest.param("", "", False, id="empty names never match"),
    ],
)
def test_person_names_match(a: str, b: str, expected: bool) -> None:
    assert person_names_match(a, b) is expected
    assert person_names_match(b, a) is expected
