"""The home-page search (docs/search.md): each tier's rule, the ranking, the label, the errors.

The fixture names go through the real dbt models (entities, entity_names and the search
marts) into a published serving snapshot, and ``search()`` reads that snapshot, so every
rule is checked on what a request really sees. The query "acme plumbing" meets one name
per tier:

    A  ACME PLUMBING PTY LTD            legal, exact                 T1 (exact)
    E  ZEBRA HOLDINGS PTY LTD           trading name ACME PLUMBING   T3a (exact)
    L  ACME PLUMBING LIMITED            legal, exact, cancelled      T1 (exact)
    C  ACME PLUMBING SERVICES PTY LTD   legal, prefix                T1
    B  ACME PLUMBING AUSTRALIA PTY LTD  legal, prefix, cancelled     T1
    D  NORTHERN ACME PLUMBING PTY LTD   legal, both words            T2
    F  YAK ENTERPRISES PTY LTD          business ACME PLUMBING AND GAS (and a second one)  T3a
    G  XYLO PTY LTD                     business BEST ACME PLUMBING  T3b
    TYPO ACME PLUMBNG PTY LTD           legal, a typo                T4 (0.69: close)
    H  WOMBAT PTY LTD                   trading ACME ELECTRICAL      T5
    J  UNRELATED THINGS PTY LTD         nothing
    K  ŁÓDŹ TRADING PTY LTD             a name search_code cannot order past its first letter
"""

from __future__ import annotations

import datetime as dt
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipelines.identifiers import abn_from_acn
from pipelines.matching import normalise_name, trigram_similarity
from pipelines.serving import search as search_module
from pipelines.serving.market import ServingError
from pipelines.serving.search import (
    ID_SPACING,
    MAX_QUERY_LENGTH,
    SIMILARITY_THRESHOLD,
    search,
    search_code,
)
from pipelines.warehouse.snapshot import open_snapshot
from tests.conftest import make_acn
from tests.dbt.test_dbt_build import published_snapshot

AS_OF = "2026-11-20"
D = dt.date

A, B, C, DD, E, F, G, H, TYPO, J, L, K = (abn_from_acn(make_acn(n)) for n in range(501, 513))


def _abn(abn: str, name: str, status: str = "ACT", state: str = "QLD") -> dict[str, Any]:
    return {
        "abn": abn,
        "abn_status": status,
        "abn_status_from_date": D(2010, 1, 1),
        "record_last_updated_date": D(2024, 1, 1),
        "replaced": "N",
        "entity_type_code": "PRV",
        "entity_type_text": "Australian Private Company",
        "is_individual": False,
        "entity_name": name,
        "state": state,
        "postcode": "4000",
    }


ABNS = [
    _abn(A, "ACME PLUMBING PTY LTD"),
    _abn(B, "ACME PLUMBING AUSTRALIA PTY LTD", status="CAN", state="NSW"),
    _abn(C, "ACME PLUMBING SERVICES PTY LTD"),
    _abn(DD, "NORTHERN ACME PLUMBING PTY LTD"),
    _abn(E, "ZEBRA HOLDINGS PTY LTD"),
    _abn(F, "YAK ENTERPRISES PTY LTD"),
    _abn(G, "XYLO PTY LTD"),
    _abn(H, "WOMBAT PTY LTD"),
    _abn(TYPO, "ACME PLUMBNG PTY LTD"),
    _abn(J, "UNRELATED THINGS PTY LTD"),
    _abn(L, "ACME PLUMBING LIMITED", status="CAN"),
    _abn(K, "ŁÓDŹ TRADING PTY LTD"),  # normalised ŁODZ TRADING: Ł has no ASCII base letter
]
OTHER_NAMES = [
    {"abn": E, "name_type": "TRD", "name": "ACME PLUMBING"},
    {"abn": G, "name_type": "BN", "name": "BEST ACME PLUMBING"},
    {"abn": H, "name_type": "TRD", "name": "ACME ELECTRICAL"},
]
BUSINESS_NAMES = [
    {
        "register_name": "BUSINESS NAMES",
        "bn_name": name,
        "bn_status": "Registered",
        "bn_reg_dt": D(2015, 5, 1),
        "bn_abn": F,
    }
    for name in ("ACME PLUMBING AND GAS", "ACME PLUMBING & GAS NORTH")
]


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """The names above through the real models into a published serving snapshot."""
    settings = published_snapshot(
        tmp_path_factory.mktemp("search"),
        {
            "raw.abr__abns": ABNS,
            "raw.abr__other_names": OTHER_NAMES,
            "raw.asic__business_names": BUSINESS_NAMES,
        },
        "+search_names+",
        AS_OF,
    )
    snap = open_snapshot(settings)
    yield snap
    snap.close()


def _hits(response: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return [(r["abn"], r["tier"], r["exact"]) for r in response["results"]]


def _result(response: dict[str, Any], abn: str) -> dict[str, Any]:
    (result,) = [r for r in response["results"] if r["abn"] == abn]
    return result


# --- ranking over every tier ------------------------------------------------------------------


def test_every_tier_in_rank_order(snapshot: duckdb.DuckDBPyConnection) -> None:
    """Exact whole names first (active before cancelled, legal before trading), then T1
    (active first, alphabetical), T2, T3a, T3b, T4 at 0.5 or above, T5, the rest of T4;
    one result per ABN."""
    response = search(snapshot, "acme plumbing")
    assert _hits(response) == [
        (A, "T1", True),
        (E, "T3a", True),
        (L, "T1", True),
        (C, "T1", False),  # ACME PLUMBING SERVICES, active ...
        (B, "T1", False),  # ... before ACME PLUMBING AUSTRALIA, cancelled
        (DD, "T2", False),
        (F, "T3a", False),
        (G, "T3b", False),
        (TYPO, "T4", False),  # ACME PLUMBNG, 0.69 similar: a typo, before ...
        (H, "T5", False),  # ... a business name that only starts with ACME
    ]
    assert response["count"] == 10
    assert response["query"] == "acme plumbing"
    assert response["normalised_query"] == "ACME PLUMBING"


def test_a_smaller_limit_is_the_head_of_the_ranking(snapshot: duckdb.DuckDBPyConnection) -> None:
    """Stopping after the rounds that fill the limit does not change the order."""
    full = _hits(search(snapshot, "acme plumbing", limit=100))
    for limit in (1, 2, 3, 5, 8):
        response = search(snapshot, "acme plumbing", limit=limit)
        assert _hits(response) == full[:limit]
        assert response["count"] == limit


def test_the_query_is_normalised_like_the_names(snapshot: duckdb.DuckDBPyConnection) -> None:
    assert _hits(search(snapshot, "  Acme Plumbing Pty. Ltd. ")) == _hits(
        search(snapshot, "acme plumbing")
    )


# --- one rule per tier ------------------------------------------------------------------------


def test_t1_legal_name_starts_with_the_query(snapshot: duckdb.DuckDBPyConnection) -> None:
    hits = _hits(search(snapshot, "acme plumbing s"))
    assert [h for h in hits if h[1] == "T1"] == [(C, "T1", False)]
    assert B not in [abn for abn, tier, _ in hits if tier == "T1"]  # AUSTRALIA: no


def test_t2_every_query_word_is_a_word_of_the_legal_name(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    hits = _hits(search(snapshot, "plumbing northern"))
    assert hits[0] == (DD, "T2", False)
    assert [h for h in hits if h[1] == "T2"] == [(DD, "T2", False)]
    # a word must be whole: NORTH is not NORTHERN
    assert not [h for h in _hits(search(snapshot, "plumbing north")) if h[1] == "T2"]


def test_t3a_business_name_starts_with_the_query(snapshot: duckdb.DuckDBPyConnection) -> None:
    response = search(snapshot, "acme plumbing and")
    assert _hits(response)[0] == (F, "T3a", False)
    first = response["results"][0]
    # one result for the ABN, at its best name (alphabetically first of the two)
    assert [r["abn"] for r in response["results"]].count(F) == 1
    assert first["matched_name"] == "ACME PLUMBING AND GAS"
    assert first["name_kind"] == "business_name"
    assert first["name_status"] == "Registered"


def test_t3b_every_query_word_is_a_word_of_a_business_name(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    hits = _hits(search(snapshot, "plumbing best"))
    assert hits[0] == (G, "T3b", False)
    assert [h for h in hits if h[1] in ("T2", "T3b")] == [(G, "T3b", False)]


def test_t5_business_name_starts_with_the_first_query_word(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    """ACME XYZZY: no name holds XYZZY; the business and trading names starting with the
    word ACME are T5 (active first, alphabetical), legal names are not, and no name is
    0.3 similar (ACME PLUMBING is 0.25)."""
    assert _hits(search(snapshot, "acme xyzzy")) == [
        (H, "T5", False),  # ACME ELECTRICAL
        (E, "T5", False),  # ACME PLUMBING
        (F, "T5", False),  # ACME PLUMBING AND GAS
    ]
    assert trigram_similarity("ACME XYZZY", "ACME PLUMBING") < SIMILARITY_THRESHOLD


def test_t4_trigram_similarity_at_least_0_3_most_similar_first(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    """A typo: nothing starts with ACME PLUMBIMG or holds its words. T4 is every name at
    0.3 or above, by similarity, then active before cancelled, then shorter; names at 0.5
    or above (close: typos) come before T5's business names starting with ACME, the rest
    after them. The score is pg_trgm's similarity of the normalised names."""
    response = search(snapshot, "acme plumbimg")
    assert _hits(response) == [
        (A, "T4", False),  # ACME PLUMBING 0.647, active, legal ...
        (E, "T4", False),  # ... the trading name ACME PLUMBING: its T5 hit ranks lower
        (L, "T4", False),  # ACME PLUMBING LIMITED: the same name, cancelled
        (TYPO, "T4", False),  # ACME PLUMBNG 0.588
        (G, "T4", False),  # BEST ACME PLUMBING 0.5
        (H, "T5", False),  # ACME ELECTRICAL
        (F, "T5", False),  # ACME PLUMBING AND GAS (0.458: T5 ranks before it)
        (C, "T4", False),  # ACME PLUMBING SERVICES 0.423 ...
        (DD, "T4", False),  # ... NORTHERN ACME PLUMBING, same length: by name ...
        (B, "T4", False),  # ... ACME PLUMBING AUSTRALIA, same length, cancelled
    ]
    fuzzy = [r for r in response["results"] if r["tier"] == "T4"]
    for result in fuzzy:
        key = normalise_name(result["matched_name"]) or ""
        assert result["score"] == round(trigram_similarity("ACME PLUMBIMG", key), 4)
        assert result["score"] >= SIMILARITY_THRESHOLD
    assert [r["score"] for r in fuzzy] == sorted((r["score"] for r in fuzzy), reverse=True)
    assert J not in [r["abn"] for r in response["results"]]


# --- the result -------------------------------------------------------------------------------


def test_a_trading_name_match_is_the_label_with_the_legal_name_beneath(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    response = search(snapshot, "acme plumbing")
    trading = _result(response, E)
    assert trading["label"] == "ACME PLUMBING"
    assert trading["matched_name"] == "ACME PLUMBING"
    assert trading["legal_name"] == "ZEBRA HOLDINGS PTY LTD"
    assert trading["name_kind"] == "trading"
    legal = _result(response, A)
    assert legal["label"] == legal["legal_name"] == legal["matched_name"] == "ACME PLUMBING PTY LTD"
    assert legal["name_kind"] == "legal"


def test_result_members(snapshot: duckdb.DuckDBPyConnection) -> None:
    response = search(snapshot, "acme plumbing")
    cancelled = _result(response, B)
    assert cancelled == {
        "abn": B,
        "label": "ACME PLUMBING AUSTRALIA PTY LTD",
        "legal_name": "ACME PLUMBING AUSTRALIA PTY LTD",
        "matched_name": "ACME PLUMBING AUSTRALIA PTY LTD",
        "name_kind": "legal",
        "name_status": None,
        "tier": "T1",
        "exact": False,
        "score": round(trigram_similarity("ACME PLUMBING", "ACME PLUMBING AUSTRALIA"), 4),
        "abn_status": "CAN",
        "active": False,
        "state": "NSW",
        "postcode": "4000",
    }
    assert _result(response, A)["score"] == 1.0


def test_names_beyond_ascii_are_found_by_prefix_and_words(
    snapshot: duckdb.DuckDBPyConnection,
) -> None:
    """ŁODZ: its code stops at Ł (any non-ASCII letter), so the lookup compares the text."""
    assert _hits(search(snapshot, "Łódź"))[0] == (K, "T1", False)
    assert _hits(search(snapshot, "łodz trading"))[0] == (K, "T1", True)
    assert _hits(search(snapshot, "trading łodz"))[0] == (K, "T2", False)
    assert not [h for h in _hits(search(snapshot, "Ødz")) if h[0] == K and h[1] == "T1"]


def test_nothing_found_is_an_empty_list(snapshot: duckdb.DuckDBPyConnection) -> None:
    assert search(snapshot, "qqqq zzzz") == {
        "query": "qqqq zzzz",
        "normalised_query": "QQQQ ZZZZ",
        "count": 0,
        "results": [],
    }


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "limit", "message"),
    [
        pytest.param("", 20, "empty", id="empty query"),
        pytest.param("   ", 20, "empty", id="blank query"),
        pytest.param("a" * (MAX_QUERY_LENGTH + 1), 20, "longer than 200", id="over 200 chars"),
        pytest.param("---", 20, "no letters or digits", id="nothing to search for"),
        pytest.param("acme", 0, "limit", id="limit 0"),
        pytest.param("acme", 101, "limit", id="limit 101"),
        pytest.param("acme", True, "limit", id="limit not a number"),
    ],
)
def test_bad_requests_are_400(
    snapshot: duckdb.DuckDBPyConnection, query: str, limit: Any, message: str
) -> None:
    with pytest.raises(ServingError, match=message) as caught:
        search(snapshot, query, limit=limit)
    assert caught.value.status == 400


def test_200_characters_and_limit_100_are_allowed(snapshot: duckdb.DuckDBPyConnection) -> None:
    assert search(snapshot, "a" * MAX_QUERY_LENGTH, limit=100)["count"] == 0
    assert search(snapshot, "acme", limit=100)["count"] == 10


# --- the index --------------------------------------------------------------------------------


def test_search_code_is_the_sql_macro(snapshot: duckdb.DuckDBPyConnection) -> None:
    for text, code in snapshot.execute(
        "select search_key, key_code from marts.search_names"
        " union all select word, word_code from marts.search_word_frequencies"
    ).fetchall():
        assert search_code(text) == code, text


def test_search_code_keeps_the_order_of_names() -> None:
    """s <= t in binary string order implies code(s) <= code(t), on normalised names
    (upper-case letters, digits, single spaces) with non-ASCII letters among them."""
    rnd = random.Random(3)
    alphabet = "AB Z09ÉŁ"
    texts = {
        " ".join(
            "".join(rnd.choice(alphabet.replace(" ", "")) for _ in range(rnd.randint(1, 7)))
            for _ in range(rnd.randint(1, 3))
        )
        for _ in range(3000)
    }
    ordered = sorted(texts, key=lambda s: s.encode())
    codes = [search_code(s) for s in ordered]
    assert codes == sorted(codes)
    assert search_code("ACME") < search_code("ACME ") < search_code("ACME0") < search_code("ACMEA")


def test_the_snapshot_keeps_the_index_order(snapshot: duckdb.DuckDBPyConnection) -> None:
    """A snapshot written afresh stores the index in name_id / posting_id order, so zone
    maps prune a lookup's range to a row group or two (DuckDB: rowid is the storage
    position), and a whole build spaces the ids ID_SPACING apart (the dbt macro
    search_id_spacing)."""
    for table, column in (("search_names", "name_id"), ("search_words", "posting_id")):
        (misplaced,) = snapshot.execute(
            f"select count(*) from (select {column}, row_number() over (order by rowid) as n"
            f" from marts.{table}) where {column} <> n * {ID_SPACING}"
        ).fetchall()[0]
        assert misplaced == 0, table


def test_t4_reads_the_sorted_copy_and_the_run_after_it_in_id_order(
    snapshot: duckdb.DuckDBPyConnection,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A snapshot updated in place holds each index table as its sorted copy and one run
    sorted by id after it (``meta.snapshot_tables.sorted_rows``: the rowid where the run
    begins; pipelines/warehouse/snapshot/update.py). T4 reads each source's first rows of
    both, and answers as from the same rows sorted. Here the run holds every other row by
    id, and the budgets are cut to two rows a source, so reading the storage order alone
    would answer otherwise."""
    (path,) = snapshot.execute(
        "select path from duckdb_databases() where database_name = current_database()"
    ).fetchone()
    moved = tmp_path / "updated.duckdb"
    shutil.copyfile(path, moved)
    with duckdb.connect(str(moved)) as con:
        con.execute("set max_vacuum_tasks = 0")  # as the publish: rowids stay where they are
        for table, column in (("search_names", "name_id"), ("search_words", "posting_id")):
            (rows,) = con.execute(f"select count(*) from marts.{table}").fetchone()
            assert con.execute(
                "select sorted_rows from meta.snapshot_tables where table_name = ?",
                [f"marts.{table}"],
            ).fetchone() == (rows,)
            # every other row by id moves to the run: each word's first two are in either
            con.execute(
                f"create temp table moved as select * from marts.{table}"
                f" qualify row_number() over (order by {column}) % 2 = 0"
            )
            con.execute(f"delete from marts.{table} where {column} in (select {column} from moved)")
            con.execute(f"insert into marts.{table} select * from moved order by {column}")
            con.execute("drop table moved")
            (descents, after) = con.execute(
                f"select count(*) filter (where step <= 0), count(*) filter (where rowid >= ?)"
                f" from (select rowid, {column} - lag({column}) over (order by rowid) as step"
                f" from marts.{table})",
                [rows],
            ).fetchone()
            assert (descents, after > 0) == (1, True), table
    monkeypatch.setattr(search_module, "FUZZY_POSTINGS", 2)
    monkeypatch.setattr(search_module, "FUZZY_PREFIX_ROWS", 2)
    queries = ["acme plumbimg", "acme plumbin servces", "plumbing acmee", "zebra holdngs", "acm"]
    with duckdb.connect(str(moved), read_only=True) as runs:
        for query in queries:
            assert search(runs, query) == search(snapshot, query), query
    assert any(r["tier"] == "T4" for q in queries for r in search(snapshot, q)["results"])
