"""PostgreSQL pg_trgm `similarity()`, computed in Python (docs/decisions/08-similarity.md).

pg_trgm splits a string into words (maximal runs of alphanumeric characters), lower-cases
each word, pads it with two spaces in front and one behind, and takes every 3-character
substring as a trigram: `cat` -> `  c`, ` ca`, `cat`, `at `; `a` -> `  a`, ` a `.
similarity = |common trigrams| / |all trigrams| over the two sets, 0 when either is empty.
No normalisation happens here: callers pass names through `normalise_name` first.
"""

from __future__ import annotations

from functools import lru_cache


def _words(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    for c in text:
        if c.isalnum():
            current.append(c)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


@lru_cache(maxsize=65536)
def trigrams(text: str) -> frozenset[str]:
    """The set of pg_trgm trigrams of `text` (what `show_trgm(text)` lists)."""
    result: set[str] = set()
    for word in _words(text):
        padded = "  " + word.lower() + " "
        result.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return frozenset(result)


def trigram_similarity(a: str, b: str) -> float:
    """pg_trgm's `similarity(a, b)`: shared trigrams over the union of trigrams."""
    ta = trigrams(a)
    tb = trigrams(b)
    if not ta or not tb:
        return 0.0
    common = len(ta & tb)
    return common / (len(ta) + len(tb) - common)
