"""The verify lookup's writer: one SQLite file beside each snapshot, for point lookups by ABN.

Built at publish (``publish_snapshot(sidecars={"verify": build_verify_lookup})``) from the
verified snapshot file; the API reads it with ``pipelines.serving.lookup.VerifyLookup``.

DuckDB is built for scans: one ``where abn = ?`` costs about 0.6 ms even with an index
(planning a statement over a 129-column table), so a server answering a thousand verify
requests a second on two cores would spend most of both cores there. SQLite answers the same
primary-key lookup in about 0.02 ms. The snapshot's DuckDB file stays the source: at publish,
``build_verify_lookup`` writes each ABN's record (entity members, flags and their
severities, and every check's status, reason and detail) as one JSON body keyed by the ABN
as an integer, then the file is never written again and is opened read-only
(``immutable=1``: no locks, no journal). Reasons are a small fixed set (the rules' texts), so
a body carries each reason's index into the ``reasons`` list kept in the ``meta`` table.

Bodies are compressed with zstd and a dictionary trained on the file's first rows (format
2): records share most of their text (member names, detail keys, common values), so a body
of about 1 KB of JSON takes about 80-150 bytes, 20 million ABNs a few GB instead of 27, and
the file stays in the page cache. Compressing costs about 3 µs a row, reading about 1 µs.

A week's file starts from the current one (``previous``: the current snapshot and its
lookup): it is copied, and only the records whose body differs from the one the current
snapshot gives are rewritten, those of ABNs gone deleted, with the current file's
dictionary. A body differs only when the values it is made of do: when both snapshots'
``verifications`` were built with the same code (their ``meta.snapshot_tables`` record
it), the ABNs whose ``input_hash`` changed are rewritten; else both snapshots' values are
hashed in DuckDB (64 bits) and compared. Only the changed ABNs' bodies are computed. It is written whole
instead when the format, this module's code, the checks or the reasons list differ (a body
holds reason positions), or once as many records as the file holds were rewritten since it
was last written whole (the dictionary was trained on that build's first rows). ``meta``
says which (``built``: whole or changes; ``rewritten``; ``rewritten_since_whole``).

Records go into SQLite in ABN order (``_RangeSpool``). The snapshot gives them in its own
order, which for ``verifications`` is none, and an insert at a random key of a B-tree larger
than SQLite's page cache reads and writes a random page: at 20 M ABNs (a 3 GB file) a whole
build took about 18 minutes, 13 of them inserting. So the compressed records are first
spread over temporary files by ABN range (about ``RANGE_ROWS`` records each, the ranges cut
at the ABNs' quantiles), then each range is read back, sorted in memory and inserted: two
sequential passes over the compressed bytes instead of a random write per record.

The record is exactly what ``pipelines.serving.verify.read_record`` reads from DuckDB; a test
holds the two equal on every ABN of the sample, for a file written whole and for one updated
from last week's.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import logging
import shutil
import sqlite3
import struct
import tempfile
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from operator import itemgetter
from pathlib import Path

import duckdb
import zstandard

FORMAT_VERSION = 2
# Members of a verifications row a record carries as they are.
RECORD_MEMBERS = (
    "entity",
    "status",
    "assurance_score",
    "viper_attacked",
    "ppsr_registrations",
    "insolvency_found",
)
ZSTD_LEVEL = 3  # level 9 saves another 12% for four times the build time
DICTIONARY_BYTES = 64 * 1024
DICTIONARY_MIN_SAMPLES = 1_000  # fewer rows: no dictionary (the file is small anyway)
STATUS_CODES = {
    "PASS": "P",
    "WARN": "W",
    "FAIL": "F",
    "N/A": "N",
    "HIGH": "H",
    "MED": "M",
    "LOW": "L",
}
BATCH_ROWS = 50_000
# Records per ABN range when sorting them for the inserts (_RangeSpool): a range is sorted in
# memory, about 100 MB at this size.
RANGE_ROWS = 500_000
# A lookup updated from the previous one is written whole again once as many records as it
# holds were rewritten since it last was (its dictionary was trained on the first rows of
# that whole build).
REWRITE_SHARE = 1.0

log = logging.getLogger(__name__)
CACHE_KIB = 256 * 1024  # SQLite's page cache while writing


def _check_ids(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> list[str]:
    names = [
        r[0]
        for r in con.execute(
            "select column_name from information_schema.columns"
            " where table_catalog = coalesce(?, current_database())"
            " and table_schema = 'marts' and table_name = 'verifications'"
            " order by ordinal_position",
            [catalog],
        ).fetchall()
    ]
    return [n[: -len("_status")] for n in names if n.endswith("_status") and n != "status"]


def _reasons(con: duckdb.DuckDBPyConnection, check_ids: list[str]) -> list[str]:
    return [
        r[0]
        for r in con.execute(
            " union ".join(
                f"select {c}_reason as reason from marts.verifications" for c in check_ids
            )
            + " order by reason"
        ).fetchall()
        if r[0] is not None
    ]


def _severities(prefix: str) -> str:
    return f"""
        select abn, list(severity order by severity) as severities
        from {prefix}marts.risk_flags group by abn
    """


def _inputs(check_ids: list[str], catalog: str = "") -> str:
    """Each ABN of ``catalog``'s snapshot (as ``_bodies``) and the hash of every value its
    body is made of, which is cheaper to compute than the body."""
    prefix = f"{catalog}." if catalog else ""
    columns = [f"v.{m}" for m in RECORD_MEMBERS] + ["v.flags", "s.severities"]
    columns += [f"v.{c}_{part}" for c in check_ids for part in ("status", "reason", "detail")]
    return f"""
        select cast(v.abn as bigint) as abn, v.abn as abn_text,
            hash({", ".join(columns)}) as input_hash
        from {prefix}marts.verifications as v
        left join ({_severities(prefix)}) as s on s.abn = v.abn
        """


def _input_hashes(catalog: str = "") -> str:
    """Each ABN of ``catalog``'s snapshot and its ``verifications.input_hash``: the hash of
    everything its row is computed from (the model is built incrementally), which under the
    same code gives the same row, its flags' severities included (the flag definitions are
    part of the model's code: its ``incremental_globals``)."""
    prefix = f"{catalog}." if catalog else ""
    return (
        "select cast(abn as bigint) as abn, abn as abn_text, input_hash"
        f" from {prefix}marts.verifications"
    )


def _code_hash(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> str | None:
    """The code a snapshot's ``verifications`` was built with, as its ``meta.snapshot_tables``
    records it (None where it does not, or the table has no ``input_hash``)."""
    if catalog is None:
        (catalog,) = con.execute("select current_database()").fetchall()[0]
    columns = {
        (str(table), str(column))
        for table, column in con.execute(
            "select table_name, column_name from duckdb_columns()"
            " where database_name = ? and (schema_name, table_name) in"
            " (('meta', 'snapshot_tables'), ('marts', 'verifications'))",
            [catalog],
        ).fetchall()
    }
    if not {("snapshot_tables", "code_hash"), ("verifications", "input_hash")} <= columns:
        return None
    rows = con.execute(
        f'select code_hash from "{catalog}".meta.snapshot_tables'
        " where table_name = 'marts.verifications'"
    ).fetchall()
    return str(rows[0][0]) if rows and rows[0][0] is not None else None


def _same_code(con: duckdb.DuckDBPyConnection, previous: str) -> bool:
    """Whether both snapshots' ``verifications`` were built with the same, known code: the
    changed records are then among the ABNs whose input hash changed (two narrow columns
    read, not every value of every record hashed: 0.3 against 3.2 s at 2 M ABNs)."""
    code = _code_hash(con)
    return code is not None and code == _code_hash(con, previous)


def _bodies(check_ids: list[str], catalog: str = "", only: str = "") -> str:
    """The statement giving each ABN of ``catalog``'s snapshot (`` ""``: the connection's own
    database) as ``abn`` (an integer) and its record's JSON text ``body``; ``$reasons`` is
    the reasons list the body indexes into. ``only`` names a relation of the ABNs to give,
    when not every one, as the table holds them (``abn_text``): a filter on the column
    itself reaches the scan, which then reads the other columns of those rows only (0.7
    against 1.0 s for a realistic week's 25,000 of 2 M ABNs, on the integer)."""
    code = " ".join(f"when '{k}' then '{v}'" for k, v in STATUS_CODES.items())
    statuses = " || ".join(f"(case {c}_status {code} else '?' end)" for c in check_ids)
    reason_ids = ", ".join(f"list_position($reasons, {c}_reason) - 1" for c in check_ids)
    details = ", ".join(
        f"""case when {c}_detail is not null then '"{i}":' || {c}_detail end"""
        for i, c in enumerate(check_ids)
    )
    members = " || ',' || ".join(
        f"""'"{m}":' || coalesce(cast(to_json(v.{m}) as varchar), 'null')""" for m in RECORD_MEMBERS
    )
    prefix = f"{catalog}." if catalog else ""
    # The body is written as text: `flags` and the details are JSON text already, so
    # they go in as they are rather than parsed into a JSON value and written out again
    # (json_object over them parsed every detail: an eighth of the build's samples at 5 M). to_json and
    # list_position are DuckDB's; this reads a DuckDB snapshot file.
    return f"""
        with severities as ({_severities(prefix)})
        select cast(v.abn as bigint) as abn, '{{' || {members}
            || ',"flags":' || coalesce(v.flags, 'null')
            || ',"severities":' || cast(to_json(coalesce(s.severities, [])) as varchar)
            || ',"statuses":' || cast(to_json({statuses}) as varchar)
            || ',"reasons":' || cast(to_json([{reason_ids}]) as varchar)
            || ',"details":{{' || concat_ws(',', {details}) || '}}}}' as body
        from {prefix}marts.verifications as v
        left join severities as s on s.abn = v.abn
        {f"where v.abn in (select abn_text from {only})" if only else ""}
        """


def _code_version() -> str:
    """This module's source: a body written by other code is not compared with its own."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def build_verify_lookup(
    snapshot_path: Path,
    out_path: Path,
    *,
    threads: int = 0,
    previous: tuple[Path, Path] | None = None,
) -> int:
    """Write the lookup file for a snapshot; returns the number of ABNs it holds.

    ``threads`` caps DuckDB's threads reading the snapshot (0: DuckDB's default); a publish
    beside the API passes its own cap (``BVS_PUBLISH_THREADS``). ``previous`` is the
    current snapshot's file and its lookup: the new file is then that lookup with only the
    records that differ rewritten (``_update``), unless ``_why_whole`` says otherwise.
    """
    config: dict[str, str | bool | int | float | list[str]] = (
        {"threads": threads} if threads else {}
    )
    con = duckdb.connect(str(snapshot_path), read_only=True, config=config)
    try:
        check_ids = _check_ids(con)
        reasons = _reasons(con, check_ids)
        if previous is not None:
            reason = _why_whole(con, previous, check_ids, reasons)
            if reason is None:
                return _update(con, previous, out_path, check_ids, reasons)
            log.info("verify lookup built whole: %s", reason)
        return _write_whole(con, out_path, check_ids, reasons)
    finally:
        con.close()


def _meta(path: Path) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as lite:
        return dict(lite.execute("select key, value from meta").fetchall())


def _why_whole(
    con: duckdb.DuckDBPyConnection,
    previous: tuple[Path, Path],
    check_ids: list[str],
    reasons: list[str],
) -> str | None:
    """Why the lookup must be written whole rather than from ``previous``, or None."""
    snapshot, lookup = previous
    if not (snapshot.is_file() and lookup.is_file()):
        return "the previous snapshot or its lookup is gone"
    try:
        meta = _meta(lookup)
    except sqlite3.Error as exc:
        return f"the previous lookup is unreadable ({exc})"
    if meta.get("format_version") != str(FORMAT_VERSION):
        return "the previous lookup has another format"
    if meta.get("code_version") != _code_version():
        return "the previous lookup was written by other code"
    if json.loads(meta.get("check_ids", "[]")) != check_ids:
        return "the checks changed"
    if json.loads(meta.get("reasons", "[]")) != reasons:
        return "the reasons changed (a body holds their positions)"
    rows, rewritten = int(meta.get("rows", 0)), int(meta.get("rewritten_since_whole", 0))
    if rewritten > rows * REWRITE_SHARE:
        return "its records were rewritten once over since it was written whole"
    return None


def _update(
    con: duckdb.DuckDBPyConnection,
    previous: tuple[Path, Path],
    out_path: Path,
    check_ids: list[str],
    reasons: list[str],
) -> int:
    """The previous lookup with the records that differ rewritten, those of ABNs gone
    deleted. A record differs when its body's hash does; both bodies are computed here, the
    old one from the previous snapshot (which its lookup was built from)."""
    snapshot, lookup = previous
    path = str(snapshot).replace("'", "''")
    con.execute(f"attach '{path}' as bvs_previous (read_only)")
    try:
        if _check_ids(con, "bvs_previous") != check_ids:
            return _write_whole(con, out_path, check_ids, reasons)
        gone = con.execute(
            "select cast(abn as bigint) from bvs_previous.marts.verifications"
            " except select cast(abn as bigint) from marts.verifications"
        ).fetchall()
        (rows,) = con.execute("select count(*) from marts.verifications").fetchall()[0]
        out_path.unlink(missing_ok=True)
        shutil.copyfile(lookup, out_path)
        rewritten_before = int(_meta(out_path).get("rewritten_since_whole", 0))
        narrow = _same_code(con, "bvs_previous")
        new_inputs = _input_hashes() if narrow else _inputs(check_ids)
        old_inputs = _input_hashes("bvs_previous") if narrow else _inputs(check_ids, "bvs_previous")
        con.execute(
            f"""
            create or replace temporary table bvs_changed_abns as
            select new_inputs.abn, new_inputs.abn_text
            from ({new_inputs}) as new_inputs
            left join ({old_inputs}) as old_inputs
                on new_inputs.abn = old_inputs.abn
            where old_inputs.input_hash is distinct from new_inputs.input_hash
            """
        )
        bounds = _range_bounds(con, "bvs_changed_abns")
        changed = con.execute(_bodies(check_ids, only="bvs_changed_abns"), {"reasons": reasons})
        lite = _writing(out_path)
        try:
            found = lite.execute("select data from dictionary where id = 1").fetchall()
            compress = _compressor(found[0][0] if found else None).compress
            lite.executemany("delete from verify where abn = ?", sorted(gone))
            rewritten = 0
            with _RangeSpool(bounds, out_path.parent) as spool, _batches(changed) as batches:
                for batch in batches:
                    spool.add((abn, compress(body.encode())) for abn, body in batch)
                for records in spool.ranges():
                    lite.executemany("insert or replace into verify values (?, ?)", records)
                    rewritten += len(records)
            lite.executemany(
                "insert or replace into meta values (?, ?)",
                [
                    ("rows", str(rows)),
                    ("built", "changes"),
                    ("rewritten", str(rewritten + len(gone))),
                    ("rewritten_since_whole", str(rewritten_before + rewritten + len(gone))),
                ],
            )
            lite.commit()
        finally:
            lite.close()
    finally:
        con.execute("drop table if exists bvs_changed_abns")
        con.execute("detach bvs_previous")
    log.info("verify lookup: %d records rewritten, %d deleted", rewritten, len(gone))
    return int(rows)


def _write_whole(
    con: duckdb.DuckDBPyConnection, out_path: Path, check_ids: list[str], reasons: list[str]
) -> int:
    bounds = _range_bounds(con, "marts.verifications")
    cursor = con.execute(_bodies(check_ids), {"reasons": reasons})
    out_path.unlink(missing_ok=True)
    lite = _writing(out_path)
    try:
        lite.execute("create table meta (key text primary key, value text not null)")
        lite.execute("create table dictionary (id integer primary key, data blob not null)")
        lite.execute("create table verify (abn integer primary key, body blob not null)")
        lite.executemany(
            "insert into meta values (?, ?)",
            [
                ("format_version", str(FORMAT_VERSION)),
                ("check_ids", json.dumps(check_ids)),
                ("reasons", json.dumps(reasons)),
                ("code_version", _code_version()),
                ("built", "whole"),
                ("rewritten_since_whole", "0"),
            ],
        )
        written = 0
        compress = None
        with _RangeSpool(bounds, out_path.parent) as spool, _batches(cursor) as batches:
            for rows in batches:
                if compress is None:
                    dictionary = _train([body.encode() for _abn, body in rows])
                    if dictionary is not None:
                        lite.execute("insert into dictionary values (1, ?)", (dictionary,))
                    compress = _compressor(dictionary).compress
                spool.add((abn, compress(body.encode())) for abn, body in rows)
            for records in spool.ranges():
                lite.executemany("insert into verify values (?, ?)", records)
                written += len(records)
        lite.execute("insert into meta values ('rows', ?)", (str(written),))
        lite.commit()
    finally:
        lite.close()
    return written


def _writing(path: Path) -> sqlite3.Connection:
    """A connection to write the lookup at ``path``: no journal, no syncs (the publish
    fsyncs the finished file), and a page cache that holds the B-tree's upper pages (the
    records come in ABN order, ``_RangeSpool``)."""
    lite = sqlite3.connect(path)
    lite.execute("pragma journal_mode=off")
    lite.execute("pragma synchronous=off")
    lite.execute(f"pragma cache_size = -{CACHE_KIB}")
    return lite


@contextlib.contextmanager
def _batches(cursor: duckdb.DuckDBPyConnection) -> Iterator[Iterator[list]]:
    """The cursor's rows, ``BATCH_ROWS`` at a time, the next batch fetched in a thread while
    the caller compresses the last: DuckDB computes a batch without holding the GIL (at 20 M
    a whole build's bodies and compression took 382 s one after the other; overlapped, 30 %
    less on 2 M of them). Leaving the block waits for a fetch under way, so the connection
    is not closed under it."""

    def batches(pool: ThreadPoolExecutor) -> Iterator[list]:
        pending = pool.submit(cursor.fetchmany, BATCH_ROWS)
        while rows := pending.result():
            pending = pool.submit(cursor.fetchmany, BATCH_ROWS)
            yield rows

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="verify-lookup") as pool:
        yield batches(pool)


def _range_bounds(con: duckdb.DuckDBPyConnection, relation: str) -> list[int]:
    """ABNs cutting ``relation``'s (a column ``abn``) into ranges of about ``RANGE_ROWS``;
    empty when they fit one range."""
    (rows,) = con.execute(f"select count(*) from {relation}").fetchall()[0]
    parts = -(-rows // RANGE_ROWS)
    if parts <= 1:
        return []
    (bounds,) = con.execute(
        f"select quantile_disc(cast(abn as bigint), ?) from {relation}",
        [[i / parts for i in range(1, parts)]],
    ).fetchall()[0]
    return sorted(set(bounds))


class _RangeSpool:
    """Records (ABN, compressed body) spread over one temporary file per ABN range, given back
    a range at a time in ABN order: every ABN of a range is below every ABN of the next
    (``bounds`` cut them, ``_range_bounds``). The files are in ``directory`` (beside the
    lookup: they hold its compressed size) and gone when the spool closes."""

    _HEADER = struct.Struct("<qI")  # the ABN, the body's length

    def __init__(self, bounds: list[int], directory: Path) -> None:
        self._bounds = bounds
        self._directory = directory
        self._stack = contextlib.ExitStack()
        self._files: list = []

    def __enter__(self) -> _RangeSpool:
        with self._stack as stack:
            self._files = [
                stack.enter_context(
                    tempfile.TemporaryFile(dir=self._directory, prefix=".verify-range-")  # noqa: SIM115
                )
                for _ in range(len(self._bounds) + 1)
            ]
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stack.close()

    def add(self, records: Iterable[tuple[int, bytes]]) -> None:
        pack, bounds, files = self._HEADER.pack, self._bounds, self._files
        for abn, body in records:
            file = files[bisect.bisect_right(bounds, abn)]
            file.write(pack(abn, len(body)))
            file.write(body)

    def ranges(self) -> Iterator[list[tuple[int, bytes]]]:
        unpack, size = self._HEADER.unpack_from, self._HEADER.size
        for file in self._files:
            file.seek(0)
            data = file.read()
            file.close()
            records, at = [], 0
            while at < len(data):
                abn, length = unpack(data, at)
                at += size
                records.append((abn, data[at : at + length]))
                at += length
            records.sort(key=itemgetter(0))
            yield records


def _train(samples: list[bytes]) -> bytes | None:
    """A zstd dictionary from sample bodies, or None when there are too few to train on."""
    if len(samples) < DICTIONARY_MIN_SAMPLES:
        return None
    try:
        trained = zstandard.train_dictionary(DICTIONARY_BYTES, samples)
    except zstandard.ZstdError:  # samples too uniform or too few for the size asked
        return None
    return bytes(trained.as_bytes())


def _compressor(dictionary: bytes | None) -> zstandard.ZstdCompressor:
    return zstandard.ZstdCompressor(
        level=ZSTD_LEVEL,
        dict_data=zstandard.ZstdCompressionDict(dictionary) if dictionary else None,
        write_checksum=False,
        write_dict_id=False,
    )
