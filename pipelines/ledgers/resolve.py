"""Finding a supplier's ABN by its name, for a whole ledger at once (SPEC 4.4).

A ledger row with no usable ABN is *resolved by name* when exactly one ABN has a name at
least 0.9 similar to the row's supplier name (pg_trgm similarity after the project's
normalisation, CONTRACT decision 8: "at least" is ``>=``, compared at 6 decimals as the SQL
side does). Two or more such ABNs: ambiguous, the row needs review and lists them. None: the
row needs review and lists the closest names, those at least 0.5 similar.

Every distinct supplier name of a file is resolved in one pass over the serving snapshot's
name index (``marts.search_names``: every name of every ABN, normalised): the supplier names
are indexed for the trigram similarity join (``pipelines.matching.similarity``, the join
register matching uses) and the snapshot's names stream past it once, so a file costs one
read of the index however many names it has. Every ABN with a name at least 0.5 similar is
considered, not the first page of a search.

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
import pyarrow as pa

from pipelines.matching import normalise_name
from pipelines.matching.similarity import SimilarityIndex, similarity_join

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
    """Each distinct name of ``names``, resolved against the snapshot ``con`` is open on,
    all in one pass over its names."""
    distinct = list(dict.fromkeys(names))
    keys = {name: normalise_name(name) for name in distinct}
    found = similar_names(con, sorted({key for key in keys.values() if key}))
    resolutions = {}
    for name in distinct:
        ranked = found.get(keys[name] or "", [])
        matching = [c for c in ranked if c["score"] >= RESOLVE_THRESHOLD]
        if len(matching) == 1:
            resolutions[name] = NameResolution(name, matching[0]["abn"], 1, matching)
        else:
            resolutions[name] = NameResolution(
                name, None, len(matching), (matching or ranked)[:MAX_CANDIDATES]
            )
    return resolutions


def similar_names(
    con: duckdb.DuckDBPyConnection, keys: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """For each normalised name of ``keys``, the ABNs with a name at least
    SUGGESTION_THRESHOLD similar: each ABN once, by its most similar name (then the first
    by name), best first (then by ABN). Only the first MAX_CANDIDATES are kept, with
    every ABN at least RESOLVE_THRESHOLD similar (``resolve_names`` counts those)."""
    if not keys:
        return {}
    index = SimilarityIndex(keys, [SUGGESTION_THRESHOLD] * len(keys))
    reader = con.sql(
        "select name_id, search_key as name_normalised from marts.search_names"
    ).to_arrow_reader(BATCH_ROWS)
    batches = list(similarity_join(index, reader, threads=os.cpu_count()))
    pairs = pa.Table.from_batches(
        batches,
        schema=pa.schema(
            [("register_index", pa.int32()), ("name_id", reader.schema.field("name_id").type),
             ("similarity", pa.float64())]
        ),
    )  # fmt: skip
    suffix = f"{os.getpid()}_{id(pairs)}"
    con.register(f"bvs_resolve_pairs_{suffix}", pairs)
    try:
        rows = con.execute(
            f"""
            with pairs as (
                select register_index, name_id, round(similarity, 6) as score
                from bvs_resolve_pairs_{suffix}
                where round(similarity, 6) >= ?
            ),
            named as (
                select pairs.register_index, pairs.score, names.abn_id, names.name,
                    names.legal_name, names.abn_status, names.state
                from pairs
                inner join marts.search_names as names on pairs.name_id = names.name_id
            ),
            per_abn as (
                select register_index, abn_id, max(score) as score,
                    first(name order by score desc, name) as name,
                    any_value(legal_name) as legal_name,
                    any_value(abn_status) as abn_status,
                    any_value(state) as state
                from named
                group by register_index, abn_id
            ),
            ranked as (
                select *, row_number() over (
                    partition by register_index order by score desc, abn_id
                ) as rank
                from per_abn
            )
            select register_index, abn_id, name, legal_name, abn_status, state, score
            from ranked
            where rank <= ? or score >= ?
            order by register_index, rank
            """,
            [SUGGESTION_THRESHOLD, MAX_CANDIDATES, RESOLVE_THRESHOLD],
        ).fetchall()
    finally:
        con.unregister(f"bvs_resolve_pairs_{suffix}")
    found: dict[str, list[dict[str, Any]]] = {}
    for register_index, abn_id, name, legal_name, abn_status, state, score in rows:
        found.setdefault(keys[register_index], []).append({
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
