"""The similarity join finds exactly the pairs a brute-force comparison finds, in C and in
its Python twin, and its trigrams are pg_trgm's (the Python reference's) on normalised names."""

from __future__ import annotations

import random

import duckdb
import pyarrow as pa
import pytest
from pipelines.matching._trgmjoin import trigram_keys  # built by setup.py; CI must have it

from pipelines.matching import trigram_similarity, trigrams
from pipelines.matching.similarity import (
    SimilarityIndex,
    _key,
    _trigram_set,
    name_similarities,
    similarity_join,
)

THRESHOLDS = (0.55, 0.6, 0.65, 0.7, 0.72, 0.75, 0.8, 1.0)
WORDS = (
    "SMITH", "SMYTHE", "JONES", "FAMILY", "TRUST", "HOLDINGS", "HOLDING", "BUILDING",
    "SERVICES", "A", "B", "J", "NGUYEN", "NGUYENS", "AU", "7", "11", "ΣΟΦΙΑ", "ÉCOLE", "李明",
)  # fmt: skip


def _names(rnd: random.Random, count: int) -> list[str]:
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 4))) for _ in range(count)]


def _brute(registers, thresholds, entities) -> set[tuple[int, int]]:
    def similarity(a: str, b: str) -> float:
        x, y = _trigram_set(a), _trigram_set(b)
        common = len(x & y)
        return common / (len(x) + len(y) - common) if x and y else 0.0

    return {
        (i, j)
        for i, (r, t) in enumerate(zip(registers, thresholds, strict=True))
        for j, e in enumerate(entities)
        if round(similarity(r, e), 6) >= t
    }


def _found(index: SimilarityIndex, entities, thresholds, first: int = 0) -> set[tuple[int, int]]:
    pairs = index.probe(entities)
    return {
        (r, first + w)
        for r, w, s in zip(
            pairs.register_index.to_pylist(),
            pairs.row.to_pylist(),
            pairs.similarity.to_pylist(),
            strict=True,
        )  # fmt: skip
        if round(s, 6) >= thresholds[r]
    }


@pytest.fixture(scope="module")
def world() -> dict:
    rnd = random.Random(11)
    registers = sorted(set(_names(rnd, 400)))
    thresholds = [rnd.choice(THRESHOLDS) for _ in registers]
    entities = [*_names(rnd, 2500), "", "X", "ZZZZ QQQQ"]
    return {
        "registers": registers,
        "thresholds": thresholds,
        "entities": entities,
        "brute": _brute(registers, thresholds, entities),
    }


def test_the_world_has_pairs_exactly_at_the_threshold(world: dict) -> None:
    """Without pairs at the boundary the tests below could not catch a prefix cut too short."""
    at = [
        (i, j)
        for i, j in world["brute"]
        if round(
            len(_trigram_set(world["registers"][i]) & _trigram_set(world["entities"][j]))
            / len(_trigram_set(world["registers"][i]) | _trigram_set(world["entities"][j])),
            6,
        )
        == world["thresholds"][i]
    ]
    assert len(world["brute"]) > 1000 and len(at) > 20


@pytest.mark.parametrize("use_c", [True, False], ids=["c", "python"])
def test_join_finds_exactly_the_brute_force_pairs(world: dict, use_c: bool) -> None:
    index = SimilarityIndex(world["registers"], world["thresholds"], use_c=use_c)
    found = _found(index, pa.array(world["entities"]), world["thresholds"])
    assert found == world["brute"]


@pytest.mark.parametrize("use_c", [True, False], ids=["c", "python"])
def test_similarities_are_the_pg_trgm_values(world: dict, use_c: bool) -> None:
    index = SimilarityIndex(world["registers"], world["thresholds"], use_c=use_c)
    pairs = index.probe(pa.array(world["entities"]))
    ascii_pairs = 0
    for r, w, s in zip(
        pairs.register_index.to_pylist(), pairs.row.to_pylist(), pairs.similarity.to_pylist(),
        strict=True,
    ):  # fmt: skip
        a, b = world["registers"][r], world["entities"][w]
        if a.isascii() and b.isascii():
            assert s == pytest.approx(trigram_similarity(a, b), abs=1e-12)
            ascii_pairs += 1
    assert ascii_pairs > 500


def test_a_slice_a_large_string_array_and_nulls_are_read_as_given(world: dict) -> None:
    index = SimilarityIndex(world["registers"], world["thresholds"])
    names = pa.array(world["entities"])
    part = _found(index, names.slice(1000, 500), world["thresholds"], first=1000)
    assert part == {(i, j) for i, j in world["brute"] if 1000 <= j < 1500}
    wide = _found(index, names.cast(pa.large_string()), world["thresholds"])
    assert wide == world["brute"]
    with_null = pa.array([None, *world["entities"][:100]])
    shifted = _found(index, with_null, world["thresholds"], first=-1)
    assert shifted == {(i, j) for i, j in world["brute"] if j < 100}


def test_a_pair_just_above_the_threshold_is_found_and_one_below_is_not() -> None:
    """ABCD at 0.55: ABCDX shares 4 trigrams of the 7 of both (0.571), among them the ones
    other register names hold too; XBCD shares 2 of 8 (0.25)."""
    registers = ["ABCD", "BCDE", "BCDF", "BCDG", "ABC"]
    thresholds = [0.55, 0.8, 0.8, 0.8, 0.8]
    index = SimilarityIndex(registers, thresholds)
    found = _found(index, pa.array(["ABCDX", "XBCD"]), thresholds)
    assert (0, 0) in found and (0, 1) not in found
    assert round(trigram_similarity("ABCD", "ABCDX"), 6) == 0.571429


def test_c_trigram_keys_are_the_python_twins_and_pg_trgm_on_normalised_names() -> None:
    for name in ["SMITH AND SONS", "A B", "7 ELEVEN", "ΣΟΦΙΑ ÉCOLE", "李明 AU", "", "X"]:
        assert trigram_keys(name) == sorted(_key(t) for t in _trigram_set(name))
        if name.isascii():
            assert _trigram_set(name) == trigrams(name)


def test_bad_thresholds_and_lengths_are_refused() -> None:
    for use_c in (True, False):
        with pytest.raises(ValueError, match="not in"):
            SimilarityIndex(["A"], [0.0], use_c=use_c)
        with pytest.raises(ValueError, match="not in"):
            SimilarityIndex(["A"], [1.5], use_c=use_c)
        with pytest.raises(ValueError, match="same length"):
            SimilarityIndex(["A", "B"], [0.8], use_c=use_c)


def test_similarity_join_maps_rows_to_keys_across_batches_and_threads(world: dict) -> None:
    index = SimilarityIndex(world["registers"], world["thresholds"])
    keys = [10_000 + j for j in range(len(world["entities"]))]
    table = pa.table({"name_id": keys, "name_normalised": world["entities"]})
    out = pa.Table.from_batches(
        list(similarity_join(index, table.to_batches(max_chunksize=97), threads=2))
    )
    found = {
        (r, k - 10_000)
        for r, k, s in zip(
            out["register_index"].to_pylist(),
            out["name_id"].to_pylist(),
            out["similarity"].to_pylist(),
            strict=True,
        )  # fmt: skip
        if round(s, 6) >= world["thresholds"][r]
    }
    assert found == world["brute"]


def test_name_similarities_joins_two_duckdb_relations(world: dict) -> None:
    con = duckdb.connect()
    con.execute(
        "create table registers as select * from (select unnest(?) as name_normalised,"
        " unnest(?) as name_threshold)",
        [world["registers"], world["thresholds"]],
    )
    con.execute(
        "create table entities as select row_number() over () as name_id, name_normalised"
        " from (select distinct unnest(?) as name_normalised)",
        [world["entities"]],
    )
    result = name_similarities(
        con, con.table("registers"), con.table("entities"), batch_rows=300, threads=2
    ).fetchall()
    brute = {(world["registers"][i], world["entities"][j]) for i, j in world["brute"]}
    assert {(r, e) for r, e, _ in result} == brute
    assert len(result) == len(brute)


@pytest.mark.parametrize("use_c", [True, False], ids=["c", "python"])
def test_no_register_names_or_no_entity_names_give_no_pairs(use_c: bool) -> None:
    assert len(SimilarityIndex([], [], use_c=use_c).probe(pa.array(["A", ""])).row) == 0
    empty = SimilarityIndex(["A"], [0.8], use_c=use_c).probe(pa.array([], pa.string()))
    assert len(empty.row) == 0
    one = SimilarityIndex(["A"], [0.8], use_c=use_c).probe(pa.array(["A"]))
    assert one.row.to_pylist() == [0] and one.similarity.to_pylist() == [1.0]
