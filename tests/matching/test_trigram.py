"""trigram_similarity is pg_trgm's similarity(); values from PostgreSQL's documentation and
show_trgm(). The full comparison against a real server is in test_trigram_postgres.py."""

from __future__ import annotations

import pytest

from pipelines.matching import trigram_similarity, trigrams


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "cat", {"  c", " ca", "cat", "at "}, id="word padded two spaces before one after"
        ),
        pytest.param("a", {"  a", " a "}, id="one-letter word gives two trigrams"),
        pytest.param("Cat", {"  c", " ca", "cat", "at "}, id="lower-cased"),
        pytest.param(
            "foo|bar",
            {"  f", " fo", "foo", "oo ", "  b", " ba", "bar", "ar "},
            id="punctuation splits words",
        ),
        pytest.param("aaa", {"  a", " aa", "aaa", "aa "}, id="a set, no repeats"),
        pytest.param("7-11", {"  7", " 7 ", "  1", " 11", "11 "}, id="digits are word characters"),
        pytest.param("é", {"  é", " é "}, id="accented letters are word characters"),
        pytest.param("", set(), id="empty"),
        pytest.param(" -- ", set(), id="no word characters"),
    ],
)
def test_trigrams(text: str, expected: set[str]) -> None:
    assert trigrams(text) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param(
            "word", "two words", 4 / 11, id="PostgreSQL docs: similarity(word, two words)"
        ),
        pytest.param("ACME", "acme", 1.0, id="case does not matter"),
        pytest.param("ACME PTY LTD", "LTD PTY ACME", 1.0, id="word order does not matter"),
        pytest.param("acme", "acne", 2 / 8, id="one letter changed"),
        pytest.param("a", "b", 0.0, id="nothing shared"),
        pytest.param("", "", 0.0, id="two empty strings give 0"),
        pytest.param("acme", "", 0.0, id="one empty string gives 0"),
        pytest.param("a", "a b", 2 / 4, id="short words count"),
    ],
)
def test_similarity(a: str, b: str, expected: float) -> None:
    assert trigram_similarity(a, b) == pytest.approx(expected, abs=1e-12)
    assert trigram_similarity(b, a) == pytest.approx(expected, abs=1e-12)


def test_no_normalisation_inside() -> None:
    """Legal forms are not dropped here: callers normalise first."""
    assert trigram_similarity("ACME", "ACME PTY LTD") < 1.0
