"""Finding a supplier's ABN by its name, through the search tiers (SPEC 4.4).

A ledger row with no usable ABN is *resolved by name* when exactly one ABN has a name at
least 0.9 similar to the row's supplier name (pg_trgm similarity after the project's
normalisation, CONTRACT decision 8: "at least" is ``>=``, compared at 6 decimals as the SQL
side does). Candidates come from the home-page search over the serving snapshot
(``pipelines.serving.search``: exact, prefix, word and trigram tiers), so a name is found the
way a user would find it. Two or more such ABNs: ambiguous, the row needs review and lists
them. None: the row needs review and lists the closest names the search found.

A row whose ABN column holds an ACN (a company's 9-digit number) is never verified by it:
the ABN of a company is not derived from its ACN but looked up, the entity of the snapshot
whose ACN it is (:func:`resolve_acns`), and offered as a candidate for review.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from pipelines.matching import match_names, normalise_name

RESOLVE_THRESHOLD = 0.9  # "exactly one candidate at least 0.9 similar"
SUGGESTION_THRESHOLD = 0.5  # closest names listed for review
SEARCH_LIMIT = 20
MAX_CANDIDATES = 5


@dataclass(frozen=True)
class NameResolution:
    """What the search found for one supplier name."""

    name: str
    abn: str | None  # the one ABN at least RESOLVE_THRESHOLD similar, else None
    matches: int  # ABNs at least RESOLVE_THRESHOLD similar
    candidates: list[dict[str, Any]] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        if self.abn is not None:
            return None
        if self.matches > 1:
            return (
                f"no usable ABN, and {self.matches} registered businesses have a name at least"
                f" 90% similar to {self.name!r}: choose one"
            )
        return f"no usable ABN, and no registered name is at least 90% similar to {self.name!r}"


def resolve_name(con: duckdb.DuckDBPyConnection, name: str) -> NameResolution:
    """Resolve one supplier name against the snapshot ``con`` is open on."""
    from pipelines.serving.market import ServingError
    from pipelines.serving.search import search

    key = normalise_name(name)
    if key is None:
        return NameResolution(name, None, 0)
    try:
        found = search(con, name[:200], limit=SEARCH_LIMIT)["results"]
    except ServingError:
        return NameResolution(name, None, 0)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for result in found:  # in the search's order: the first row of a name is kept
        rows.setdefault((result["abn"], result["matched_name"]), result)
    ranked = [
        {
            "abn": m.key,
            "name": m.name,
            "legal_name": rows[(m.key, m.name)]["legal_name"],
            "abn_status": rows[(m.key, m.name)]["abn_status"],
            "state": rows[(m.key, m.name)]["state"],
            "score": m.similarity,
        }
        for m in match_names(name, rows, SUGGESTION_THRESHOLD)
    ]
    matching = [c for c in ranked if c["score"] >= RESOLVE_THRESHOLD]
    if len(matching) == 1:
        return NameResolution(name, matching[0]["abn"], 1, matching)
    return NameResolution(name, None, len(matching), (matching or ranked)[:MAX_CANDIDATES])


def resolve_names(
    con: duckdb.DuckDBPyConnection, names: Iterable[str]
) -> dict[str, NameResolution]:
    """Each distinct name once."""
    return {name: resolve_name(con, name) for name in dict.fromkeys(names)}


def resolve_acns(
    con: duckdb.DuckDBPyConnection, acns: Iterable[str]
) -> dict[str, list[dict[str, Any]]]:
    """The entities of the snapshot ``con`` is open on whose ACN is each of ``acns`` (most
    often one; none when no company in the register has it), as review candidates."""
    wanted = sorted(set(acns))
    found: dict[str, list[dict[str, Any]]] = {acn: [] for acn in wanted}
    if not wanted:
        return found
    rows = con.execute(
        "select acn, abn, legal_name, abn_status, state from marts.entities"
        " where acn in (select unnest(?::varchar[])) order by acn, abn",
        [wanted],
    ).fetchall()
    for acn, abn, legal_name, abn_status, state in rows:
        found[acn].append({
            "abn": abn, "name": legal_name, "legal_name": legal_name,
            "abn_status": abn_status, "state": state, "acn": acn, "found_by": "acn",
        })  # fmt: skip
    return found
