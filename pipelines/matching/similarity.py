"""The trigram similarity join: every (register name, entity name) pair whose pg_trgm
similarity reaches the register name's threshold, exactly, without comparing every pair.

The register names (the small side, about 100,000) are indexed; the entity names (every
distinct name of every ABN, about 20 million) stream past the index in Arrow batches,
probed on two threads. The method is prefix filtering (Chaudhuri et al. 2006; Bayardo et
al. "All-pairs", 2007):

* Trigrams are ranked by how many register names hold them, rarest first; trigrams no
  register name holds rank before all of them.
* If similarity(A, B) >= t, A and B share at least ceil(t * max(|A|, |B|)) trigrams, so the
  first |A| - ceil(t|A|) + 1 trigrams of A and the first |B| - ceil(t|B|) + 1 of B (in rank
  order) have one in common. Each register name A is posted under its prefix at its own
  threshold; each entity name B looks up its prefix at the lowest threshold of the index.
* A register name met first at its position i, at B's j-th trigram, can share at most
  1 + min(|A| - i - 1, |B| - j - 1) trigrams (PPJoin's positional filter, Xiao et al. 2008):
  it is dropped when that, or its size (|B| between t|A| and |A|/t), rules the pair out.
  The rest are verified by counting shared trigrams after position i.

The work is in C (`_trgmjoin.c`, built by setup.py); `PythonIndex` below is the same
algorithm in Python, used where the extension could not be compiled and held equal to it
by tests/matching/test_similarity.py. Similarities are returned with a slack of 1e-6 below
the threshold: callers compare `round(similarity, 6)` with the threshold themselves (the
match tables' rule, `bvs.similarity_meets`).

Trigram semantics are the SQL macros' (macros/matching/trigrams.sql): names are normalised
(letters, digits, single spaces), words are separated by ASCII spaces and punctuation, ASCII
letters compare case-insensitively; other characters compare as written.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa

try:  # built by setup.py; tests hold it equal to PythonIndex
    import pipelines.matching._trgmjoin as _trgmjoin
except ImportError:  # pragma: no cover - a machine that could not compile it
    _trgmjoin = None

SLACK = 1e-6


@dataclass(frozen=True)
class Pairs:
    """Pairs found in one batch: register name index, row in the batch, similarity."""

    register_index: pa.Array  # int32
    row: pa.Array  # int32
    similarity: pa.Array  # float64


def _trigram_set(name: str) -> frozenset[str]:
    """The C extension's trigrams of a name (its twin, for PythonIndex and the tests).

    Not `pipelines.matching.trigrams` (the pg_trgm reference): that lower-cases every
    letter, this only ASCII ones, as the C code does; on normalised ASCII names the two
    are equal (tests/matching/test_similarity.py holds them so).
    """
    words: list[str] = []
    current: list[str] = []
    for c in name:
        if c < "\x80" and not c.isalnum():
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(c.lower() if c < "\x80" else c)
    if current:
        words.append("".join(current))
    grams: set[str] = set()
    for word in words:
        padded = "  " + word + " "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return frozenset(grams)


def _prefix_length(n: int, threshold: float) -> int:
    return n - min(max(math.ceil(threshold * n - 1e-9), 1), n) + 1


class PythonIndex:
    """The C index's algorithm in Python: slow, for machines without a compiler."""

    def __init__(self, names: Sequence[str], thresholds: Sequence[float]) -> None:
        grams = [_trigram_set(n) for n in names]
        counts: dict[str, int] = defaultdict(int)
        for g in grams:
            for t in g:
                counts[t] += 1
        order = sorted(counts, key=lambda t: (counts[t], _key(t)))
        self.rank = {t: i + 1 for i, t in enumerate(order)}
        self.thresholds = [t - SLACK for t in thresholds]
        self.min_threshold = min(self.thresholds, default=1.0)
        self.ranks = [sorted(self.rank[t] for t in g) for g in grams]
        self.postings: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for i, ranks in enumerate(self.ranks):
            if ranks:
                for position, r in enumerate(
                    ranks[: _prefix_length(len(ranks), self.thresholds[i])]
                ):
                    self.postings[r].append((i, position))

    def probe(self, names: Sequence[str | None]) -> tuple[list[int], list[int], list[float]]:
        regs: list[int] = []
        rows: list[int] = []
        sims: list[float] = []
        for row, name in enumerate(names):
            grams = _trigram_set(name or "")
            nb = len(grams)
            present = sorted(r for t in grams if (r := self.rank.get(t)))
            absent = nb - len(present)
            p = _prefix_length(nb, self.min_threshold)
            if not present or p <= absent:
                continue
            m = len(present)
            present_set = set(present)
            seen: set[int] = set()
            for jj, r in enumerate(present[: p - absent]):
                for reg, position in self.postings.get(r, ()):
                    if reg in seen:
                        continue
                    seen.add(reg)
                    ranks, t = self.ranks[reg], self.thresholds[reg]
                    na = len(ranks)
                    if nb < t * na - 1e-9 or nb * t > na + 1e-9:
                        continue
                    need = math.ceil(t * (na + nb) / (1 + t) - 1e-9)
                    if min(na - position, m - jj) < need:
                        continue
                    o = 1 + sum(1 for x in ranks[position + 1 :] if x in present_set)
                    sim = o / (na + nb - o)
                    if o >= need and sim >= t:
                        regs.append(reg)
                        rows.append(row)
                        sims.append(sim)
        return regs, rows, sims


def _key(trigram: str) -> int:
    """The C extension's key of a trigram: its three code points, 21 bits each."""
    a, b, c = (ord(ch) for ch in trigram)
    return (a << 42) | (b << 21) | c


class SimilarityIndex:
    """Register names and their thresholds, indexed for `probe`."""

    def __init__(
        self,
        names: Sequence[str],
        thresholds: Sequence[float],
        *,
        use_c: bool = True,
    ) -> None:
        self.names = list(names)
        thresholds = [float(t) for t in thresholds]
        if len(thresholds) != len(self.names):
            raise ValueError("names and thresholds must have the same length")
        if use_c and _trgmjoin is not None:
            self._c = _trgmjoin.build(self.names, thresholds)
            self._py = None
        else:
            bad = [t for t in thresholds if not 0.0 < t <= 1.0]
            if bad:
                raise ValueError(f"threshold {bad[0]!r} is not in (0, 1]")
            self._c = None
            self._py = PythonIndex(self.names, thresholds)

    def probe(self, names: pa.Array) -> Pairs:
        """The pairs of one batch of entity names (an Arrow string array)."""
        if names.null_count:
            names = names.fill_null("")
        if self._py is not None:
            regs, rows, sims = self._py.probe(names.to_pylist())
            return Pairs(
                pa.array(regs, pa.int32()), pa.array(rows, pa.int32()), pa.array(sims, pa.float64())
            )
        if pa.types.is_string(names.type):
            width = 4
        elif pa.types.is_large_string(names.type):
            width = 8
        else:
            names = names.cast(pa.large_string())
            width = 8
        _, offsets, data = names.buffers()
        regs, rows, sims = _trgmjoin.probe(
            self._c, data if data is not None else b"", offsets, width, names.offset, len(names)
        )
        return Pairs(
            pa.Array.from_buffers(pa.int32(), len(regs) // 4, [None, pa.py_buffer(regs)]),
            pa.Array.from_buffers(pa.int32(), len(rows) // 4, [None, pa.py_buffer(rows)]),
            pa.Array.from_buffers(pa.float64(), len(sims) // 8, [None, pa.py_buffer(sims)]),
        )


def similarity_join(
    index: SimilarityIndex,
    batches: Iterable[pa.RecordBatch],
    *,
    name_column: str = "name_normalised",
    key_column: str = "name_id",
    threads: int | None = None,
) -> Iterator[pa.RecordBatch]:
    """(register_index, `key_column`, similarity) for every pair found, batch by batch.

    `batches` carry the entity names and their keys; up to `threads` batches (default: the
    CPU count) are probed at once, and results come back in batch order.
    """
    threads = threads or os.cpu_count() or 1
    with ThreadPoolExecutor(threads) as pool:
        pending = []
        for batch in batches:
            pending.append((batch, pool.submit(index.probe, batch.column(name_column))))
            if len(pending) > threads:
                yield _pairs_batch(*pending.pop(0), key_column)
        for batch, future in pending:
            yield _pairs_batch(batch, future, key_column)


def _pairs_batch(batch: pa.RecordBatch, future, key_column: str) -> pa.RecordBatch:
    pairs: Pairs = future.result()
    return pa.record_batch(
        {
            "register_index": pairs.register_index,
            key_column: batch.column(key_column).take(pairs.row),
            "similarity": pairs.similarity,
        }
    )


def similarity_pairs(
    index: SimilarityIndex, reader: pa.RecordBatchReader, *, threads: int | None = None
) -> pa.Table:
    """Every pair `similarity_join` finds in `reader` (batches of `name_id` and
    `name_normalised`), as one table of `register_index`, `name_id` and `similarity`."""
    batches = list(similarity_join(index, reader, threads=threads))
    schema = pa.schema(
        [("register_index", pa.int32()), ("name_id", reader.schema.field("name_id").type),
         ("similarity", pa.float64())]
    )  # fmt: skip
    return pa.Table.from_batches(batches, schema=schema)


def name_similarities(
    con, register_names, entity_names, *, batch_rows: int = 131_072, threads: int | None = None
):
    """The similarity join of two DuckDB relations, as a relation on `con`.

    `register_names` has `name_normalised` and `name_threshold`; `entity_names` has
    `name_id` and `name_normalised`. The result has `register_name`, `entity_name` and
    `similarity`, for every pair whose similarity, rounded to 6 decimals, reaches the
    register name's threshold: the whole join (pipelines/matching/similarity_week.py
    recomputes only what changed since it last ran).
    """
    rows = [(str(name), float(t)) for name, t in register_rows(register_names).fetchall()]
    return matched_pairs(
        con, rows, entity_rows(entity_names), batch_rows=batch_rows, threads=threads
    )


def register_rows(register_names):
    """The register names the join matches: `name_normalised`, `name_threshold` (a double),
    neither null."""
    return register_names.filter(
        "name_normalised is not null and name_threshold is not null"
    ).select("name_normalised, cast(name_threshold as double) as name_threshold")


def entity_rows(entity_names):
    """The entity names the join matches: `name_id`, `name_normalised`, the name not null."""
    return entity_names.filter("name_normalised is not null").select("name_id, name_normalised")


def matched_pairs(
    con,
    registers: Sequence[tuple[str, float]],
    entities,
    *,
    batch_rows: int = 131_072,
    threads: int | None = None,
):
    """`register_name`, `entity_name`, `similarity` of every pair of `registers` ((name,
    threshold), each name once) and the relation `entities` (`name_id`,
    `name_normalised`, no null name) whose similarity, rounded to 6 decimals, reaches the
    register name's threshold, as a relation on `con`."""
    rows = sorted(registers)
    index = SimilarityIndex([r[0] for r in rows], [r[1] for r in rows])
    reader = entities.select("name_id, name_normalised").to_arrow_reader(batch_rows)
    pairs = similarity_pairs(index, reader, threads=threads)
    register_table = pa.table(
        {
            "register_index": pa.array(range(len(rows)), pa.int32()),
            "name_normalised": pa.array([r[0] for r in rows], pa.string()),
            "name_threshold": pa.array([r[1] for r in rows], pa.float64()),
        }
    )
    suffix = f"{os.getpid()}_{id(pairs)}"
    con.register(f"bvs_similarity_pairs_{suffix}", pairs)
    con.register(f"bvs_similarity_registers_{suffix}", register_table)
    return con.sql(
        f"""
        select
            registers.name_normalised as register_name,
            entities.name_normalised as entity_name,
            pairs.similarity
        from bvs_similarity_pairs_{suffix} as pairs
        inner join bvs_similarity_registers_{suffix} as registers
            on pairs.register_index = registers.register_index
        inner join ({entities.sql_query()}) as entities
            on pairs.name_id = entities.name_id
        where round(pairs.similarity, 6) >= registers.name_threshold
        """
    )
