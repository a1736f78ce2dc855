"""The verify lookup beside each snapshot answers exactly what DuckDB answers.

The API reads an ABN's record from the lookup file (``pipelines.serving.lookup``) instead of
the snapshot's ``marts.verifications``; these tests hold the two equal on every ABN of the
end-to-end sample, for the file the pipeline published and for files built without a zstd
dictionary and in the older uncompressed format, which a server must still read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from pipelines.serving.lookup import FORMAT_VERSION, VerifyLookup
from pipelines.serving.verify import read_record
from pipelines.settings import get_settings
from pipelines.warehouse import verify_lookup as lookup_module
from pipelines.warehouse.snapshot import current_snapshot
from pipelines.warehouse.verify_lookup import build_verify_lookup


@pytest.fixture(scope="module")
def published(pipeline_world: dict) -> tuple[Path, Path]:
    """(snapshot file, its lookup file) as `bvs run` published them."""
    info = current_snapshot(get_settings(data_dir=pipeline_world["data"]))
    assert info is not None and "verify" in info.sidecars
    return info.path, info.sidecars["verify"]


def _assert_same_records(snapshot: Path, lookup_path: Path) -> int:
    lookup = VerifyLookup(lookup_path)
    with duckdb.connect(str(snapshot), read_only=True) as con:
        abns = [r[0] for r in con.execute("select abn from marts.verifications").fetchall()]
        assert lookup.rows == len(abns)
        for abn in abns:
            assert lookup.record(abn) == read_record(con, abn), abn
    assert lookup.record("53004085616") is None  # a valid ABN the register does not hold
    return len(abns)


def test_the_published_lookup_holds_every_abns_record_as_duckdb_reads_it(
    published: tuple[Path, Path],
) -> None:
    snapshot, lookup_path = published
    assert VerifyLookup(lookup_path).format == FORMAT_VERSION
    assert _assert_same_records(snapshot, lookup_path) > 1_000


def test_bodies_are_compressed_with_a_trained_dictionary(published: tuple[Path, Path]) -> None:
    _snapshot, lookup_path = published
    with sqlite3.connect(lookup_path) as lite:
        (dictionaries,) = lite.execute("select count(*) from dictionary").fetchall()[0]
        (mean_bytes,) = lite.execute("select avg(length(body)) from verify").fetchall()[0]
    assert dictionaries == 1
    assert mean_bytes < 300, mean_bytes  # the JSON is about 1 KB a record


def test_a_small_snapshot_is_written_without_a_dictionary(
    published: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot, _lookup = published
    monkeypatch.setattr(lookup_module, "DICTIONARY_MIN_SAMPLES", 10**9)
    monkeypatch.setattr(lookup_module, "RANGE_ROWS", 1_000)  # written in several ABN ranges
    out = tmp_path / "plain.verify.sqlite"
    build_verify_lookup(snapshot, out, threads=1)  # as a publish beside the API builds it
    with sqlite3.connect(out) as lite:
        assert lite.execute("select count(*) from dictionary").fetchall() == [(0,)]
    _assert_same_records(snapshot, out)


def test_a_format_1_file_from_an_older_release_is_still_read(
    published: tuple[Path, Path], tmp_path: Path
) -> None:
    """Format 1 kept the same JSON uncompressed in a text column and had no dictionary."""
    snapshot, lookup_path = published
    old = tmp_path / "v1.verify.sqlite"
    plain = VerifyLookup(lookup_path)
    with sqlite3.connect(lookup_path) as current, sqlite3.connect(old) as lite:
        lite.execute("create table meta (key text primary key, value text not null)")
        lite.execute("create table verify (abn integer primary key, body text not null)")
        for key, value in current.execute("select key, value from meta").fetchall():
            lite.execute(
                "insert into meta values (?, ?)", (key, "1" if key == "format_version" else value)
            )
        for abn, body in current.execute("select abn, body from verify").fetchall():
            lite.execute(
                "insert into verify values (?, ?)", (abn, plain._decompress(body).decode())
            )
    assert VerifyLookup(old).format == 1
    _assert_same_records(snapshot, old)


def test_an_unknown_format_is_refused_with_the_file_named(
    published: tuple[Path, Path], tmp_path: Path
) -> None:
    _snapshot, lookup_path = published
    future = tmp_path / "future.verify.sqlite"
    future.write_bytes(lookup_path.read_bytes())
    with sqlite3.connect(future) as lite:
        lite.execute("update meta set value = '99' where key = 'format_version'")
    with pytest.raises(ValueError, match="future.verify.sqlite: lookup format 99 unknown"):
        VerifyLookup(future)


def _previous_week(
    snapshot: Path, out: Path, *, new_reason: bool = False, code: str | None = None
) -> list[str]:
    """A copy of ``snapshot`` as last week's might have been: two ABNs not yet registered,
    one since gone, other ABNs whose tile, score or flags were different, and so their
    input hashes; ``code``: the code its verifications were built with, if other than
    ``snapshot``'s. Returns the ABNs whose record differs from ``snapshot``'s."""
    out.write_bytes(snapshot.read_bytes())
    with duckdb.connect(str(out)) as con:
        abns = [
            r[0] for r in con.execute("select abn from marts.verifications order by abn").fetchall()
        ]
        new, changed, flagged = abns[:2], abns[10:14], abns[20]
        con.execute("delete from marts.verifications where abn in (?, ?)", new)
        con.execute(
            "insert into marts.verifications select * replace ('99999999999' as abn)"
            " from marts.verifications where abn = ?",
            [abns[30]],
        )
        con.execute(
            "update marts.verifications set assurance_score = assurance_score + 1 where abn = ?",
            [changed[0]],
        )
        con.execute(
            "update marts.verifications set abn_status_detail = null, gst_status = 'WARN'"
            " where abn = ?",
            [changed[1]],
        )
        con.execute("update marts.verifications set flags = null where abn = ?", [changed[2]])
        reason = "'another reason'" if new_reason else "gst_reason"
        con.execute(
            f"update marts.verifications set gst_reason = {reason}, entity = null where abn = ?",
            [changed[3]],
        )
        con.execute(
            "insert into marts.risk_flags select * replace (? as abn) from marts.risk_flags"
            " limit 1",
            [flagged],
        )
        if code is None:
            con.execute(
                "update marts.verifications set input_hash = hash(input_hash) where abn in ?",
                [[*changed, flagged]],
            )
        else:
            con.execute(
                "update meta.snapshot_tables set code_hash = ?"
                " where table_name = 'marts.verifications'",
                [code],
            )
    return [*new, *changed, flagged]


def test_a_lookup_updated_from_last_weeks_holds_what_a_whole_build_holds(
    published: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot, _lookup = published
    last_week = tmp_path / "last-week.duckdb"
    differing = _previous_week(snapshot, last_week)
    last_lookup = tmp_path / "last-week.verify.sqlite"
    build_verify_lookup(last_week, last_lookup)
    assert VerifyLookup(last_lookup).record("99999999999") is not None
    monkeypatch.setattr(lookup_module, "RANGE_ROWS", 3)  # the changed records in 3 ABN ranges
    out = tmp_path / "this-week.verify.sqlite"
    rows = build_verify_lookup(snapshot, out, previous=(last_week, last_lookup))
    with sqlite3.connect(out) as lite:
        meta = dict(lite.execute("select key, value from meta").fetchall())
    assert meta["built"] == "changes"
    assert int(meta["rewritten"]) == len(differing) + 1  # and the one gone
    assert rows == _assert_same_records(snapshot, out)
    assert VerifyLookup(out).record("99999999999") is None
    # built again from that one: nothing differs, the count of rewrites since whole stands
    again = tmp_path / "again.verify.sqlite"
    build_verify_lookup(snapshot, again, previous=(snapshot, out))
    with sqlite3.connect(again) as lite:
        meta = dict(lite.execute("select key, value from meta").fetchall())
    assert (meta["rewritten"], meta["rewritten_since_whole"]) == ("0", str(len(differing) + 1))


def test_a_lookup_compares_every_value_when_the_code_of_verifications_changed(
    published: tuple[Path, Path], tmp_path: Path
) -> None:
    """Under the same code, the ABNs whose verifications input hash changed are the records
    to rewrite; under other code (last week's snapshot records which), the records whose
    values differ, input hashes aside."""
    snapshot, _lookup = published
    last_week = tmp_path / "last-week.duckdb"
    differing = _previous_week(snapshot, last_week, code="older code")
    last_lookup = tmp_path / "last-week.verify.sqlite"
    build_verify_lookup(last_week, last_lookup)
    out = tmp_path / "this-week.verify.sqlite"
    rows = build_verify_lookup(snapshot, out, previous=(last_week, last_lookup))
    with sqlite3.connect(out) as lite:
        meta = dict(lite.execute("select key, value from meta").fetchall())
    assert (meta["built"], int(meta["rewritten"])) == ("changes", len(differing) + 1)
    assert rows == _assert_same_records(snapshot, out)


def test_under_the_same_code_the_input_hashes_say_which_records_to_rewrite(
    published: tuple[Path, Path], tmp_path: Path
) -> None:
    """Both snapshots' verifications built with the same code: the records rewritten are
    those of the ABNs whose input hash changed, not found by hashing every value (a record
    changed under its old input hash, which that code cannot give, is left as it was)."""
    snapshot, _lookup = published
    last_week = tmp_path / "last-week.duckdb"
    differing = _previous_week(snapshot, last_week)
    with duckdb.connect(str(last_week)) as con:
        (unseen,) = con.execute(
            "select abn from marts.verifications where abn not in ? order by abn limit 1",
            [differing],
        ).fetchone()
        con.execute(
            "update marts.verifications set assurance_score = assurance_score + 1 where abn = ?",
            [unseen],
        )
    last_lookup = tmp_path / "last-week.verify.sqlite"
    build_verify_lookup(last_week, last_lookup)
    out = tmp_path / "this-week.verify.sqlite"
    build_verify_lookup(snapshot, out, previous=(last_week, last_lookup))
    with sqlite3.connect(out) as lite:
        meta = dict(lite.execute("select key, value from meta").fetchall())
    assert (meta["built"], int(meta["rewritten"])) == ("changes", len(differing) + 1)
    assert VerifyLookup(out).record(unseen) == VerifyLookup(last_lookup).record(unseen)


def test_a_lookup_is_built_whole_when_the_reasons_it_indexes_changed(
    published: tuple[Path, Path], tmp_path: Path
) -> None:
    snapshot, _lookup = published
    last_week = tmp_path / "last-week.duckdb"
    _previous_week(snapshot, last_week, new_reason=True)
    last_lookup = tmp_path / "last-week.verify.sqlite"
    build_verify_lookup(last_week, last_lookup)
    out = tmp_path / "this-week.verify.sqlite"
    build_verify_lookup(snapshot, out, previous=(last_week, last_lookup))
    with sqlite3.connect(out) as lite:
        assert dict(lite.execute("select key, value from meta").fetchall())["built"] == "whole"
    _assert_same_records(snapshot, out)
