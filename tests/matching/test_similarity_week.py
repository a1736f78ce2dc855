"""A week's similarity join matches only the names that changed since the last run, and its
pairs are exactly the whole join's on the same names (pipelines/matching/similarity_week.py).

Each test plays the model: the join's result becomes the pairs table (as dbt-duckdb writes
it), and the next "week" changes the register names and entity names."""

from __future__ import annotations

import random

import duckdb
import pytest

from pipelines.matching.similarity import name_similarities
from pipelines.matching.similarity_week import BUILT, ENTITIES, WeekJoin, name_similarities_week
from tests.matching.test_similarity import THRESHOLDS, _names

PAIRS = "main.pairs"


def _load(con: duckdb.DuckDBPyConnection, registers: dict[str, float], entities: list[str]):
    """The week's inputs, entity names numbered afresh in name order: the join keys the
    names by id within a run only, so a week's ids need not be last week's."""
    con.execute(
        "create or replace table registers (name_normalised varchar, name_threshold double)"
    )
    con.executemany("insert into registers values (?, ?)", sorted(registers.items()))
    con.execute("create or replace table entity_names (name_normalised varchar)")
    con.executemany("insert into entity_names values (?)", [(e,) for e in entities])
    con.execute(
        "create or replace table entities as select row_number() over (order by name_normalised)"
        " as name_id, name_normalised from (select distinct name_normalised from entity_names)"
    )


def _week(con: duckdb.DuckDBPyConnection, **kwargs) -> tuple[WeekJoin, set[tuple]]:
    """One run of the model: the join, then its result written as the pairs table."""
    result, week = name_similarities_week(
        con, con.table("registers"), con.table("entities"), PAIRS, batch_rows=97, **kwargs
    )
    con.execute(f"create or replace table {PAIRS} as select * from ({result.sql_query()})")
    return week, set(con.execute(f"select * from {PAIRS}").fetchall())


def _next_week(weeks: dict) -> tuple[duckdb.DuckDBPyConnection, WeekJoin, set[tuple]]:
    """A first week's run, then the next week's on its changed names."""
    con = duckdb.connect()
    _load(con, weeks["registers"], weeks["entities"])
    _week(con)
    _load(con, weeks["next_registers"], weeks["next_entities"])
    return con, *_week(con)


def _whole(con: duckdb.DuckDBPyConnection) -> set[tuple]:
    relation = name_similarities(con, con.table("registers"), con.table("entities"), batch_rows=97)
    return set(relation.fetchall())


@pytest.fixture
def weeks() -> dict:
    """A first week's names and a next week's: register names gone, re-thresholded and new,
    entity names gone and new (some of them matching register names that did not change)."""
    rnd = random.Random(23)
    names = sorted(set(_names(rnd, 300)))
    registers = {n: rnd.choice(THRESHOLDS) for n in names}
    entities = sorted(set(_names(rnd, 1500)) - set(names)) + ["", "X"]
    next_registers = dict(registers)
    for name in names[::17]:
        del next_registers[name]
    for name in names[5::19]:
        if name in next_registers:
            next_registers[name] = 0.5 if registers[name] != 0.5 else 0.9
    for name in sorted(set(_names(rnd, 40)) - set(names)):
        next_registers[name] = rnd.choice(THRESHOLDS)
    kept = [n for n in names if n in next_registers and next_registers[n] == registers[n]]
    next_entities = [e for i, e in enumerate(entities) if i % 13]
    next_entities += sorted(set(_names(rnd, 200)) - set(entities)) + kept[:10]
    return {
        "registers": registers,
        "entities": entities,
        "next_registers": next_registers,
        "next_entities": next_entities,
        "kept": kept,
    }


def test_the_first_run_is_whole_and_a_run_on_the_same_names_matches_nothing(weeks: dict) -> None:
    con = duckdb.connect()
    _load(con, weeks["registers"], weeks["entities"])
    first, pairs = _week(con)
    assert (first.mode, first.reason) == ("whole", "no pairs yet")
    assert pairs == _whole(con) and pairs
    again, same = _week(con)
    assert (again.mode, again.registers_matched, again.entities_matched) == ("changes", 0, 0)
    assert same == pairs


def test_a_week_of_changed_names_gives_the_whole_joins_pairs(weeks: dict) -> None:
    con, week, pairs = _next_week(weeks)
    assert week.mode == "changes", week.reason
    new_registers = {n for n in weeks["next_registers"] if n not in weeks["registers"]}
    changed = {n for n in weeks["next_registers"] if n not in weeks["kept"]}
    assert week.registers_matched == len(changed) > len(new_registers) > 0
    assert week.entities_matched == len(set(weeks["next_entities"]) - set(weeks["entities"])) > 0
    whole = _whole(con)
    assert pairs == whole
    assert week.pairs == len(whole)
    # the week had pairs of each kind to find: a kept register name with a new entity name,
    # a changed register name with an old one, and pairs of the names that went are gone
    new_entities = set(weeks["next_entities"]) - set(weeks["entities"])
    assert any(r in weeks["kept"] and e in new_entities for r, e, _ in whole)
    assert any(r in changed and e not in new_entities for r, e, _ in whole)


def test_a_weeks_record_of_entity_names_is_the_weeks_names(weeks: dict) -> None:
    """After a week's join the recorded entity names are updated, not written again: the
    names gone deleted and the new ones inserted give the week's names, so the week after
    finds as new exactly the names it adds (one that went and came back among them)."""
    con, week, _ = _next_week(weeks)
    assert week.mode == "changes", week.reason
    recorded = con.execute(f"select name_normalised from {ENTITIES}").fetchall()
    assert sorted(n for (n,) in recorded) == sorted(set(weeks["next_entities"]))

    gone = [e for i, e in enumerate(weeks["entities"]) if not i % 13][:5]
    _load(con, weeks["next_registers"], [*weeks["next_entities"], *gone])
    third, pairs = _week(con)
    assert (third.mode, third.entities_matched) == ("changes", len(set(gone)))
    assert pairs == _whole(con)


def test_a_pairs_table_the_record_does_not_describe_is_built_whole(weeks: dict) -> None:
    con = duckdb.connect()
    _load(con, weeks["registers"], weeks["entities"])
    _week(con)
    # as if the model's table had not been replaced after the record was written
    con.execute(f"delete from {PAIRS} where rowid = 0")
    _load(con, weeks["next_registers"], weeks["next_entities"])
    week, pairs = _week(con)
    assert (week.mode, week.reason) == (
        "whole",
        "the pairs table is not the one the record describes",
    )
    assert pairs == _whole(con)


def test_a_change_of_the_joins_code_or_a_dropped_record_builds_whole(weeks: dict) -> None:
    con = duckdb.connect()
    _load(con, weeks["registers"], weeks["entities"])
    _week(con)
    con.execute(f"update {BUILT} set code_hash = 'another'")
    assert _week(con)[0].reason == "the join's code changed"
    con.execute(f"drop table {BUILT}")  # what --full-refresh does first (the model's pre-hook)
    assert _week(con)[0].reason == "no record of what the pairs were matched from"
    assert _week(con)[0].mode == "changes"


def test_more_than_the_share_of_new_names_builds_whole(weeks: dict) -> None:
    con = duckdb.connect()
    _load(con, weeks["registers"], weeks["entities"])
    _week(con)
    _load(con, weeks["next_registers"], weeks["next_entities"])
    week, pairs = _week(con, max_share=0.05)
    assert week.mode == "whole"
    assert week.reason.endswith("register names changed")
    assert pairs == _whole(con)
