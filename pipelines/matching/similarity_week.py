"""The similarity join of a week: only the register names and entity names that changed since
the join last ran are matched, and last week's pairs of unchanged names are kept.

A pair's similarity is a function of the two names alone and its threshold of the register
name alone, so the pairs of this week are exactly:

* last week's pairs whose register name is still matched at the same threshold and whose
  entity name is still an entity name;
* the pairs of every register name that is new or whose threshold changed, against every
  entity name (one pass over the entity names with a small index);
* the pairs of every other register name against the entity names that are new.

What the join last ran on is kept in the warehouse beside the pairs (``STATE``): the
register names with their thresholds, the entity names, and a row saying how many pairs it
wrote, their checksum and the code that found them. The whole join runs instead when there
is no such record, when the pairs table is not the one it describes (a build that failed
after the record was written), when the code changed, or when more than ``max_share`` of
either side is new: then one pass over everything is cheaper. ``--full-refresh`` drops the
record first (the model's pre-hook), so it builds whole.

docs/matching.md ("The weekly join") gives the figures; tests/matching/test_similarity_week.py
and tests/e2e/test_incremental_week.py hold it equal to the whole join.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.matching.similarity import entity_rows, matched_pairs, register_rows

log = logging.getLogger(__name__)

STATE_SCHEMA = "meta"
REGISTERS = f"{STATE_SCHEMA}.name_similarities__registers"
ENTITIES = f"{STATE_SCHEMA}.name_similarities__entities"
BUILT = f"{STATE_SCHEMA}.name_similarities__built"
STATE = (REGISTERS, ENTITIES, BUILT)
MAX_SHARE = 0.5

_HERE = Path(__file__).resolve().parent
_CODE = ("similarity.py", "similarity_week.py", "_trgmjoin.c")


@dataclass(frozen=True)
class WeekJoin:
    """How a run of the join went: ``whole`` or ``changes``, with what it matched."""

    mode: str
    reason: str
    registers_matched: int
    entities_matched: int
    pairs: int


def code_hash() -> str:
    """The sources of the join: a change to any of them makes the next run whole."""
    digest = hashlib.sha256()
    for name in _CODE:
        path = _HERE / name
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:16]


def _suffix() -> str:
    return f"{os.getpid()}_{os.urandom(4).hex()}"


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple:
    """The first row of a statement, the result read to its end (DuckDB 2.0 lets no other
    statement run on a connection while a result is unfinished)."""
    rows = con.execute(sql, params or []).fetchall()
    return tuple(rows[0]) if rows else ()


def _exists(con: duckdb.DuckDBPyConnection, qualified: str) -> bool:
    """Whether the table ``[database.]schema.table`` exists (asked of the catalogue, not by
    a failing query: that would abort the model's transaction)."""
    parts = [part.strip('"') for part in qualified.split(".")]
    database = parts[0] if len(parts) == 3 else None
    row = _one(
        con,
        "select count(*) from duckdb_tables()"
        " where database_name = coalesce(?, current_database())"
        " and schema_name = ? and table_name = ?",
        [database, parts[-2], parts[-1]],
    )
    return bool(row and row[0])


def _checksum(con: duckdb.DuckDBPyConnection, relation: str) -> tuple[int, str]:
    row = _one(
        con,
        f"select count(*), cast(coalesce(sum(hash(register_name, entity_name, similarity)), 0)"
        f" as varchar) from {relation}",
    )
    return int(row[0]), str(row[1])


def _why_whole(con: duckdb.DuckDBPyConnection, previous: str | None) -> str | None:
    """Why the join must run whole, or None when last week's pairs can be kept."""
    if previous is None or not _exists(con, previous):
        return "no pairs yet"
    if not all(_exists(con, table) for table in STATE):
        return "no record of what the pairs were matched from"
    row = _one(con, f"select pairs, checksum, code_hash from {BUILT}")
    if not row:
        return "no record of what the pairs were matched from"
    if row[2] != code_hash():
        return "the join's code changed"
    if (int(row[0]), str(row[1])) != _checksum(con, previous):
        return "the pairs table is not the one the record describes"
    return None


def name_similarities_week(
    con: duckdb.DuckDBPyConnection,
    register_names: duckdb.DuckDBPyRelation,
    entity_names: duckdb.DuckDBPyRelation,
    previous: str | None,
    *,
    max_share: float = MAX_SHARE,
    batch_rows: int = 131_072,
    threads: int | None = None,
) -> tuple[duckdb.DuckDBPyRelation, WeekJoin]:
    """The pairs ``name_similarities`` gives for ``register_names`` and ``entity_names``,
    reusing the pairs table ``previous`` (qualified name; it may not exist) where the record
    in ``STATE`` allows, then the record rewritten for the pairs returned."""
    registers = register_rows(register_names)
    entities = entity_rows(entity_names)
    suffix = _suffix()
    result = f"bvs_similarity_result_{suffix}"
    added = f"bvs_similarity_added_{suffix}"  # a week's entity names new since the last run
    reason = _why_whole(con, previous)
    entity_count = int(_one(con, f"select count(*) from ({entities.sql_query()})")[0])
    week: WeekJoin | None = None
    if reason is None:
        assert previous is not None
        kinds = f"bvs_similarity_register_kinds_{suffix}"
        con.execute(
            f"""
            create temp table {kinds} as
            select
                registers.name_normalised,
                registers.name_threshold,
                coalesce(last.name_threshold = registers.name_threshold, false) as is_kept
            from ({registers.sql_query()}) as registers
            left join {REGISTERS} as last
                on registers.name_normalised = last.name_normalised
            """
        )
        con.execute(
            f"""
            create temp table {added} as
            select entities.name_id, entities.name_normalised
            from ({entities.sql_query()}) as entities
            anti join {ENTITIES} as last
                on entities.name_normalised = last.name_normalised
            """
        )
        kept = con.execute(
            f"select name_normalised, name_threshold, is_kept from {kinds}"
        ).fetchall()
        changed_registers = [(n, t) for n, t, k in kept if not k]
        kept_registers = [(n, t) for n, t, k in kept if k]
        added_count = _one(con, f"select count(*) from {added}")[0]
        if len(changed_registers) > max_share * max(len(kept), 1):
            reason = f"{len(changed_registers):,} of {len(kept):,} register names changed"
        elif added_count > max_share * max(entity_count, 1):
            reason = f"{added_count:,} of {entity_count:,} entity names are new"
        else:
            parts = [
                f"""
                select previous.register_name, previous.entity_name, previous.similarity
                from {previous} as previous
                semi join {kinds} as kinds
                    on previous.register_name = kinds.name_normalised and kinds.is_kept
                semi join ({entities.sql_query()}) as entities
                    on previous.entity_name = entities.name_normalised
                """
            ]
            if changed_registers:
                relation = matched_pairs(
                    con, changed_registers, entities, batch_rows=batch_rows, threads=threads
                )
                parts.append(relation.sql_query())
            if kept_registers and added_count:
                relation = matched_pairs(
                    con, kept_registers, con.table(added), batch_rows=batch_rows, threads=threads
                )
                parts.append(relation.sql_query())
            con.execute(f"create temp table {result} as " + " union all ".join(parts))
            week = WeekJoin(
                "changes",
                f"{len(changed_registers):,} register names new or re-thresholded,"
                f" {added_count:,} entity names new",
                len(changed_registers),
                added_count,
                0,
            )
        con.execute(f"drop table {kinds}")
    if week is None:
        registers_list = [(str(n), float(t)) for n, t in registers.fetchall()]
        relation = matched_pairs(
            con, registers_list, entities, batch_rows=batch_rows, threads=threads
        )
        con.execute(f"create temp table {result} as {relation.sql_query()}")
        week = WeekJoin("whole", reason or "", len(registers_list), entity_count, 0)
    pairs, checksum = _checksum(con, result)
    week = WeekJoin(week.mode, week.reason, week.registers_matched, week.entities_matched, pairs)
    _record(con, registers, entities, week, checksum, added=added if week.mode == "changes" else None)
    con.execute(f"drop table if exists {added}")
    log.info("name similarities: %s (%s), %d pairs", week.mode, week.reason, pairs)
    return con.table(result), week


def _record(
    con: duckdb.DuckDBPyConnection,
    registers: duckdb.DuckDBPyRelation,
    entities: duckdb.DuckDBPyRelation,
    week: WeekJoin,
    checksum: str,
    *,
    added: str | None = None,
) -> None:
    """What the pairs were matched from. dbt-duckdb runs a Python model on the model's own
    cursor, so this is committed with the model's table; should the table still not be
    these pairs, the checksum no longer matches it and the next run is whole.

    After a week's join, ``added`` (the table of the entity names new since the last run)
    is given: the entity names recorded are then updated, the names gone deleted and the
    new ones inserted, rather than all written again."""
    con.execute(f"create schema if not exists {STATE_SCHEMA}")
    con.execute(
        f"create or replace table {REGISTERS} as"
        f" select name_normalised, name_threshold from ({registers.sql_query()})"
    )
    if added is None:
        con.execute(
            f"create or replace table {ENTITIES} as"
            f" select name_normalised from ({entities.sql_query()})"
        )
    else:
        con.execute(
            f"""
            delete from {ENTITIES} as last
            where not exists (
                select 1 from ({entities.sql_query()}) as entities
                where entities.name_normalised = last.name_normalised
            )
            """
        )
        con.execute(f"insert into {ENTITIES} select name_normalised from {added}")
    con.execute(
        f"""
        create or replace table {BUILT} (
            built_at timestamptz not null,
            mode varchar not null,         -- whole, or changes (only what changed matched)
            reason varchar not null,
            registers_matched bigint not null,
            entities_matched bigint not null,
            pairs bigint not null,
            checksum varchar not null,     -- sum of hash(register_name, entity_name, similarity)
            code_hash varchar not null
        )
        """
    )
    con.execute(
        f"insert into {BUILT} values (now(), ?, ?, ?, ?, ?, ?, ?)",
        [
            week.mode,
            week.reason,
            week.registers_matched,
            week.entities_matched,
            week.pairs,
            checksum,
            code_hash(),
        ],
    )
