"""Finding a supplier's ABN by its name, for a whole ledger at once (docs/search.md).

A ledger row with no usable ABN is *resolved by name* when exactly one ABN has a name at
least 0.9 similar to the row's supplier name (pg_trgm similarity after the project's
normalisation, docs/decisions/08-similarity.md: "at least" is ``>=``, compared at 6 decimals as the SQL
side does). Two or more such ABNs: ambiguous, the row needs review and lists them. None: the
row needs review and lists the closest names, those at least 0.5 similar.

Every distinct supplier name of a file is resolved at once against the serving snapshot's
name index (``marts.search_names``: every name of every ABN, normalised): the supplier names
are indexed for the trigram similarity join (``pipelines.matching.similarity``, the join
register matching uses) and the snapshot's names stream past it, once at 0.9 for every name
and once at 0.5 for the names nothing reached, so a file costs two reads of the index
however many names it has. Every ABN with a similar name is considered, not the first page
of a search.

A row whose ABN column holds an ACN (a company's 9-digit number) is never verified by it:
the ABN of a company is not derived from its ACN but looked up, the entity of the snapshot
whose ACN it is (:func:`resolve_acns`), and offered as a candidate for review.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from pipelines.matching import normalise_name
from pipelines.matching.similarity import SimilarityIndex, similarity_pairs

RESOLVE_THRESHOLD = 0.9  # "exactly one candidate at least 0.9 similar"
SUGGESTION_THRESHOLD = 0.5  # closest names listed for review
MAX_CANDIDATES = 5
BATCH_ROWS = 131_072


@dataclass(frozen=True)
class NameResolution:
    """What the snapshot's names say of one supplier name."""

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
    return resolve_names(con, [name])[name]


def resolve_names(
    con: duckdb.DuckDBPyConnection, names: Iterable[str]
) -> dict[str, NameResolution]:
    """Each distinct name of ``names``, resolved against the snapshot ``con`` is open on.

    Two passes over the snapshot's names: every name at RESOLVE_THRESHOLD (a high threshold
    makes the join cheap), then, for the names no ABN reached, the closest names at
    SUGGESTION_THRESHOLD."""
    distinct = list(dict.fromkeys(names))
    keys = {name: normalise_name(name) for name in distinct}
    wanted = sorted({key for key in keys.values() if key})
    close = similar_names(con, wanted, RESOLVE_THRESHOLD)
    suggested = similar_names(
        con, [key for key in wanted if key not in close], SUGGESTION_THRESHOLD
    )
    resolutions = {}
    for name in distinct:
        key = keys[name] or ""
        if key in close:
            matches, candidates = close[key]
            abn = candidates[0]["abn"] if matches == 1 else None
            resolutions[name] = NameResolution(name, abn, matches, candidates)
        else:
            resolutions[name] = NameResolution(name, None, 0, suggested.get(key, (0, []))[1])
    return resolutions


def similar_names(
    con: duckdb.DuckDBPyConnection, keys: list[str], threshold: float
) -> dict[str, tuple[int, list[dict[str, Any]]]]:
    """For each normalised name of ``keys`` that any ABN has a name at least ``threshold``
    similar to: how many ABNs do, and the first MAX_CANDIDATES of them, best first (then by
    ABN), each by its most similar name (then the first by name)."""
    if not keys:
        return {}
    index = SimilarityIndex(keys, [threshold] * len(keys))
    reader = con.sql(
        "select name_id, search_key as name_normalised from marts.search_names"
    ).to_arrow_reader(BATCH_ROWS)
    pairs = similarity_pairs(index, reader)
    view = f"bvs_resolve_pairs_{os.getpid()}_{id(pairs)}"
    con.register(view, pairs)
    try:
        rows = con.execute(
            f"""
            with pairs as (
                select register_index, name_id, round(similarity, 6) as score
                from {view}
                where round(similarity, 6) >= ?
            ),
            per_abn as (
                select pairs.register_index, names.abn_id, max(pairs.score) as score,
                    first(names.name order by pairs.score desc, names.name) as name,
                    any_value(names.legal_name) as legal_name,
                    any_value(names.abn_status) as abn_status,
                    any_value(names.state) as state
                from pairs
                inner join marts.search_names as names on pairs.name_id = names.name_id
                group by pairs.register_index, names.abn_id
            ),
            ranked as (
                select *,
                    row_number() over (
                        partition by register_index order by score desc, abn_id
                    ) as rank,
                    count(*) over (partition by register_index) as abns
                from per_abn
            )
            select register_index, abns, abn_id, name, legal_name, abn_status, state, score
            from ranked
            where rank <= ?
            order by register_index, rank
            """,
            [threshold, MAX_CANDIDATES],
        ).fetchall()
    finally:
        con.unregister(view)
    found: dict[str, tuple[int, list[dict[str, Any]]]] = {}
    for register_index, abns, abn_id, name, legal_name, abn_status, state, score in rows:
        _, candidates = found.setdefault(keys[register_index], (abns, []))
        candidates.append({
            "abn": f"{abn_id:011d}", "name": name, "legal_name": legal_name,
            "abn_status": abn_status, "state": state, "score": score,
        })  # fmt: skip
    return found


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
