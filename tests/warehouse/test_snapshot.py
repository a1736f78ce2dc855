"""The serving snapshot: publish, verify in another process, switch, retain, read."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.settings import Settings
from pipelines.warehouse import snapshot
from pipelines.warehouse.connection import connect
from pipelines.warehouse.meta import ensure_meta
from pipelines.warehouse.snapshot import (
    SnapshotError,
    current_snapshot,
    flush,
    list_snapshots,
    open_snapshot,
    publish,
    publish_snapshot,
    verify,
    verify_snapshot,
)

AS_OF = dt.date(2026, 11, 21)
UTC = dt.UTC


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", duckdb_memory_limit="512MB", duckdb_threads=1)


def _build_marts(con: duckdb.DuckDBPyConnection, companies: int = 3) -> None:
    con.execute("create schema if not exists marts")
    con.execute(
        """
        create or replace table marts.companies as
        select lpad(i::varchar, 11, '5') as abn, 'Company ' || i as name
        from range(?) as t(i)
        """,
        [companies],
    )
    con.execute(
        'create or replace table marts."Odd Name" as select 1 as "a column" union all select 2'
    )
    con.execute(
        "create or replace view marts.named_companies as "
        "select * from marts.companies where name like 'Company 1%'"
    )


def _record_loads(con: duckdb.DuckDBPyConnection) -> None:
    ensure_meta(con)
    started = dt.datetime(2026, 11, 20, 1, 0, tzinfo=UTC)
    loads = [
        # source, load id, status, finished, extract date
        ("abr", "abr-1", "loaded", started, dt.date(2026, 11, 1)),
        ("abr", "abr-2", "loaded", started + dt.timedelta(days=1), dt.date(2026, 11, 15)),
        ("abr", "abr-3", "failed", started + dt.timedelta(days=2), dt.date(2026, 11, 20)),
        ("abr", "abr-4", "unchanged", started + dt.timedelta(days=3), dt.date(2026, 11, 15)),
        ("asic", "asic-1", "loaded", started, dt.date(2026, 11, 18)),
    ]
    for source, load_id, status, finished, extract_date in loads:
        con.execute(
            "insert into meta.loads (load_id, source, status, started_at, finished_at, "
            "extract_date) values (?, ?, ?, ?, ?, ?)",
            [load_id, source, status, finished - dt.timedelta(minutes=5), finished, extract_date],
        )
    files = [
        ("abr-1", "abr", "old.zip!a.xml", "aa" * 32, 10),
        ("abr-2", "abr", "public_split_1.zip!p1.xml", "b1" * 32, 1000),
        ("abr-2", "abr", "public_split_2.zip!p2.xml", "b2" * 32, 2000),
        ("asic-0", "asic", "of_no_successful_load.csv", "cc" * 32, 1),
        ("asic-1", "asic", "COMPANY_202611.csv", "dd" * 32, 500),
    ]
    for load_id, source, file_name, sha, rows in files:
        con.execute(
            "insert into meta.manifest (load_id, source, file_name, path, size_bytes, sha256, "
            "rows, quarantined) values (?, ?, ?, ?, ?, ?, ?, 0)",
            [load_id, source, file_name, f"/landing/{file_name}", rows * 10, sha, rows],
        )


@pytest.fixture
def writer(settings: Settings) -> Iterator[duckdb.DuckDBPyConnection]:
    """The pipeline's one read-write warehouse connection, with marts and load bookkeeping."""
    con = connect(settings)
    _build_marts(con)
    _record_loads(con)
    yield con
    con.close()


def _snapshot_names(settings: Settings) -> list[str]:
    return sorted(p.name for p in snapshot.snapshots_dir(settings).iterdir())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- publishing ----------------------------------------------------------------------------


def test_publish_writes_snapshot_file_and_points_current_at_it(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)

    assert snapshot.is_snapshot_id(info.snapshot_id)
    assert info.path == settings.serving_dir / "snapshots" / f"{info.snapshot_id}.duckdb"
    assert info.path.is_file()
    # the tables with their row counts; a view by name only (counting it would run it)
    assert info.tables == {"marts.Odd Name": 2, "marts.companies": 3}
    assert info.views == ("marts.named_companies",)
    assert _snapshot_names(settings) == [info.path.name]  # no temp file, no WAL left
    assert current_snapshot(settings) == info
    pointer = json.loads((settings.serving_dir / "CURRENT").read_text())
    assert pointer["file"] == f"snapshots/{info.snapshot_id}.duckdb"

    with open_snapshot(settings) as con:
        assert con.execute("select count(*) from marts.companies").fetchone() == (3,)
        assert con.execute('select sum("a column") from marts."Odd Name"').fetchone() == (3,)
        kinds = con.execute(
            "select table_name, table_type from information_schema.tables "
            "where table_schema = 'marts' order by table_name"
        ).fetchall()
    # the view is recreated over the snapshot's own copy: it stands alone, nothing refers
    # back to the warehouse (dropped there, the snapshot's view still answers)
    assert kinds == [
        ("Odd Name", "BASE TABLE"),
        ("companies", "BASE TABLE"),
        ("named_companies", "VIEW"),
    ]
    writer.execute("drop view marts.named_companies")
    writer.execute("drop table marts.companies")
    with open_snapshot(settings) as con:
        assert con.execute("select name from marts.named_companies").fetchall() == [("Company 1",)]


def test_snapshot_metadata_records_build_as_of_row_counts_and_source_files(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)

    with open_snapshot(settings) as con:
        meta_rows = con.execute(
            "select snapshot_id, built_at, as_of, row_counts, views from meta.snapshot"
        ).fetchall()
        sources = con.execute(
            "select source, load_id, extract_date, file_name, sha256, rows "
            "from meta.sources order by source, file_name"
        ).fetchall()

    assert len(meta_rows) == 1
    snapshot_id, built_at, as_of, row_counts, views = meta_rows[0]
    assert snapshot_id == info.snapshot_id
    assert built_at.astimezone(UTC) == info.built_at
    assert abs(dt.datetime.now(UTC) - built_at) < dt.timedelta(minutes=1)
    assert as_of == AS_OF
    assert json.loads(row_counts) == info.tables
    assert json.loads(views) == ["marts.named_companies"]
    assert snapshot.read_snapshot_info(info.path) == dataclasses.replace(info, sidecars={})
    # the last *successful* load per source (not the failed or unchanged ones), file by file
    assert sources == [
        ("abr", "abr-2", dt.date(2026, 11, 15), "public_split_1.zip!p1.xml", "b1" * 32, 1000),
        ("abr", "abr-2", dt.date(2026, 11, 15), "public_split_2.zip!p2.xml", "b2" * 32, 2000),
        ("asic", "asic-1", dt.date(2026, 11, 18), "COMPANY_202611.csv", "dd" * 32, 500),
    ]


def test_publish_tolerates_a_warehouse_without_load_bookkeeping(settings: Settings) -> None:
    with connect(settings) as con:
        _build_marts(con)
        info = publish_snapshot(con, settings, as_of=AS_OF)
    with open_snapshot(settings) as con:
        assert con.execute("select count(*) from meta.sources").fetchone() == (0,)
        assert con.execute("select snapshot_id from meta.snapshot").fetchone() == (
            info.snapshot_id,
        )


def test_publish_copies_extra_tables(writer: duckdb.DuckDBPyConnection, settings: Settings) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF, extra_tables=["meta.loads"])
    assert info.tables["meta.loads"] == 5
    with open_snapshot(settings) as con:
        assert con.execute("select count(*) from meta.loads").fetchone() == (5,)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"schemas": ("marts", "nowhere")}, "schema 'nowhere' not found in the warehouse"),
        ({"extra_tables": ["meta.nothing"]}, "extra table 'meta.nothing' not found"),
        ({"extra_tables": ["loads"]}, "not a qualified name"),
        ({"extra_tables": ["meta.snapshot"]}, "reserved"),
    ],
)
def test_publish_refuses_missing_or_bad_tables(
    writer: duckdb.DuckDBPyConnection,
    settings: Settings,
    kwargs: dict[str, object],
    message: str,
) -> None:
    with pytest.raises(SnapshotError, match=message):
        publish_snapshot(writer, settings, as_of=AS_OF, **kwargs)  # type: ignore[arg-type]
    assert current_snapshot(settings) is None
    assert _snapshot_names(settings) == []


def test_publishing_without_marts_schema_is_a_clear_error(settings: Settings) -> None:
    with connect(settings) as con:
        ensure_meta(con)
        with pytest.raises(SnapshotError, match=r"schema 'marts' not found.*dbt build"):
            publish_snapshot(con, settings, as_of=AS_OF)
        con.execute("create schema marts")
        with pytest.raises(SnapshotError, match="'marts' in the warehouse has no tables"):
            publish_snapshot(con, settings, as_of=AS_OF)
    assert current_snapshot(settings) is None
    assert _snapshot_names(settings) == []


def test_publish_cleans_leftovers_of_an_interrupted_publish(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    directory = snapshot.snapshots_dir(settings)
    directory.mkdir(parents=True)
    (directory / "20261120T010000000Z-dead.duckdb.tmp").write_bytes(b"half a file")
    (directory / "20261120T010000000Z-dead.duckdb.tmp.wal").write_bytes(b"wal")
    (directory / "README").write_text("not ours")

    info = publish_snapshot(writer, settings, as_of=AS_OF)

    assert _snapshot_names(settings) == sorted([info.path.name, "README"])


def test_writer_keeps_working_after_publishing(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    publish_snapshot(writer, settings, as_of=AS_OF)
    # the snapshot is detached: nothing of it is left in the writer's catalog
    assert writer.execute(
        "select count(*) from duckdb_databases() where database_name like 'bvs_snapshot%'"
    ).fetchone() == (0,)
    writer.execute("insert into marts.companies values ('99999999999', 'New')")
    assert publish_snapshot(writer, settings, as_of=AS_OF).tables["marts.companies"] == 4


def comments_of(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str, str], str]:
    """Every comment on a table, view or column of the database ``con`` opened:
    (schema, table or view, column or "") -> text."""
    rows = con.execute(
        """
        select schema_name, table_name, '', comment from duckdb_tables()
        where database_name = current_database() and comment is not null
        union all
        select schema_name, view_name, '', comment from duckdb_views()
        where database_name = current_database() and not internal and comment is not null
        union all
        select schema_name, table_name, column_name, comment from duckdb_columns()
        where database_name = current_database() and comment is not null
        """
    ).fetchall()
    return {(str(s), str(t), str(c)): str(text) for s, t, c, text in rows}


def test_publish_carries_the_warehouse_comments(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """What dbt's persist_docs writes in the warehouse, an analyst reads in the snapshot too:
    on tables, views, their columns and the extra tables, the text as it is."""
    documented = {
        ("marts", "companies", ""): "One row per company.",
        ("marts", "companies", "abn"): "The company's ABN: 11 digits.",
        ("marts", "Odd Name", ""): 'A "quoted" name,\nover two lines',
        ("marts", "Odd Name", "a column"): "",
        ("marts", "named_companies", ""): "The companies named 'Company 1…'.",
        ("marts", "named_companies", "name"): "As registered.",
        ("meta", "loads", ""): "Every load attempt.",
        ("meta", "loads", "load_id"): "The load.",
    }
    for (schema, name, column), text in documented.items():
        kind = "view" if name == "named_companies" and not column else "table"
        target = ".".join(f'"{part}"' for part in (schema, name, column) if part)
        literal = "'" + text.replace("'", "''") + "'"
        writer.execute(f"comment on {'column' if column else kind} {target} is {literal}")
    writer.execute("comment on table meta.manifest is 'not published'")
    assert comments_of(writer) == documented | {("meta", "manifest", ""): "not published"}

    publish_snapshot(writer, settings, as_of=AS_OF, extra_tables=["meta.loads"])

    with open_snapshot(settings) as con:
        assert comments_of(con) == documented
        # a column the warehouse does not document has none
        assert con.execute(
            "select comment from duckdb_columns() "
            "where table_name = 'companies' and column_name = 'name'"
        ).fetchall() == [(None,)]

    # the next snapshot is written into a clone of this one (its tables kept): a comment
    # the warehouse no longer has is gone from it too, a changed one changed
    writer.execute('comment on table marts."Odd Name" is null')
    writer.execute("comment on column marts.companies.abn is null")
    writer.execute("comment on table marts.companies is 'Companies.'")
    info = publish_snapshot(writer, settings, as_of=AS_OF, extra_tables=["meta.loads"])
    assert _written(info.path)["marts.companies"][0] == "kept"
    with open_snapshot(settings) as con:
        assert comments_of(con) == {
            key: text
            for key, text in documented.items()
            if key not in {("marts", "Odd Name", ""), ("marts", "companies", "abn")}
        } | {("marts", "companies", ""): "Companies."}


# --- verification --------------------------------------------------------------------------


@pytest.fixture
def commands(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command lines the snapshot module runs as subprocesses (they still run)."""
    seen: list[list[str]] = []
    real_run = subprocess.run

    def spy(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.append(command)
        return real_run(command, **kwargs)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(verify.subprocess, "run", spy)
    return seen


def test_verify_runs_in_a_separate_read_only_process(
    writer: duckdb.DuckDBPyConnection, settings: Settings, commands: list[list[str]]
) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)

    assert len(commands) == 1
    command = commands[0]
    assert command[:4] == [sys.executable, "-m", "pipelines.warehouse.snapshot", "verify"]
    assert command[4].endswith(f"{info.snapshot_id}.duckdb.tmp")  # checked before it is named
    assert json.loads(command[5]) == info.tables
    assert command[6:8] == ["--views", json.dumps(["marts.named_companies"])]


def test_verify_reports_every_mismatch(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)
    views = info.views
    verify_snapshot(info.path, info.tables, snapshot_id=info.snapshot_id, views=views)  # passes

    wrong = dict(info.tables) | {"marts.companies": 4, "marts.ghosts": 1}
    del wrong["marts.Odd Name"]
    with pytest.raises(SnapshotError) as caught:
        verify_snapshot(info.path, wrong, snapshot_id="someone-else", views=views)
    message = str(caught.value)
    assert "marts.companies has 3 rows, expected 4" in message
    assert "tables missing: marts.ghosts" in message
    assert "unexpected tables: marts.Odd Name" in message
    assert "meta.snapshot names" in message
    assert "row_counts differ" in message

    # a view is checked by kind and by binding, not counted
    with pytest.raises(SnapshotError) as caught:
        verify_snapshot(info.path, info.tables | {"marts.named_companies": 1})
    message = str(caught.value)
    assert "marts.named_companies is a view, expected a table" in message
    assert "views differ" in message
    with pytest.raises(SnapshotError, match="marts.companies is a base table, expected a view"):
        verify_snapshot(info.path, {"marts.Odd Name": 2}, views=["marts.companies", *views])


def test_verify_refuses_a_view_that_does_not_bind(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)
    with duckdb.connect(str(info.path)) as con:  # the table the view reads goes missing
        con.execute("alter table marts.companies rename to gone")
    with pytest.raises(SnapshotError, match="view marts.named_companies does not bind"):
        verify_snapshot(
            info.path,
            {"marts.Odd Name": 2, "marts.gone": 3},
            snapshot_id=info.snapshot_id,
            views=info.views,
        )


def test_verify_rejects_a_file_that_is_not_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "garbage.duckdb"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(SnapshotError, match="garbage.duckdb"):
        verify_snapshot(path, {})

    plain = tmp_path / "plain.duckdb"
    with duckdb.connect(str(plain)) as con:
        con.execute("create table t as select 1 as x")
    with pytest.raises(SnapshotError, match="metadata table meta.snapshot is missing"):
        verify_snapshot(plain, {"main.t": 1})


def test_failed_verification_deletes_the_new_file_and_leaves_current_alone(
    writer: duckdb.DuckDBPyConnection, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = publish_snapshot(writer, settings, as_of=AS_OF)
    pointer_before = (settings.serving_dir / "CURRENT").read_bytes()
    real_build = publish.build_snapshot_file

    def build_with_wrong_counts(
        *args: object, **kwargs: object
    ) -> tuple[dict[str, int], tuple[str, ...]]:
        counts, views = real_build(*args, **kwargs)  # type: ignore[arg-type]
        return counts | {"marts.companies": counts["marts.companies"] + 1}, views

    monkeypatch.setattr(publish, "build_snapshot_file", build_with_wrong_counts)
    writer.execute("insert into marts.companies values ('99999999999', 'New')")

    with pytest.raises(SnapshotError, match="marts.companies has 4 rows, expected 5"):
        publish_snapshot(writer, settings, as_of=AS_OF)

    assert (settings.serving_dir / "CURRENT").read_bytes() == pointer_before
    assert current_snapshot(settings) == first
    assert _snapshot_names(settings) == [first.path.name]
    with open_snapshot(settings) as con:
        assert con.execute("select count(*) from marts.companies").fetchone() == (3,)


def test_main_verify_exit_codes(writer: duckdb.DuckDBPyConnection, settings: Settings) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)
    views = ["--views", json.dumps(info.views)]
    assert snapshot.main(["verify", str(info.path), json.dumps(info.tables), *views]) == 0
    assert snapshot.main(["verify", str(info.path), json.dumps(info.tables)]) == 1
    assert snapshot.main(["verify", str(info.path), json.dumps({"marts.companies": 3})]) == 1
    assert snapshot.main(["verify", str(info.path), "[1, 2]"]) == 1


# --- the pointer -----------------------------------------------------------------------------


def test_no_snapshot_yet(settings: Settings) -> None:
    assert current_snapshot(settings) is None
    assert list_snapshots(settings) == []
    with pytest.raises(SnapshotError, match="no serving snapshot published yet"):
        open_snapshot(settings)


def test_unreadable_pointer_is_a_clear_error(settings: Settings) -> None:
    settings.serving_dir.mkdir(parents=True)
    (settings.serving_dir / "CURRENT").write_text("{not json")
    with pytest.raises(SnapshotError, match="serving pointer .* is unreadable"):
        current_snapshot(settings)


def test_pointer_switch_is_atomic_for_concurrent_readers(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    published = [publish_snapshot(writer, settings, as_of=AS_OF).snapshot_id]
    seen: set[str] = set()
    errors: list[BaseException] = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            try:
                info = current_snapshot(settings)
                assert info is not None
                seen.add(info.snapshot_id)
                time.sleep(0.0005)
            except BaseException as exc:  # reported to the test thread
                errors.append(exc)
                return

    reader = threading.Thread(target=poll)
    reader.start()
    try:
        for _ in range(4):
            published.append(publish_snapshot(writer, settings, as_of=AS_OF).snapshot_id)
    finally:
        stop.set()
        reader.join()

    assert errors == []  # never a missing, empty or half-written pointer
    assert seen <= set(published)
    assert len(seen) > 1  # the reader did see the pointer move


def test_a_failed_pointer_write_leaves_the_old_pointer(
    writer: duckdb.DuckDBPyConnection, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = publish_snapshot(writer, settings, as_of=AS_OF)
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == "CURRENT":
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="disk full"):
        publish_snapshot(writer, settings, as_of=AS_OF)

    assert current_snapshot(settings) == first
    assert sorted(p.name for p in settings.serving_dir.iterdir()) == ["CURRENT", "snapshots"]


# --- retention and readers --------------------------------------------------------------------


def test_keeps_the_last_three_and_an_open_reader_survives_deletion(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    first = publish_snapshot(writer, settings, as_of=AS_OF)
    reader = open_snapshot(settings)  # the API, holding snapshot A open
    try:
        later = []
        for n in (10, 20, 30):
            _build_marts(writer, companies=n)
            later.append(publish_snapshot(writer, settings, as_of=AS_OF))
            if len(later) == 1:
                b_hash = _sha256(later[0].path)

        assert not first.path.exists()  # A was the oldest of four
        assert _snapshot_names(settings) == [info.path.name for info in later]
        assert [info.snapshot_id for info in list_snapshots(settings)] == [
            info.snapshot_id for info in later
        ]
        assert current_snapshot(settings) == later[-1]
        assert _sha256(later[0].path) == b_hash  # published files are never written again
        # the old reader still answers from A, whose file is gone
        assert reader.execute("select count(*) from marts.companies").fetchone() == (3,)
        assert reader.execute("select snapshot_id from meta.snapshot").fetchone() == (
            first.snapshot_id,
        )
    finally:
        reader.close()
    # a fresh open picks up the newest one without any restart
    with open_snapshot(settings) as con:
        assert con.execute("select count(*) from marts.companies").fetchone() == (30,)


def test_retention_never_deletes_the_current_snapshot(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    keep_one = settings.model_copy(update={"snapshots_kept": 1})
    old = publish_snapshot(writer, keep_one, as_of=AS_OF)
    # a file whose id sorts after the real ones (a clock that went backwards, say)
    future = snapshot.snapshots_dir(keep_one) / "29991231T235959999Z-ffff.duckdb"
    future.write_bytes(old.path.read_bytes())

    info = publish_snapshot(writer, keep_one, as_of=AS_OF)

    assert current_snapshot(keep_one) == info
    assert _snapshot_names(keep_one) == sorted([info.path.name, future.name])


_CHILD_READER = """
import sys
from pipelines.settings import get_settings
from pipelines.warehouse.snapshot import open_snapshot

con = open_snapshot(get_settings())
print("open", con.execute("select snapshot_id from meta.snapshot").fetchone()[0], flush=True)
for line in sys.stdin:
    if line.strip() == "stop":
        break
    row = con.execute("select snapshot_id, count(*) from meta.snapshot, marts.companies group by 1")
    print("read", *row.fetchone(), flush=True)
con.close()
"""


def test_a_reader_in_another_process_keeps_working_while_new_snapshots_are_published(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    first = publish_snapshot(writer, settings, as_of=AS_OF)
    env = dict(os.environ, BVS_DATA_DIR=str(settings.data_dir))
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD_READER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline().split() == ["open", first.snapshot_id]
        newest = first
        for n in (5, 6, 7):  # the third one deletes the file the child has open
            _build_marts(writer, companies=n)
            newest = publish_snapshot(writer, settings, as_of=AS_OF)
            child.stdin.write("read\n")
            child.stdin.flush()
            assert child.stdout.readline().split() == ["read", first.snapshot_id, "3"]
        assert not first.path.exists()
        child.stdin.write("stop\n")
        child.stdin.flush()
        assert child.wait(timeout=30) == 0, child.stderr.read() if child.stderr else ""
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert newest.tables["marts.companies"] == 7


@pytest.mark.parametrize("every", [0.05, 0])
def test_files_being_published_are_flushed_as_they_are_written(
    tmp_path: Path, every: float, evict: Callable[..., None]
) -> None:
    """Unwritten data does not pile up: a flushed file's pages are clean, so the kernel can
    drop them (``POSIX_FADV_DONTNEED`` drops clean pages only); without the flusher they
    stay dirty in memory."""
    from pipelines.serving.preload import resident_bytes

    probe = tmp_path / "probe"
    probe.write_bytes(os.urandom(1 << 20))
    evict(probe)  # skips on a file system that keeps files in memory
    path = tmp_path / "20261120T000000Z-abc.duckdb.tmp"
    other = tmp_path / "another.duckdb.tmp"  # not this publish's: never flushed
    with flush.flushed_as_written(tmp_path, "20261120T000000Z-abc", every):
        for file in (path, other):
            with open(file, "wb") as handle:
                handle.write(os.urandom(8 * 1024 * 1024))
        time.sleep(0.3)
        for file in (path, other):
            fd = os.open(file, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        # `other` is the control: nothing of ours flushes it, so if any of it was dropped the
        # kernel wrote back on its own (a busy disk does within the 0.3 s), and a dropped
        # `path` would prove nothing
        if resident_bytes(other) < other.stat().st_size or (
            0 < resident_bytes(path) < path.stat().st_size
        ):
            pytest.skip("the kernel wrote part of the files back on its own")
        assert (resident_bytes(path) == 0) is (every > 0)


def test_publish_threads_apply_while_publishing_only(
    writer: duckdb.DuckDBPyConnection, settings: Settings, commands: list[list[str]]
) -> None:
    """``publish_threads`` caps DuckDB's threads for the whole publish (the writer's
    connection, the verify subprocess, the sidecar builders), then the pipeline's own
    setting is back on its connection."""
    writer.execute("set threads = 2")
    seen: list[tuple[int, int]] = []

    def spy(
        snapshot_path: Path, out_path: Path, *, threads: int = 0, previous: object = None
    ) -> int:  # in the publish
        seen.append(
            (int(writer.execute("select current_setting('threads')").fetchone()[0]), threads)
        )
        out_path.write_bytes(b"")
        return 0

    settings.publish_threads = 1
    publish_snapshot(writer, settings, as_of=AS_OF, sidecars={"probe": spy})
    assert seen == [(1, 1)]  # the writer's connection and the sidecar builder both capped
    assert commands[0][-2:] == ["--threads", "1"]
    assert writer.execute("select current_setting('threads')").fetchone()[0] == 2


def test_a_sidecar_builder_is_given_the_current_snapshot_and_its_sidecar(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """So that it can start from them (the verify lookup rewrites only what changed)."""
    given: list[tuple[Path, Path] | None] = []

    def builder(
        snapshot_path: Path,
        out_path: Path,
        *,
        threads: int = 0,
        previous: tuple[Path, Path] | None = None,
    ) -> int:
        given.append(previous)
        out_path.write_bytes(snapshot_path.name.encode())
        return 0

    first = publish_snapshot(writer, settings, as_of=AS_OF, sidecars={"probe": builder})
    second = publish_snapshot(writer, settings, as_of=AS_OF, sidecars={"probe": builder})
    assert given == [None, (first.path, first.sidecars["probe"])]
    assert second.sidecars["probe"].read_bytes().startswith(second.snapshot_id.encode())


def test_the_publish_says_where_its_time_went(
    writer: duckdb.DuckDBPyConnection, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Its stages' seconds in the result (the asset's metadata), each table's in
    meta.snapshot_tables, and one log line on the file's with the slowest tables."""

    def slow_builder(
        snapshot_path: Path,
        out_path: Path,
        *,
        threads: int = 0,
        previous: tuple[Path, Path] | None = None,
    ) -> int:
        time.sleep(0.3)
        out_path.write_bytes(b"probe")
        return 0

    keys = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    writer.execute("update marts.entities set name = 'Renamed' where abn = '50000000007'")
    writer.execute("insert into marts.companies values ('12345678901', 'Another')")
    with caplog.at_level("INFO", logger="pipelines.warehouse.snapshot"):
        info = publish_snapshot(
            writer, settings, as_of=AS_OF, keys=keys, sidecars={"probe": slow_builder}
        )

    assert list(info.seconds) == ["file", "check", "sidecar probe", "made current"]
    assert 0.3 <= info.seconds["sidecar probe"] < 0.3 + 5
    assert all(value >= 0 for value in info.seconds.values())
    with duckdb.connect(str(info.path), read_only=True) as con:
        tables = dict(
            con.execute("select table_name, seconds from meta.snapshot_tables").fetchall()
        )
    assert set(tables) == set(info.tables)
    # every table was looked at (kept ones compared, the others written): none took no time,
    # and together they took no longer than the file did
    assert all(seconds > 0 for seconds in tables.values()), tables
    assert sum(tables.values()) <= info.seconds["file"]
    lines = [r.getMessage() for r in caplog.records if "written in" in r.getMessage()]
    assert len(lines) == 1 and lines[0].startswith(f"snapshot {info.snapshot_id} written in")
    assert "to commit; the slowest tables: " in lines[0]
    assert "marts.companies (copied)" in lines[0]


def test_the_verify_subprocess_reads_with_the_threads_it_is_given(
    writer: duckdb.DuckDBPyConnection, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = publish_snapshot(writer, settings, as_of=AS_OF)
    opened: list[int] = []
    real_connect = duckdb.connect

    def connect(*args: object, **kwargs: object) -> duckdb.DuckDBPyConnection:
        con = real_connect(*args, **kwargs)  # type: ignore[arg-type]
        opened.append(int(con.execute("select current_setting('threads')").fetchone()[0]))
        return con

    monkeypatch.setattr(verify.duckdb, "connect", connect)
    expected = json.dumps(info.tables)
    argv = ["verify", str(info.path), expected, "--snapshot-id", info.snapshot_id]
    argv += ["--views", json.dumps(info.views)]
    assert snapshot.main([*argv, "--threads", "1"]) == 0
    assert snapshot.main(argv) == 0
    assert opened[0] == 1
    assert (
        opened[1]
        == duckdb.connect(":memory:").execute("select current_setting('threads')").fetchone()[0]
    )  # DuckDB's default (the machine's cores)


# --- a week's snapshot written from the current one ------------------------------------------

NEXT_WEEK = AS_OF + dt.timedelta(days=7)


def _build_week_marts(con: duckdb.DuckDBPyConnection, as_of: dt.date) -> None:
    """Marts shaped like the real ones: a table per ABN with a key and the as-of date stamped
    on every row, a table without a key, a view."""
    con.execute("create schema if not exists marts")
    con.execute(
        """
        create or replace table marts.entities as
        select (50000000000 + i)::varchar as abn, 'Company ' || i as name, i % 7 as grp,
            ?::date as as_of_date
        from range(100) as t(i)
        """,
        [as_of],
    )
    con.execute("create or replace table marts.flags as select 'A' as flag union all select 'B'")
    con.execute("create or replace view marts.grp_3 as select * from marts.entities where grp = 3")


def _written(path: Path) -> dict[str, tuple[str, str, int, int]]:
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "select table_name, method, reason, rows_written, rows_written_since_copy"
            " from meta.snapshot_tables"
        ).fetchall()
    return {name: (method, reason, rows, since) for name, method, reason, rows, since in rows}


def _differing_rows(writer: duckdb.DuckDBPyConnection, path: Path) -> dict[str, int]:
    """Rows that differ between each warehouse table and its copy in the snapshot at ``path``."""
    writer.execute(f"attach '{path}' as published (read_only)")
    try:
        tables = writer.execute(
            "select schema_name, table_name from duckdb_tables() "
            "where database_name = 'published' and schema_name <> 'meta'"
        ).fetchall()
        differing = {}
        for schema, table in tables:
            relation = f'"{schema}"."{table}"'
            differing[f"{schema}.{table}"] = writer.execute(
                f"select count(*) from ((select * from {relation} except all select * from "
                f"published.{relation}) union all (select * from published.{relation} "
                f"except all select * from {relation}))"
            ).fetchall()[0][0]
        return differing
    finally:
        writer.execute("detach published")


def test_a_weeks_snapshot_is_the_current_one_with_only_what_changed_written(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    keys = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    first = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert {method for method, *_ in _written(first.path).values()} == {"copied"}
    assert _written(first.path)["marts.entities"][1] == "there is no current snapshot"

    # the next week: every row's as-of date moves, one name changes, one ABN goes, one comes,
    # a new table appears, a table without a key changes, one does not
    _build_week_marts(writer, NEXT_WEEK)
    writer.execute("update marts.entities set name = 'Renamed' where abn = '50000000007'")
    writer.execute("delete from marts.entities where abn = '50000000008'")
    writer.execute("insert into marts.entities values ('99999999999', 'New', 3, ?)", [NEXT_WEEK])
    writer.execute("insert into marts.companies values ('12345678901', 'Another')")
    writer.execute("create table marts.added as select 1 as n")
    second = publish_snapshot(writer, settings, as_of=NEXT_WEEK, keys=keys)

    written = _written(second.path)
    assert written["marts.entities"] == ("updated", "3 of 100 keys changed", 3, 3)
    assert written["marts.flags"] == ("kept", "no row changed", 0, 0)
    assert written["marts.Odd Name"][0] == "kept"
    assert written["marts.companies"] == ("copied", "it changed and has no key", 4, 0)
    assert written["marts.added"] == ("copied", "not in the current snapshot", 1, 0)
    assert set(written) == set(second.tables)
    assert set(_differing_rows(writer, second.path).values()) == {0}
    with open_snapshot(settings) as con:
        assert con.execute("select count(*), min(as_of_date) from marts.grp_3").fetchone() == (
            15,
            NEXT_WEEK,
        )
    # the clone reused the blocks it dropped: the file did not grow by a copy of itself
    assert second.path.stat().st_size < 1.5 * first.path.stat().st_size

    # a third week: the rows rewritten since the table was last copied whole add up
    writer.execute("update marts.entities set name = 'Again' where abn = '50000000009'")
    third = publish_snapshot(writer, settings, as_of=NEXT_WEEK, keys=keys)
    assert _written(third.path)["marts.entities"] == ("updated", "1 of 100 keys changed", 1, 4)


def _row_groups(path: Path, table: str) -> list[int]:
    """The rows each row group of ``table`` in the file at ``path`` holds, deleted ones too."""
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(
            "select list(n order by row_group_id) from ("
            " select row_group_id, max(start + count) - min(start) as n"
            " from pragma_storage_info(?) where column_id = 0 group by 1)",
            [table],
        ).fetchone()[0]


def test_an_update_leaves_the_row_groups_it_did_not_write_alone(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """No vacuum while publishing: a vacuum would merge the row groups holding the deleted
    rows and rewrite every row in them; the inserted rows go into a row group of their own.
    The writer's own setting is back afterwards."""
    writer.execute("set max_vacuum_tasks = 7")
    writer.execute("create schema if not exists marts")
    writer.execute(
        "create table marts.names as select i as k, 'name ' || i as v from range(250000) t(i)"
    )
    keys = {"marts.names": ("k",)}
    publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    # 20,834 of 250,000 keys (8 %, under the share that copies a table whole), spread over
    # every row group: with a vacuum, the second and third row groups would become one
    writer.execute("update marts.names set v = 'renamed ' || k where k % 12 = 0")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)

    assert _written(info.path)["marts.names"][:2] == ("updated", "20834 of 250000 keys changed")
    with duckdb.connect(str(info.path), read_only=True) as con:
        assert con.execute("select count(*), count(distinct k) from marts.names").fetchone() == (
            250000,
            250000,
        )
    assert _row_groups(info.path, "marts.names") == [122880, 122880, 4240, 20834]
    assert set(_differing_rows(writer, info.path).values()) == {0}
    assert writer.execute("select current_setting('max_vacuum_tasks')").fetchone()[0] == 7

    # nor in the next week's publish, whose clone holds those deleted rows: its checkpoint
    # after dropping what it writes again leaves them where they are
    writer.execute("update marts.names set v = 'again ' || k where k % 1000 = 1")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.names"][:2] == ("updated", "250 of 250000 keys changed")
    assert _row_groups(info.path, "marts.names")[:4] == [122880, 122880, 4240, 20834]
    assert set(_differing_rows(writer, info.path).values()) == {0}
    assert writer.execute("select current_setting('max_vacuum_tasks')").fetchone()[0] == 7


def test_a_table_with_many_changed_keys_is_copied_whole(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    keys = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    writer.execute("update marts.entities set name = name || '!' where grp = 0")  # 15 rows
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"][:2] == ("copied", "15 of 100 keys changed")
    assert _differing_rows(writer, info.path)["marts.entities"] == 0

    # a few keys a week, until the weeks since the last whole copy add up to too many
    six = "grp = 1 and abn < '50000000040'"
    writer.execute(f"update marts.entities set name = 'x' where {six}")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"][:2] == ("updated", "6 of 100 keys changed")
    writer.execute(f"update marts.entities set name = 'y' where {six}")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"][:2] == (
        "copied",
        "12 rows rewritten since it was copied whole, of 100",
    )
    assert _differing_rows(writer, info.path)["marts.entities"] == 0


def test_a_key_that_is_null_in_some_rows_is_updated_by_it(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """A key column may be null in some rows (``match_business_names``' state number): the
    keys are compared null-safe, as the table's uniqueness test groups them, so the rows of
    a key with a null are found, deleted and written like any other."""
    keys = {"marts.entities": ("abn", "grp")}
    _build_week_marts(writer, AS_OF)
    writer.execute(
        "update marts.entities set grp = null where abn in ('50000000001', '50000000002')"
    )
    publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    writer.execute("update marts.entities set name = 'Changed' where abn = '50000000001'")
    writer.execute("delete from marts.entities where abn = '50000000002'")
    writer.execute("insert into marts.entities values ('99999999999', 'New', null, ?)", [AS_OF])
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"] == ("updated", "3 of 100 keys changed", 3, 3)
    assert _differing_rows(writer, info.path)["marts.entities"] == 0


def test_an_update_that_does_not_give_the_warehouses_table_is_copied_whole(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """A key that is not the table's grain (a row repeated, so two rows hold its key) pairs
    the rows across and can miss a change: the update is checked against the warehouse's
    table by its row count, and the table copied whole instead."""
    keys = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    writer.execute(
        "insert into marts.entities select * from marts.entities where abn = '50000000001'"
    )
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"][:2] == (
        "copied",
        "an update did not give the warehouse's table",
    )
    assert _differing_rows(writer, info.path)["marts.entities"] == 0


def test_a_table_with_input_hashes_is_compared_on_them(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """An incrementally built table's changed keys are those whose ``input_hash`` changed;
    a row that changed under the same input hash (the model's code changed) is caught by
    the check after the update, and the table copied whole."""
    keys = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    writer.execute("alter table marts.entities add column input_hash ubigint")
    writer.execute("update marts.entities set input_hash = hash(abn, name)")
    publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)

    # two rows changed, one of them with its input hash: the plan names that one only, and
    # the other is found by the check
    writer.execute(
        "update marts.entities set name = 'Renamed', input_hash = hash(abn, 'Renamed')"
        " where abn = '50000000007'"
    )
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"] == ("updated", "1 of 100 keys changed", 1, 1)
    writer.execute("update marts.entities set name = 'Recoded' where abn = '50000000009'")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"][:2] == (
        "copied",
        "an update did not give the warehouse's table",
    )
    assert _differing_rows(writer, info.path)["marts.entities"] == 0


def test_an_input_hash_under_the_code_the_snapshot_recorded_is_not_checked_again(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """The snapshot records the code each table was built with (the warehouse's
    ``meta.model_versions``). Under the same code, rows with the same input hash are the
    same rows, so the update is not compared with the warehouse's whole table; under new
    code it is, and a row changed under its old input hash is found."""
    keys = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    writer.execute("alter table marts.entities add column input_hash ubigint")
    writer.execute("update marts.entities set input_hash = hash(abn, name)")
    writer.execute(
        "create table meta.model_versions"
        " (model varchar primary key, code_hash varchar not null, built_at timestamp not null)"
    )
    writer.execute("insert into meta.model_versions values ('entities', 'v1', now())")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)

    def recorded(path: Path) -> str | None:
        with duckdb.connect(str(path), read_only=True) as con:
            (code,) = con.execute(
                "select code_hash from meta.snapshot_tables where table_name = 'marts.entities'"
            ).fetchone()
        return code

    assert recorded(info.path) == "v1"

    # new code: a row changed under its old input hash is found by the whole comparison
    writer.execute("update meta.model_versions set code_hash = 'v2'")
    writer.execute("update marts.entities set name = 'Recoded' where abn = '50000000009'")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"][:2] == (
        "copied",
        "an update did not give the warehouse's table",
    )
    assert recorded(info.path) == "v2"
    assert _differing_rows(writer, info.path)["marts.entities"] == 0

    # the same code: the input hashes are taken at their word, the update checked by counts
    writer.execute(
        "update marts.entities set name = 'Renamed', input_hash = hash(abn, 'Renamed')"
        " where abn = '50000000007'"
    )
    writer.execute("update marts.entities set name = 'Unseen' where abn = '50000000011'")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(info.path)["marts.entities"] == ("updated", "1 of 100 keys changed", 1, 1)
    assert _differing_rows(writer, info.path)["marts.entities"] == 2  # 50000000011, each side


def test_a_table_whose_builds_recorded_the_keys_they_wrote_is_compared_on_them(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """The keys a build wrote since the current snapshot was published
    (``meta.<table>__unpublished_keys``, its column the table's own, not necessarily its
    publish key) are the changed keys: the rows of those keys on either side, no row hashed.
    A publish empties the records and names itself as what they count from; a record with
    a whole build in it (a null key), or counting from another snapshot, is not used."""
    keys = {"marts.entities": ("abn",), "marts.names": ("name_id",)}
    _build_week_marts(writer, AS_OF)
    writer.execute(
        "create table marts.names as select row_number() over (order by abn) * 10 as name_id,"
        " abn, name from marts.entities"
    )
    first = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert writer.execute("select snapshot_id from meta.unpublished_keys_since").fetchall() == [
        (first.snapshot_id,)
    ]

    # what a week's builds do: rows rewritten for some ABNs, each recorded
    writer.execute("create table meta.entities__unpublished_keys (abn varchar)")
    writer.execute("create table meta.names__unpublished_keys (abn varchar)")
    writer.execute("update marts.entities set name = 'Renamed' where abn = '50000000007'")
    writer.execute("delete from marts.entities where abn = '50000000008'")
    writer.execute(
        "insert into meta.entities__unpublished_keys values ('50000000007'), ('50000000008')"
    )
    writer.execute("delete from marts.names where abn in ('50000000007', '50000000008')")
    writer.execute("insert into marts.names values (75, '50000000007', 'Renamed')")
    writer.execute(
        "insert into meta.names__unpublished_keys values ('50000000007'), ('50000000008')"
    )
    # a row no build recorded is not looked for: the records are taken at their word
    writer.execute("update marts.entities set name = 'Unseen' where abn = '50000000011'")
    second = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)

    written = _written(second.path)
    by_records = "keys changed, found by the keys the builds wrote"
    assert written["marts.entities"] == ("updated", f"2 of 99 {by_records}", 2, 2)
    # name ids 70 and 80 gone, 75 new
    assert written["marts.names"] == ("updated", f"3 of 99 {by_records}", 3, 3)
    differing = _differing_rows(writer, second.path)
    assert differing.pop("marts.entities") == 2  # 50000000011, on each side
    assert set(differing.values()) == {0}
    assert writer.execute("select count(*) from meta.entities__unpublished_keys").fetchall() == [
        (0,)
    ]
    assert writer.execute("select snapshot_id from meta.unpublished_keys_since").fetchall() == [
        (second.snapshot_id,)
    ]

    # a whole build since: every row compared
    writer.execute("insert into meta.entities__unpublished_keys values (null)")
    third = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(third.path)["marts.entities"][:2] == ("updated", "1 of 99 keys changed")
    assert _differing_rows(writer, third.path)["marts.entities"] == 0

    # records that count from another snapshot than the current one: not used
    writer.execute("update meta.unpublished_keys_since set snapshot_id = 'another'")
    writer.execute("update marts.entities set name = 'Again' where abn = '50000000013'")
    writer.execute("insert into meta.entities__unpublished_keys values ('50000000007')")
    fourth = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert _written(fourth.path)["marts.entities"][:2] == ("updated", "1 of 99 keys changed")
    assert _differing_rows(writer, fourth.path)["marts.entities"] == 0


def test_an_unreadable_current_snapshot_is_not_cloned(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    first = publish_snapshot(writer, settings, as_of=AS_OF)
    os.chmod(first.path, 0o600)
    first.path.write_bytes(b"not a DuckDB file" * 1000)
    info = publish_snapshot(writer, settings, as_of=AS_OF)
    reasons = {reason for _method, reason, *_ in _written(info.path).values()}
    assert len(reasons) == 1 and reasons.pop().startswith("the current snapshot")
    assert set(_differing_rows(writer, info.path).values()) == {0}


def test_a_table_with_an_order_is_copied_in_it_then_updated_with_one_run_after_it(
    writer: duckdb.DuckDBPyConnection, settings: Settings
) -> None:
    """A table stored in an order (``publish_order``: the search index) is copied whole in
    that order whatever the warehouse's. A week's update deletes the changed keys' rows and
    writes them, with the rows every earlier update wrote, as one run in that order after
    the sorted one, so a lookup reads at most one run more. Without a key, or with no
    record of where its sorted run ends, it is copied whole in its order."""
    keys = {"marts.entities": ("abn",)}
    orders = {"marts.entities": ("abn",)}
    _build_week_marts(writer, AS_OF)
    # rows out of order, as in a warehouse table a week appended to
    writer.execute(
        "create or replace table marts.entities as from marts.entities order by abn desc"
    )
    abns = [r[0] for r in writer.execute("select abn from marts.entities order by abn").fetchall()]

    def stored(path: Path) -> list[str]:
        with duckdb.connect(str(path), read_only=True) as con:
            rows = con.execute("select abn from marts.entities order by rowid").fetchall()
        return [abn for (abn,) in rows]

    def sorted_rows(path: Path) -> int | None:
        with duckdb.connect(str(path), read_only=True) as con:
            return con.execute(
                "select sorted_rows from meta.snapshot_tables where table_name = ?",
                ["marts.entities"],
            ).fetchall()[0][0]

    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys)
    assert stored(info.path) == abns[::-1]
    assert sorted_rows(info.path) is None  # not stored in an order
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys, orders=orders)
    assert _written(info.path)["marts.entities"][:2] == (
        "copied",
        "stored in its order, its sorted run not recorded",
    )
    assert stored(info.path) == abns
    assert sorted_rows(info.path) == 100

    # a week: two names change; their rows leave the sorted run and follow it, in order
    writer.execute(
        "update marts.entities set name = 'x' where abn in ('50000000050', '50000000007')"
    )
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys, orders=orders)
    assert _written(info.path)["marts.entities"][:3] == ("updated", _reason(2, 0), 2)
    rest = [a for a in abns if a not in ("50000000050", "50000000007")]
    assert stored(info.path) == [*rest, "50000000007", "50000000050"]
    assert sorted_rows(info.path) == 100  # where the run after it begins, in rowids
    # the next week: one more; the run after the sorted one is written again with it
    writer.execute("update marts.entities set name = 'y' where abn = '50000000030'")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys=keys, orders=orders)
    assert _written(info.path)["marts.entities"][:3] == ("updated", _reason(1, 2), 3)
    moved = ("50000000007", "50000000030", "50000000050")
    assert stored(info.path) == [*[a for a in abns if a not in moved], *moved]
    assert _differing_rows(writer, info.path)["marts.entities"] == 0

    # without a key: copied whole, in its order, whenever it changed
    writer.execute("update marts.entities set name = 'z' where abn = '50000000031'")
    info = publish_snapshot(writer, settings, as_of=AS_OF, keys={}, orders=orders)
    assert _written(info.path)["marts.entities"][:2] == (
        "copied",
        "it changed and stored in its order",
    )
    assert stored(info.path) == abns
    assert sorted_rows(info.path) == 100
    assert _differing_rows(writer, info.path)["marts.entities"] == 0


def _reason(changed: int, run: int) -> str:
    return f"{changed} of 100 keys changed, {run} more rows of the run after the sorted one"
