"""The home-page search (docs/search.md): legal, business and trading names, five tiers.

``search(con, query, limit=20)`` reads the search marts of the serving snapshot
(``dbt_project/models/marts/search/``) and answers::

    {"query": ..., "normalised_query": ..., "count": n, "results": [
        {"abn", "label", "legal_name", "matched_name", "name_kind", "name_status",
         "tier", "exact", "score", "abn_status", "active", "state", "postcode"}, ...]}

The query is normalised like the names (``pipelines.matching.normalise_name``: case,
accents, punctuation, `&`, trustee prefixes and legal forms at the end), then:

=====  ==========================================================  =========================
tier   rule                                                        read from
=====  ==========================================================  =========================
T1     the registered entity (legal) name starts with the query    search_names, key range
T2     every query word is a word of the legal name                search_words, rarest word
T3a    a business / trading name starts with the query             search_names, key range
T3b    every query word is a word of a business / trading name     search_words, rarest word
T5     a business / trading name starts with the first query word  search_names, key range
T4     pg_trgm similarity of the names at least 0.3                search_words, search_names
=====  ==========================================================  =========================

"Business / trading name" is every name of an ABN other than its legal name: business names
(ABR and the ASIC register), trading, other and DGR names (``name_kind`` says which). A
name equal to the whole query (an exact match, legal or not) comes first of all; it is
reported under T1 or T3a with ``exact: true``.

Ranking: exact matches, then T1, T2, T3a, T3b, the T4 names at least 0.5 similar (typos),
T5, the rest of T4: a legal name before a business name, a name that starts with the query
before one that only holds its words, a close misspelling before a name that merely starts
with the query's first word, weak similarity last. Within a tier active ABNs come first;
then the prefix tiers (T1, T3a, T5) list names alphabetically (a name before its longer
variants), the word tiers (T2, T3b) shorter names first, and T4 by similarity, highest
first. The name's place in the index (name, ABN) breaks ties. Each ABN appears once, at its
best hit; its label is the matched name when a business or trading name matched (the legal
name is then in ``legal_name``, to be shown beneath it), else the legal name.

Speed (docs/search.md): each tier is one or two lookups on tables stored in the order the
tier reads them, filtered on integers (``search_code``: the first 11 characters of a name
or word as an order-preserving number), so DuckDB's zone maps prune a lookup to a row group
or two and ``order by <the table's order> limit n`` stops after n rows. The first pass
collects only row ids, ABNs and ranks; the result columns are read once, at the end, for
the rows that make the answer. Tiers run in rank order in three rounds (exact and T1; T2,
T3a, T3b and T5; T4), and a round runs only while it can still change the answer: while
fewer than ``limit`` ABNs are found, or (T4) while a T5 hit is among them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from pipelines.matching import normalise_name, trigram_similarity, trigrams
from pipelines.serving.market import ServingError

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_QUERY_LENGTH = 200
SIMILARITY_THRESHOLD = 0.3  # pg_trgm's default similarity_threshold; "at least"
# A T4 name at least this similar (a typo) ranks before T5's first-word matches, which
# are a weak hint; the rest of T4 ranks last.
CLOSE_SIMILARITY = 0.5
# The rank order; "T4 close" is reported as T4.
TIER_ORDER = ("exact", "T1", "T2", "T3a", "T3b", "T4 close", "T5", "T4")

# T4 computes the similarity of at most FUZZY_POSTINGS names holding a query word (rarest
# words first) and FUZZY_PREFIX_ROWS names starting like the query (see _fuzzy).
FUZZY_POSTINGS = 10_000
FUZZY_PREFIX_ROWS = 5_000

# search_code: the first CODE_CHARS characters, one base-CODE_BASE digit each (the dbt
# macro bvs.search_code writes the same numbers).
CODE_CHARS = 11
CODE_BASE = 39
_OTHER = 38  # any character but space, 0-9, A-Z

# A prefix at least this long is looked up once, ordered by status (few names have it);
# a shorter one twice, active and cancelled, each stopping after `limit` rows.
SHORT_PREFIX = 5

# name_id and posting_id follow the tables' order, ID_SPACING apart in a whole build (the
# dbt macro bvs.search_id_spacing); a week's new rows take ids between their neighbours'.
ID_SPACING = 1 << 20

# Ids closer than this are read by one range lookup (they usually share a row group).
CLUSTER_GAP = 20_000 * ID_SPACING

_CLOSE = TIER_ORDER.index("T4 close")

# Above every character of a normalised name: `key < prefix || _TOP` closes a prefix
# range in DuckDB's binary (UTF-8 byte) string order.
_TOP = "\U0010ffff"

# Read for every result (a fixed list, formatted into SQL).
_RESULT_COLUMNS = (
    "abn_id, name, name_kind, is_legal_name, bn_status, legal_name, abn_status, is_active,"
    " state, postcode"
)


def search_code(text: str) -> int:
    """The order-preserving integer of the first 11 characters (twin of the dbt macro
    bvs.search_code): one base-39 digit per character, 0 past the end; a character other
    than space, 0-9 or A-Z is 38 and ends the code."""
    code = 0
    ended = False
    for i in range(CODE_CHARS):
        digit = 0 if ended or i >= len(text) else _code_digit(text[i])
        ended = ended or digit == _OTHER
        code = code * CODE_BASE + digit
    return code


def _code_digit(character: str) -> int:
    if character == " ":
        return 1
    if "0" <= character <= "9":
        return ord(character) - 46
    if "A" <= character <= "Z":
        return ord(character) - 53
    return _OTHER


@dataclass
class _Hit:
    rank: tuple[Any, ...]
    tier: str
    table: str  # search_names (row_id = name_id) or search_words (row_id = posting_id)
    row_id: int
    abn_id: int
    row: dict[str, Any] | None = field(default=None)


@dataclass(frozen=True)
class _Lookup:
    """One `select ... order by ... limit ?` of a round (the limit is its last parameter)."""

    tier: str
    table: str
    where: str
    params: tuple[Any, ...]
    order: str
    limit: int


def search(
    con: duckdb.DuckDBPyConnection, query: str, *, limit: int = DEFAULT_LIMIT
) -> dict[str, Any]:
    """Search the snapshot's names (docs/search.md); the response shape is in the module docs."""
    text, key, limit = _validate(query, limit)
    words = list(dict.fromkeys(key.split(" ")))
    found: dict[int, _Hit] = {}

    # A private cursor: DuckDB's late materialisation (re-reading a LIMIT's rows by row id)
    # scans whole row groups of every column, several times slower for these lookups.
    cur = con.cursor()
    try:
        cur.execute("set late_materialization_max_rows = 0")
        # Round 1: exact matches and T1.
        _merge(found, _run(cur, _exact_and_t1(key, limit), limit))
        counts: dict[str, tuple[int, int]] = {}
        if len(found) < limit:
            # Round 2: T2, T3a, T3b and T5.
            counts = _word_counts(cur, words)
            lookups = _t3a_and_t5(key, words, limit) + _word_tiers(words, counts, limit)
            _merge(found, _run(cur, lookups, limit))
        # Round 3: T4, when fewer than `limit` ABNs are found or a T5 hit is among them
        # (a close T4 hit would rank before it).
        best = sorted(found.values(), key=lambda hit: hit.rank)[:limit]
        if len(best) < limit or best[-1].tier == "T5":
            above = {hit.abn_id for hit in best if hit.rank[0] < _CLOSE}
            _merge(found, _fuzzy(cur, key, counts, limit - len(above), above))
        best = sorted(found.values(), key=lambda hit: hit.rank)[:limit]
        _read_rows(cur, [hit for hit in best if hit.row is None])
    finally:
        cur.close()
    results = [_result(hit, key) for hit in best]
    return {"query": text, "normalised_query": key, "count": len(results), "results": results}


def _validate(query: Any, limit: Any) -> tuple[str, str, int]:
    if not isinstance(query, str) or not query.strip():
        raise ServingError("the search query is empty")
    text = query.strip()
    if len(text) > MAX_QUERY_LENGTH:
        raise ServingError(f"the search query is longer than {MAX_QUERY_LENGTH} characters")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ServingError(f"limit must be between 1 and {MAX_LIMIT}")
    key = normalise_name(text)
    if key is None:
        raise ServingError("the search query has no letters or digits")
    return text, key, limit


# ---------------------------------------------------------------------------- key ranges


def _code_is_exact(text: str) -> bool:
    """Whether codes alone decide a prefix of `text` (no other character, at most 11)."""
    return len(text) <= CODE_CHARS and all(_code_digit(c) != _OTHER for c in text)


def _starts_with(prefix: str) -> tuple[str, list[Any]]:
    """A filter for search_key starting with `prefix`: a key_code range, and the text
    itself where the code cannot tell."""
    head = prefix[:CODE_CHARS]
    low = search_code(head)
    high = low + CODE_BASE ** (CODE_CHARS - len(head)) - 1
    if _code_is_exact(prefix):
        return "key_code between ? and ?", [low, high]
    return (
        "key_code between ? and ? and search_key >= ? and search_key < ?",
        [low, high, prefix, prefix + _TOP],
    )


def _first_word_filter(first: str) -> tuple[str, list[Any]]:
    """search_key is `first`, or starts with `first` and a space (T5)."""
    if _code_is_exact(first + " "):
        # The character after the word is the end (digit 0) or a space (digit 1): one range.
        low = search_code(first)
        high = search_code(first + " ") + CODE_BASE ** (CODE_CHARS - len(first) - 1) - 1
        return "key_code between ? and ?", [low, high]
    where, params = _starts_with(first)
    return (
        f"{where} and (key_length = ? or (search_key >= ? and search_key < ?))",
        [*params, len(first), first + " ", first + " " + _TOP],
    )


# ---------------------------------------------------------------------------- tiers


def _by_status(
    tier: str, prefix: str, where: str, params: Sequence[Any], limit: int
) -> list[_Lookup]:
    """A prefix tier's lookups: active ABNs first, then alphabetical (name_id).

    A short prefix can cover a million names: two lookups, active and cancelled, each in
    the table's own order, so `order by name_id limit` stops after `limit` rows. A longer
    prefix covers few names: one lookup ordered by status and name_id."""
    if len(prefix) >= SHORT_PREFIX:
        return [
            _Lookup(tier, "search_names", where, tuple(params), "is_active desc, name_id", limit)
        ]
    return [
        _Lookup(
            tier, "search_names", f"{where} and is_active = ?", (*params, active), "name_id", limit
        )
        for active in (True, False)
    ]


def _exact_and_t1(key: str, limit: int) -> list[_Lookup]:
    starts, params = _starts_with(key)
    exact = _Lookup(
        "exact",
        "search_names",
        f"{starts} and key_length = ?",
        (*params, len(key)),
        "is_active desc, is_legal_name desc, name_id",
        2 * limit,
    )
    t1 = f"{starts} and key_length > ? and is_legal_name"
    return [exact, *_by_status("T1", key, t1, (*params, len(key)), limit)]


def _t3a_and_t5(key: str, words: Sequence[str], limit: int) -> list[_Lookup]:
    starts, params = _starts_with(key)
    t3a = f"{starts} and key_length > ? and not is_legal_name"
    lookups = _by_status("T3a", key, t3a, (*params, len(key)), 2 * limit)
    if len(words) > 1:
        first, first_params = _first_word_filter(words[0])
        t5 = f"{first} and not is_legal_name"
        lookups += _by_status("T5", words[0], t5, first_params, 2 * limit)
    return lookups


def _word_filter(word: str) -> tuple[str, list[Any]]:
    if _code_is_exact(word):
        return "word_code = ?", [search_code(word)]
    return "word_code = ? and word = ?", [search_code(word), word]


def _word_counts(
    con: duckdb.DuckDBPyConnection, words: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """(names, legal names) holding each query word that some name holds."""
    parts, params = [], []
    for i, word in enumerate(words):
        where, word_params = _word_filter(word)
        parts.append(
            f"(select {i} as i, name_count, legal_name_count"
            f" from marts.search_word_frequencies where {where})"
        )
        params += word_params
    return {
        words[i]: (int(total), int(legal))
        for i, total, legal in con.execute(" union all ".join(parts), params).fetchall()
    }


def _word_tiers(
    words: Sequence[str], counts: dict[str, tuple[int, int]], limit: int
) -> list[_Lookup]:
    """T2 and T3b: the postings of the rarest query word whose name holds every other."""
    if len(counts) < len(words):
        return []  # a word no name holds: no name holds them all
    lookups = []
    for tier, legal in (("T2", True), ("T3b", False)):

        def frequency(word: str, legal: bool = legal) -> int:
            total, legal_count = counts[word]
            return legal_count if legal else total - legal_count

        rarest = min(words, key=lambda word: (frequency(word), word))
        if frequency(rarest) == 0:
            continue
        where, where_params = _word_filter(rarest)
        others = [w for w in words if w != rarest]
        # A word of the name: the space-padded name holds ' WORD '.
        holds = "".join(" and contains(' ' || search_key || ' ', ?)" for _ in others)
        lookups.append(
            _Lookup(
                tier,
                "search_words",
                f"{where} and is_legal_name = ?{holds}",
                (*where_params, legal, *(f" {w} " for w in others)),
                "posting_id",
                limit if legal else 2 * limit,
            )
        )
    return lookups


def _run(con: duckdb.DuckDBPyConnection, lookups: Sequence[_Lookup], limit: int) -> list[_Hit]:
    """Run a round's lookups in one statement. A lookup that filled its limit with fewer
    than `limit` ABNs (one ABN's several names) runs again with a larger limit."""
    if not lookups:
        return []
    rows = _union(con, lookups)
    hits: list[_Hit] = []
    for lookup, mine in zip(lookups, rows, strict=True):
        k = lookup.limit
        while len(mine) == k and len({abn_id for _, abn_id, _, _ in mine}) < limit:
            k *= 4
            retry = _Lookup(lookup.tier, lookup.table, lookup.where, lookup.params, lookup.order, k)
            mine = _union(con, [retry])[0]
        hits.extend(_hit(lookup, *row) for row in mine)
    return hits


def _union(
    con: duckdb.DuckDBPyConnection, lookups: Sequence[_Lookup]
) -> list[list[tuple[int, int, bool, bool]]]:
    """(row id, abn_id, is_active, is_legal_name) of every lookup's rows."""
    row_id = {"search_names": "name_id", "search_words": "posting_id"}
    sql = " union all ".join(
        f"(select {i} as lookup, {row_id[s.table]} as row_id, abn_id, is_active, is_legal_name"
        f" from marts.{s.table} where {s.where} order by {s.order} limit ?)"
        for i, s in enumerate(lookups)
    )
    params = [p for s in lookups for p in (*s.params, s.limit)]
    out: list[list[tuple[int, int, bool, bool]]] = [[] for _ in lookups]
    for lookup, *row in con.execute(sql, params).fetchall():
        out[lookup].append((row[0], row[1], row[2], row[3]))
    return out


def _hit(lookup: _Lookup, row_id: int, abn_id: int, active: bool, legal: bool) -> _Hit:
    tier = TIER_ORDER.index(lookup.tier)
    if lookup.tier == "exact":
        rank: tuple[Any, ...] = (tier, not active, not legal, row_id)
    elif lookup.table == "search_words":
        rank = (tier, row_id)  # posting order: active first, shorter names first
    else:
        rank = (tier, not active, row_id)
    return _Hit(rank, lookup.tier, lookup.table, row_id, abn_id)


def _merge(found: dict[int, _Hit], hits: Iterable[_Hit]) -> None:
    """Keep each ABN's best hit."""
    for hit in hits:
        if hit.abn_id not in found or hit.rank < found[hit.abn_id].rank:
            found[hit.abn_id] = hit


# ---------------------------------------------------------------------------- T4


def _sorted_runs(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Marts table -> the rowid where the run after its sorted copy begins, for the tables
    stored in an order that the snapshot updated in place (``meta.snapshot_tables.
    sorted_rows``, pipelines/warehouse/snapshot/update.py). A table not listed (a snapshot
    without that record) is read as one sorted run."""
    try:
        rows = con.execute(
            "select table_name, sorted_rows from meta.snapshot_tables"
            " where table_name like 'marts.%' and sorted_rows is not null"
        ).fetchall()
    except (duckdb.CatalogException, duckdb.BinderException):  # no such table or column
        return {}
    return {str(name).removeprefix("marts."): int(start) for name, start in rows}


def _fuzzy(
    con: duckdb.DuckDBPyConnection,
    key: str,
    counts: dict[str, tuple[int, int]],
    need: int,
    taken: set[int],
) -> list[_Hit]:
    """T4: names whose pg_trgm similarity to the query is at least SIMILARITY_THRESHOLD,
    most similar first, for up to `need` ABNs not in `taken`.

    The similarity is computed exactly, in SQL, for two sets of candidates read as
    contiguous ranges in the tables' own order: the names holding a query word (the rarest
    words first, at most FUZZY_POSTINGS postings, best first within a word), and the names
    starting like the query (_fuzzy_prefixes; at most FUZZY_PREFIX_ROWS each,
    alphabetical). So a typo in one word is found through the query's other words or the
    text before it; a name similar to the query in neither way is not (docs/search.md).
    """
    query_trigrams = sorted({t.upper() for t in trigrams(key)})
    n = len(query_trigrams)
    # (table, row id column, filter, its parameters, rows)
    sources: list[tuple[str, str, str, list[Any], int]] = []
    budget = FUZZY_POSTINGS
    for word, (total, _legal) in sorted(counts.items(), key=lambda item: (item[1][0], item[0])):
        if budget <= 0:
            break
        where, word_params = _word_filter(word)
        sources.append(("search_words", "posting_id", where, word_params, min(total, budget)))
        budget -= total
    for prefix in _fuzzy_prefixes(key, counts):
        where, prefix_params = _starts_with(prefix)
        sources.append(("search_names", "name_id", where, prefix_params, FUZZY_PREFIX_ROWS))
    if n == 0 or not sources:
        return []
    # A name of `size` trigrams can reach the threshold only if size is in [t n, n / t].
    smallest = max(1, int(SIMILARITY_THRESHOLD * n))
    largest = int(n / SIMILARITY_THRESHOLD) + 1
    # Each source's first rows in id order (best first for word postings), read in storage
    # order without an `order by`, so that the scan stops after them: a table is stored as
    # its sorted copy and at most one sorted run after it (_sorted_runs), each read up to
    # the source's rows, and the first rows of the two by id are the source's. (An `order
    # by` over a common word's range read every row group of it: 158 ms against 5 ms at
    # 20 M ABNs.)
    runs = _sorted_runs(con)
    selects: list[str] = []
    source_params: list[Any] = []
    for i, (table, row_id, where, where_params, wanted) in enumerate(sources):
        head = (
            f"select {i} as source, {row_id} as row_id, name_id, search_key, trigram_count,"
            f" abn_id, is_active, key_length from marts.{table}"
            f" where {where} and trigram_count between ? and ?"
        )
        params = [*where_params, smallest, largest]
        start = runs.get(table)
        if start is None:  # one sorted run
            selects.append(f"({head} limit ?)")
            source_params += [*params, wanted]
        else:
            selects.append(
                f"(select * from (({head} and rowid < {start} limit ?) union all"
                f" ({head} and rowid >= {start} limit ?))"
                f" qualify row_number() over (order by row_id) <= ?)"
            )
            source_params += [*params, wanted, *params, wanted, wanted]
    union = " union all ".join(selects)
    # DuckDB SQL, like every statement here (the snapshot is a DuckDB file): `contains`,
    # `list_contains`, `qualify`.
    # pg_trgm's trigrams of a name are the 3-character windows of each word padded with
    # two spaces before and one after (macro trigram_padded pads the whole name the same
    # way): a query trigram is one of the name's exactly when the padded name holds it.
    shared = " + ".join("cast(contains(padded, ?) as integer)" for _ in query_trigrams)
    sql = f"""
        with candidates as ({union}),
        counted as (
            select *, {shared} as shared
            from (
                select *, '  ' || replace(search_key, ' ', '   ') || ' ' as padded
                from candidates
            ) as padded_candidates
        ),
        scored as (
            select
                source, row_id, name_id, abn_id, is_active, key_length,
                round(shared / (? + trigram_count - shared), 6) as similarity
            from counted
        )
        select * from scored
        where similarity >= ? and not list_contains(?, abn_id)
        -- each ABN once, at its best name (a name can be read from several ranges)
        qualify row_number() over (
            partition by abn_id order by similarity desc, is_active desc, key_length, name_id
        ) = 1
        order by similarity desc, is_active desc, key_length, name_id
        limit ?
    """
    rows = con.execute(
        sql, [*source_params, *query_trigrams, n, SIMILARITY_THRESHOLD, sorted(taken), need]
    ).fetchall()
    hits = []
    for source, row_id, name_id, abn_id, active, length, similarity in rows:
        tier = _CLOSE if similarity >= CLOSE_SIMILARITY else TIER_ORDER.index("T4")
        rank = (tier, -similarity, not active, length, name_id)
        hits.append(_Hit(rank, "T4", sources[source][0], row_id, abn_id))
    return hits


def _fuzzy_prefixes(key: str, known: dict[str, tuple[int, int]]) -> list[str]:
    """Where a typo's name starts: the query up to the first letter of its first word that
    no name holds (likely the misspelt one), and up to the middle of its last word; each
    at least 3 characters."""
    words = key.split(" ")
    prefixes = []
    unknown = [i for i, word in enumerate(words) if word not in known]
    if unknown and unknown[0] > 0:
        prefixes.append(" ".join(words[: unknown[0]]) + " " + words[unknown[0]][0])
    last = key.rfind(" ") + 1
    prefixes.append(key[: last + (len(key) - last + 1) // 2])
    return [p for p in dict.fromkeys(prefixes) if len(p) >= 3]


def _dicts(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]


# ---------------------------------------------------------------------------- results


def _read_rows(con: duckdb.DuckDBPyConnection, hits: Sequence[_Hit]) -> None:
    """Attach the result columns to hits found by row id, in one statement: a range lookup
    per cluster of close ids of a table (a range filter is pruned by zone maps; a bare `in`
    list would read whole row groups of every column)."""
    parts = []
    params: list[Any] = []
    wanted: dict[tuple[str, int], _Hit] = {(hit.table, hit.row_id): hit for hit in hits}
    for table, id_column in (("search_names", "name_id"), ("search_words", "posting_id")):
        clusters: list[list[int]] = []
        for row_id in sorted(row_id for source, row_id in wanted if source == table):
            if clusters and row_id - clusters[-1][-1] <= CLUSTER_GAP:
                clusters[-1].append(row_id)
            else:
                clusters.append([row_id])
        for cluster in clusters:
            members = ", ".join("?" for _ in cluster)
            parts.append(
                f"(select '{table}' as source, {id_column} as row_id, {_RESULT_COLUMNS}"
                f" from marts.{table} where {id_column} between ? and ?"
                f" and {id_column} in ({members}))"
            )
            params += [cluster[0], cluster[-1], *cluster]
    if not parts:
        return
    for row in _dicts(con.execute(" union all ".join(parts), params)):
        wanted[(row.pop("source"), row.pop("row_id"))].row = row


def _result(hit: _Hit, key: str) -> dict[str, Any]:
    row = hit.row
    assert row is not None
    is_legal = bool(row["is_legal_name"])
    # An exact match is reported under the tier of its kind of name.
    tier = ("T1" if is_legal else "T3a") if hit.tier == "exact" else hit.tier
    if hit.tier == "T4":
        score = -hit.rank[1]
    else:
        score = trigram_similarity(key, normalise_name(row["name"]) or "")
    return {
        "abn": f"{row['abn_id']:011d}",  # abn_id is the ABN as a number (cheaper to read)
        "label": (row["legal_name"] or row["name"]) if is_legal else row["name"],
        "legal_name": row["legal_name"],
        "matched_name": row["name"],
        "name_kind": row["name_kind"],
        "name_status": row["bn_status"],
        "tier": tier,
        "exact": hit.tier == "exact",
        "score": round(score, 4),
        "abn_status": row["abn_status"],
        "active": bool(row["is_active"]),
        "state": row["state"],
        "postcode": row["postcode"],
    }
