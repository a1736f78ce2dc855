"""Supplier names resolved for a whole file at once against the snapshot's name index
(pipelines/ledgers/resolve.py): exactly one ABN at least 0.9 similar resolves a row; two or
more, or none, leave it for review with the closest ABNs (at least 0.5) as candidates."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipelines.ledgers.resolve import MAX_CANDIDATES, resolve_name, resolve_names
from pipelines.matching import normalise_name
from pipelines.matching.trigram import trigram_similarity

# (abn, name, legal name, status, state): several names an ABN, namesakes, decoys
NAMES = [
    ("53004085616", "Harbour Plumbing Pty Ltd", "HARBOUR PLUMBING PTY LTD", "ACT", "NSW"),
    ("53004085616", "Harbour Plumbing & Gas", "HARBOUR PLUMBING PTY LTD", "ACT", "NSW"),
    ("51824753556", "Twice Trading Pty Ltd", "TWICE TRADING PTY LTD", "ACT", "VIC"),
    ("33051775556", "Twice Trading Limited", "TWICE TRADING LIMITED", "CAN", "QLD"),
    ("12004044937", "Coastal Cleaning Services", "J & M CITIZEN", "ACT", "WA"),
    ("49004028077", "Coastal Cleaning Group", "COASTAL CLEANING GROUP PTY LTD", "ACT", "SA"),
]
# many ABNs close to one name, none of them close enough to resolve it
CROWD = [
    (f"{10_000_000_000 + i:011d}", f"Northern Freight Lines {word}", f"NFL {i}", "ACT", "NT")
    for i, word in enumerate(
        ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India"]
    )
]


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A serving snapshot's name index (`marts.search_names`, the columns resolution reads),
    ordered and numbered as the model does."""
    path = tmp_path_factory.mktemp("resolve") / "snapshot.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    rows = sorted(
        (normalise_name(name), abn, name, legal, status, state)
        for abn, name, legal, status, state in NAMES + CROWD
    )
    con.execute(
        "create table marts.search_names (name_id bigint, search_key varchar, abn_id bigint,"
        " abn varchar, name varchar, legal_name varchar, abn_status varchar, state varchar)"
    )
    con.executemany(
        "insert into marts.search_names values (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (i + 1, key, int(abn), abn, name, legal, status, state)
            for i, (key, abn, name, legal, status, state) in enumerate(rows)
        ],
    )
    con.close()
    return path


@pytest.fixture()
def con(snapshot: Path) -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect(str(snapshot), read_only=True)
    yield connection
    connection.close()


def test_exactly_one_abn_at_least_90_percent_similar_resolves_the_name(con) -> None:
    found = resolve_name(con, "HARBOUR PLUMBING PTY LIMITED")
    assert found.abn == "53004085616" and found.matches == 1 and found.reason is None
    # the ABN once, by its most similar name
    assert [(c["abn"], c["name"], c["score"]) for c in found.candidates] == [
        ("53004085616", "Harbour Plumbing Pty Ltd", 1.0)
    ]
    assert found.candidates[0] | {"score": 0} == {
        "abn": "53004085616", "name": "Harbour Plumbing Pty Ltd",
        "legal_name": "HARBOUR PLUMBING PTY LTD", "abn_status": "ACT", "state": "NSW",
        "score": 0,
    }  # fmt: skip


def test_two_abns_at_least_90_percent_similar_leave_the_name_for_review(con) -> None:
    found = resolve_name(con, "Twice Trading")
    assert found.abn is None and found.matches == 2
    assert sorted(c["abn"] for c in found.candidates) == ["33051775556", "51824753556"]
    assert "2 registered businesses" in (found.reason or "")


def test_no_close_name_lists_the_closest_at_least_half_similar_best_first(con) -> None:
    found = resolve_name(con, "Coastal Cleaning")
    assert found.abn is None and found.matches == 0
    scores = [c["score"] for c in found.candidates]
    assert found.candidates and all(0.5 <= s < 0.9 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert {c["abn"] for c in found.candidates} == {"12004044937", "49004028077"}


def test_candidates_are_capped_and_scored_as_pg_trgm_after_normalisation(con) -> None:
    found = resolve_name(con, "Northern Freight Lines")
    assert found.abn is None and found.matches == 0
    assert len(found.candidates) == MAX_CANDIDATES < len(CROWD)
    key = normalise_name("Northern Freight Lines")
    for candidate in found.candidates:
        expected = trigram_similarity(key, normalise_name(candidate["name"]))
        assert candidate["score"] == pytest.approx(expected, abs=1e-6)


def test_a_name_with_no_similar_name_or_no_letters_finds_nothing(con) -> None:
    found = resolve_names(con, ["Zebra Quokka Holdings", "Pty Ltd", "Zebra Quokka Holdings"])
    assert list(found) == ["Zebra Quokka Holdings", "Pty Ltd"]  # each distinct name once
    for resolution in found.values():
        assert resolution.abn is None and resolution.matches == 0 and resolution.candidates == []


def test_a_whole_file_of_names_gives_what_each_name_alone_gives(con) -> None:
    names = [name for _, name, *_ in NAMES + CROWD] + ["Twice Trading", "Coastal Cleaning"]
    together = resolve_names(con, names)
    assert together == {name: resolve_name(con, name) for name in names}
