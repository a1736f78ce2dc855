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

The record is exactly what ``pipelines.serving.verify.read_record`` reads from DuckDB; a test
holds the two equal on every ABN of the sample.
"""

from __future__ import annotations

import json
import sqlite3
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
CACHE_KIB = 256 * 1024  # SQLite's page cache while writing


def _check_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    names = [
        r[0]
        for r in con.execute(
            "select column_name from information_schema.columns"
            " where table_schema = 'marts' and table_name = 'verifications'"
            " order by ordinal_position"
        ).fetchall()
    ]
    return [n[: -len("_status")] for n in names if n.endswith("_status") and n != "status"]


def build_verify_lookup(snapshot_path: Path, out_path: Path, *, threads: int = 0) -> int:
    """Write the lookup file for a snapshot; returns the number of ABNs written.

    ``threads`` caps DuckDB's threads reading the snapshot (0: DuckDB's default); a publish
    beside the API passes its own cap (``BVS_PUBLISH_THREADS``).
    """
    config: dict[str, str | bool | int | float | list[str]] = (
        {"threads": threads} if threads else {}
    )
    con = duckdb.connect(str(snapshot_path), read_only=True, config=config)
    try:
        check_ids = _check_ids(con)
        reasons = [
            r[0]
            for r in con.execute(
                " union ".join(
                    f"select {c}_reason as reason from marts.verifications" for c in check_ids
                )
                + " order by reason"
            ).fetchall()
            if r[0] is not None
        ]
        # statuses as one letter each, reasons as indexes, details only where present
        code = " ".join(f"when '{k}' then '{v}'" for k, v in STATUS_CODES.items())
        statuses = " || ".join(f"(case {c}_status {code} else '?' end)" for c in check_ids)
        reason_ids = ", ".join(f"list_position($reasons, {c}_reason) - 1" for c in check_ids)
        details = ", ".join(
            f"""case when {c}_detail is not null then '"{i}":' || {c}_detail end"""
            for i, c in enumerate(check_ids)
        )
        members = " || ',' || ".join(
            f"""'"{m}":' || coalesce(cast(to_json(v.{m}) as varchar), 'null')"""
            for m in RECORD_MEMBERS
        )
        # The body is written as text: `flags` and the details are JSON text already, so
        # they go in as they are rather than parsed into a JSON value and written out again
        # (json_object over them parsed every detail: an eighth of the build's samples at 5 M). to_json and
        # list_position are DuckDB's; this reads a DuckDB snapshot file.
        cursor = con.execute(
            f"""
            with severities as (
                select abn, list(severity order by severity) as severities
                from marts.risk_flags group by abn
            )
            select cast(v.abn as bigint), '{{' || {members}
                || ',"flags":' || coalesce(v.flags, 'null')
                || ',"severities":' || cast(to_json(coalesce(s.severities, [])) as varchar)
                || ',"statuses":' || cast(to_json({statuses}) as varchar)
                || ',"reasons":' || cast(to_json([{reason_ids}]) as varchar)
                || ',"details":{{' || concat_ws(',', {details}) || '}}}}'
            from marts.verifications as v
            left join severities as s on s.abn = v.abn
            """,
            {"reasons": reasons},
        )
        out_path.unlink(missing_ok=True)
        lite = sqlite3.connect(out_path)
        try:
            lite.execute("pragma journal_mode=off")
            lite.execute("pragma synchronous=off")
            # the rows come about in ABN order, but the B-tree's upper pages are read back
            # for every insert beyond SQLite's 2 MB default cache
            lite.execute(f"pragma cache_size = -{CACHE_KIB}")
            lite.execute("create table meta (key text primary key, value text not null)")
            lite.execute("create table dictionary (id integer primary key, data blob not null)")
            lite.execute("create table verify (abn integer primary key, body blob not null)")
            lite.executemany(
                "insert into meta values (?, ?)",
                [
                    ("format_version", str(FORMAT_VERSION)),
                    ("check_ids", json.dumps(check_ids)),
                    ("reasons", json.dumps(reasons)),
                ],
            )
            written = 0
            compress = None
            while rows := cursor.fetchmany(BATCH_ROWS):
                if compress is None:
                    dictionary = _train([body.encode() for _abn, body in rows])
                    if dictionary is not None:
                        lite.execute("insert into dictionary values (1, ?)", (dictionary,))
                    compress = _compressor(dictionary).compress
                lite.executemany(
                    "insert into verify values (?, ?)",
                    [(abn, compress(body.encode())) for abn, body in rows],
                )
                written += len(rows)
            lite.execute("insert into meta values ('rows', ?)", (str(written),))
            lite.commit()
        finally:
            lite.close()
        return written
    finally:
        con.close()


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
