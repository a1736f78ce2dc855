"""Names a user types, matched rather than searched (decisions 13 and 20 in docs/decisions/).

A name given to ``viper ?name=``, ``bvs viper --name``, an activist watch or a supplier
ledger row without a usable ABN (``pipelines.ledgers.resolve``) is compared with
the candidate names by the similarity of docs/decisions/08-similarity.md (pg_trgm ``similarity()`` after
the project's normalisation), kept at the threshold, best first: "Ltd" for "Limited" or
"and" for "&" never changes the answer, and a substring of a longer name is no match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pipelines.matching.names import normalise_name
from pipelines.matching.trigram import trigram_similarity

# docs/rules.md activist short-seller check: "name trigram at least 0.65" (docs/decisions/20-names-given-are-matched.md)
ACTIVIST_NAME_THRESHOLD = 0.65


@dataclass(frozen=True)
class NameMatch:
    key: str  # what the name belongs to (a ticker)
    name: str  # the candidate name that matched best
    similarity: float


def match_names(
    query: str, candidates: Iterable[tuple[str, str]], threshold: float
) -> list[NameMatch]:
    """The keys of ``candidates`` ((key, name) pairs, several names a key) whose best name is
    at least ``threshold`` similar to ``query``, best first (then by key); the similarity is
    compared at 6 decimals, as the SQL side does. A query that normalises to nothing matches
    nothing."""
    wanted = normalise_name(query)
    if not wanted:
        return []
    best: dict[str, NameMatch] = {}
    for key, name in candidates:
        normalised = normalise_name(name)
        if not normalised:
            continue
        score = round(trigram_similarity(wanted, normalised), 6)
        if score >= threshold and (key not in best or score > best[key].similarity):
            best[key] = NameMatch(key, name, score)
    return sorted(best.values(), key=lambda m: (-m.similarity, m.key))
