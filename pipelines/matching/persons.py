"""Person names: a (surname, given names) key and a tolerant match.

Registers spell people two ways: ASIC officeholders as `SURNAME, GIVEN NAMES`, other
sources as `Given Middle Surname`. Both reduce to the same key; two names match when the
surnames are equal and the given names are compatible:

* the first given names are equal, or one is the initial of the other (`J` ~ `JOHN`);
* middle names may be missing on one side (`JOHN PAUL` ~ `JOHN`), but those present on both
  sides must agree in order, initials allowed (`JOHN PAUL` !~ `JOHN PETER`).
"""

from __future__ import annotations

import re

from pipelines.matching.names import fold_accents

# Lower-case particles that belong to the surname in the `Given Surname` form
# (`Maria de la Cruz` -> `DE LA CRUZ`), as they do before the comma in `DE LA CRUZ, MARIA`.
SURNAME_PARTICLES = frozenset(
    {"DA", "DE", "DEL", "DELLA", "DEN", "DER", "DI", "DOS", "DU", "LA", "LE", "VAN", "VON"}
)

_JOINED = re.compile("['\u2019\u2018`-]")  # O'BRIEN -> OBRIEN, SMITH-JONES -> SMITHJONES
_NOT_WORD = re.compile(r"[^\w,]+|_+")


def _tokens(text: str) -> list[str]:
    return _NOT_WORD.sub(" ", text).split()


def person_name_key(name: str) -> tuple[str, tuple[str, ...]]:
    """(SURNAME, (GIVEN, MIDDLE, ...)) from `SURNAME, GIVEN NAMES` or `Given Middle Surname`.

    Upper case, accents folded, apostrophes and hyphens dropped, other punctuation a space.

    >>> person_name_key("SMITH, JOHN PAUL")
    ('SMITH', ('JOHN', 'PAUL'))
    >>> person_name_key("John Paul O'Brien")
    ('OBRIEN', ('JOHN', 'PAUL'))
    """
    text = _JOINED.sub("", fold_accents(name.upper()))
    if "," in text:
        surname, _, given = text.partition(",")
        return " ".join(_tokens(surname)), tuple(_tokens(given.replace(",", " ")))
    tokens = _tokens(text)
    if not tokens:
        return "", ()
    start = len(tokens) - 1
    while start > 1 and tokens[start - 1] in SURNAME_PARTICLES:
        start -= 1
    return " ".join(tokens[start:]), tuple(tokens[:start])


def _compatible(a: str, b: str) -> bool:
    """Equal, or one is the initial of the other."""
    if a == b:
        return True
    if len(a) == 1:
        return b.startswith(a)
    if len(b) == 1:
        return a.startswith(b)
    return False


def _is_subsequence(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """Every name of `short` matches a later name of `long` than the one before it.

    Taking the earliest compatible name each time leaves the most room, so greedy is enough.
    """
    position = 0
    for name in short:
        while position < len(long) and not _compatible(name, long[position]):
            position += 1
        if position == len(long):
            return False
        position += 1
    return True


def person_names_match(a: str, b: str) -> bool:
    """Same surname, compatible first given name, no conflicting middle names.

    A name without any given name matches nothing: a surname alone is too weak.
    """
    surname_a, given_a = person_name_key(a)
    surname_b, given_b = person_name_key(b)
    if not surname_a or surname_a != surname_b or not given_a or not given_b:
        return False
    if not _compatible(given_a[0], given_b[0]):
        return False
    middle_a, middle_b = given_a[1:], given_b[1:]
    if len(middle_a) > len(middle_b):
        middle_a, middle_b = middle_b, middle_a
    return _is_subsequence(middle_a, middle_b)
