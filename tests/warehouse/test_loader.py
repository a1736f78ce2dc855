"""The loader's promises: atomic replace, quarantine, manifest, no-op reloads, failures keep data."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import duckdb
import pytest

from pipelines.identifiers import abn_from_acn
from pipelines.ingest.sources import SOURCES
from pipelines.settings import Settings
from pipelines.status import collect_status
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.loader import LoadError, load_source
from pipelines.warehouse.snapshot import publish_snapshot
from tests.conftest import abr_file, company_record, individual_record, make_acn

ABR = SOURCES["abr"]


def _landing(settings: Settings) -> Path:
    return settings.landing_dir / "abr"


def _records(n: int, offset: int = 0) -> list[str]:
    return [
        company_record(offset + i, f"COMPANY {offset + i} PTY LTD", trading=[f"SHOP {i}"])
        for i in range(n)
    ]


def _table(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple]:
    return con.execute(f"select * exclude (source_file) from {name} order by all").fetchall()


def test_load_replaces_tables_and_records_manifest_and_quarantine(settings: Settings) -> None:
    bad = company_record(999).replace(
        'ABNStatusFromDate="20100101"', 'ABNStatusFromDate="20101340"'
    )
    abr_file(
        _landing(settings) / "20261118_Public01.xml", [*_records(3), bad, individual_record(1)]
    )
    with warehouse(settings) as con:
        result = load_source(con, ABR, settings)
        assert result.status == "loaded"
        assert result.rows == {"abr__abns": 4, "abr__other_names": 3}
        assert result.quarantined == 1
        assert con.execute("select count(*) from raw.abr__abns").fetchone() == (4,)
        file_name, line, reason, raw = con.execute(
            "select file_name, line, reason, raw from meta.quarantine where source = 'abr'"
        ).fetchone()
        assert file_name == "20261118_Public01.xml"
        assert line == 6  # declaration, TransferInfo, then three good records on lines 3-5
        assert "ABNStatusFromDate" in reason and "20101340" in raw
        manifest = con.execute(
            "select file_name, rows, quarantined, extract_date, declared_records, length(sha256) from meta.manifest"
        ).fetchall()
        assert manifest == [
            ("20261118_Public01.xml", 7, 1, __import__("datetime").date(2026, 11, 18), 5, 64)
        ]
        loads = con.execute("select status, quarantined from meta.loads").fetchall()
        assert loads == [("loaded", 1)]


def test_same_files_again_change_nothing(settings: Settings) -> None:
    path = abr_file(_landing(settings) / "20261118_Public01.xml", _records(5))
    with warehouse(settings) as con:
        first = load_source(con, ABR, settings)
        before = (
            _table(con, "raw.abr__abns"),
            con.execute("select count(*) from meta.loads").fetchone(),
        )
        again = load_source(con, ABR, settings)
        os.utime(path, (1_700_000_000, 1_700_000_000))  # same bytes, new mtime: checksum decides
        touched = load_source(con, ABR, settings)
        after = (
            _table(con, "raw.abr__abns"),
            con.execute("select count(*) from meta.loads").fetchone(),
        )
    assert first.status == "loaded"
    assert again.status == "unchanged" and touched.status == "unchanged"
    assert again.load_id == first.load_id
    assert before == after


def test_new_extract_replaces_the_old_one(settings: Settings) -> None:
    abr_file(_landing(settings) / "20261111_Public01.xml", _records(5))
    with warehouse(settings) as con:
        load_source(con, ABR, settings)
        abr_file(_landing(settings) / "20261118_Public01.xml", _records(6, offset=100))
        result = load_source(con, ABR, settings)
        names = {r[0] for r in con.execute("select entity_name from raw.abr__abns").fetchall()}
    assert result.status == "loaded"
    assert names == {f"COMPANY {100 + i} PTY LTD" for i in range(6)}  # newest snapshot only


def test_unreadable_file_fails_naming_it_and_keeps_previous_data(settings: Settings) -> None:
    abr_file(_landing(settings) / "20261111_Public01.xml", _records(5))
    with warehouse(settings) as con:
        load_source(con, ABR, settings)
        before = _table(con, "raw.abr__abns")
        good = abr_file(_landing(settings) / "20261118_Public01.xml", _records(5, offset=50))
        abr_file(_landing(settings) / "20261118_Public02.xml", _records(5, offset=80))
        text = (good.parent / "20261118_Public02.xml").read_text()
        (good.parent / "20261118_Public02.xml").write_text(text[: len(text) // 2])  # truncated
        with pytest.raises(LoadError, match="20261118_Public02.xml"):
            load_source(con, ABR, settings)
        assert _table(con, "raw.abr__abns") == before
        assert con.execute(
            "select count(*) from information_schema.tables where table_name like '%__loading'"
        ).fetchone() == (0,)
        status, message = con.execute(
            "select status, message from meta.loads order by started_at desc limit 1"
        ).fetchone()
        assert status == "failed" and "truncated" in message


def test_blocking_check_failure_keeps_previous_data(settings: Settings) -> None:
    abr_file(_landing(settings) / "20261111_Public01.xml", _records(4))
    with warehouse(settings) as con:
        load_source(con, ABR, settings)
        before = _table(con, "raw.abr__abns")
        # the same ABNs in two parts of one extract: keys not unique
        abr_file(_landing(settings) / "20261118_Public01.xml", _records(4))
        abr_file(_landing(settings) / "20261118_Public02.xml", _records(4))
        with pytest.raises(LoadError, match="key_unique") as failure:
            load_source(con, ABR, settings)
        # the failure names the files holding the duplicates, not only the table
        assert "in 20261118_Public01.xml (4), 20261118_Public02.xml (4)" in str(failure.value)
        assert _table(con, "raw.abr__abns") == before
        failed = con.execute(
            "select check_name from meta.dq_results where not passed order by all"
        ).fetchall()
        assert ("key_unique",) in failed


def test_row_count_drift_beyond_the_bound_is_refused(settings: Settings) -> None:
    abr_file(_landing(settings) / "20261111_Public01.xml", _records(10))
    with warehouse(settings) as con:
        load_source(con, ABR, settings)
        abr_file(_landing(settings) / "20261118_Public01.xml", _records(4))  # -60 %
        with pytest.raises(LoadError, match="row_count_drift"):
            load_source(con, ABR, settings)
        assert con.execute("select count(*) from raw.abr__abns").fetchone() == (10,)
        lenient = settings.model_copy(update={"max_row_drift": 0.7})
        assert load_source(con, ABR, lenient).status == "loaded"
        assert con.execute("select count(*) from raw.abr__abns").fetchone() == (4,)


def test_missing_landing_folder_is_not_loaded_and_tables_exist(settings: Settings) -> None:
    with warehouse(settings) as con:
        result = load_source(con, ABR, settings)
        assert result.status == "not_loaded"
        assert con.execute("select count(*) from raw.abr__abns").fetchone() == (0,)
        assert con.execute("select count(*) from meta.loads").fetchone() == (0,)


_KILLER = textwrap.dedent(
    """
    import dataclasses, os, signal, sys
    from pipelines.ingest.sources import SOURCES
    from pipelines.settings import get_settings
    from pipelines.warehouse.connection import warehouse
    from pipelines.warehouse.loader import load_source

    source = SOURCES["abr"]
    def parse_then_die(files, pool, sink):
        for file, batch in source.parse(files, pool, sink):
            if file.name.endswith("Public02.xml"):
                os.kill(os.getpid(), signal.SIGKILL)  # mid-load: part 1 staged, nothing swapped
            yield file, batch

    settings = get_settings(data_dir=sys.argv[1], parse_workers=1)
    with warehouse(settings) as con:
        load_source(con, dataclasses.replace(source, parse=parse_then_die), settings)
    """
)


def test_interrupted_load_then_rerun_equals_uninterrupted(
    settings: Settings, tmp_path: Path
) -> None:
    abr_file(_landing(settings) / "20261111_Public01.xml", _records(12))
    with warehouse(settings) as con:
        load_source(con, ABR, settings)
    abr_file(_landing(settings) / "20261118_Public01.xml", _records(6, offset=10))
    abr_file(_landing(settings) / "20261118_Public02.xml", _records(6, offset=20))
    script = tmp_path / "killer.py"
    script.write_text(_KILLER)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    killed = subprocess.run(
        [sys.executable, str(script), str(settings.data_dir)], env=env, check=False
    )
    assert killed.returncode == -9
    with warehouse(settings, read_only=True) as con:  # the killed load left the old tables
        assert con.execute("select count(*) from raw.abr__abns").fetchone() == (12,)
    with warehouse(settings) as con:
        assert load_source(con, ABR, settings).status == "loaded"
        interrupted_then_rerun = _table(con, "raw.abr__abns"), _table(con, "raw.abr__other_names")

    clean = settings.model_copy(update={"data_dir": tmp_path / "clean"})
    (clean.landing_dir / "abr").mkdir(parents=True)
    for path in (_landing(settings)).glob("20261118_*"):
        (clean.landing_dir / "abr" / path.name).write_bytes(path.read_bytes())
    with warehouse(clean) as con:
        load_source(con, ABR, clean)
        uninterrupted = _table(con, "raw.abr__abns"), _table(con, "raw.abr__other_names")
    assert interrupted_then_rerun == uninterrupted


def test_raw_tables_are_parquet_behind_views_and_old_files_go(settings: Settings) -> None:
    import pyarrow.parquet as pq

    abr_file(_landing(settings) / "20261111_Public01.xml", _records(6))
    with warehouse(settings) as con:
        first = load_source(con, ABR, settings)
        abr_file(_landing(settings) / "20261118_Public01.xml", _records(6, offset=30))
        second = load_source(con, ABR, settings)
        location = con.execute(
            "select location, load_id from meta.raw_tables where table_name = 'raw.abr__abns'"
        ).fetchone()
        kind = con.execute(
            "select table_type from information_schema.tables where table_name = 'abr__abns'"
        ).fetchone()
        # a failed load writes its own directory and leaves the current one alone
        (_landing(settings) / "20261125_Public01.xml").write_text("<?xml version='1.0'?><Transfer>")
        with pytest.raises(LoadError):
            load_source(con, ABR, settings)
        after_failure = con.execute(
            "select location from meta.raw_tables where table_name = 'raw.abr__abns'"
        ).fetchone()
    folder = settings.data_dir / "raw" / "abr__abns"
    assert kind == ("VIEW",)
    assert location == (str(folder / second.load_id), second.load_id)
    assert not (folder / first.load_id).exists()  # the previous load's files are gone
    assert after_failure == (location[0],) and Path(location[0]).is_dir()
    assert sorted(p.name for p in folder.iterdir() if p.name != "empty") == [second.load_id]
    rows = pq.read_table(folder / second.load_id).num_rows  # any Parquet reader reads it
    assert rows == 6


@pytest.mark.parametrize(
    ("source", "fixture", "table"),
    [
        ("asic_companies", "company_bad_rows.csv", "asic__companies"),
        ("asic_business_names", "business_names_bad_rows.csv", "asic__business_names"),
    ],
)
def test_every_declared_source_loads_with_quarantine(
    settings: Settings, source: str, fixture: str, table: str
) -> None:
    """The same machinery for every source: rows in, rejects quarantined, manifest kept."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / source
    landed = settings.landing_dir / SOURCES[source].folder
    landed.mkdir(parents=True)
    name = fixture.replace("_bad_rows", "_202410")
    (landed / name).write_bytes((fixtures / fixture).read_bytes())
    with warehouse(settings) as con:
        result = load_source(con, SOURCES[source], settings)
        rows = con.execute(f"select count(*) from raw.{table}").fetchone()[0]
        quarantined = con.execute(
            "select count(*), min(file_name) from meta.quarantine where source = ?", [source]
        ).fetchone()
    assert result.status == "loaded"
    assert rows == result.rows[table] > 0
    assert quarantined == (result.quarantined, name) and result.quarantined > 0
    with warehouse(settings) as con:
        assert load_source(con, SOURCES[source], settings).status == "unchanged"


_ADVERSE_HEADER = (
    "regulator,record_id,abn,entity_name,action_type,severity,status,action_date,"
    "resolved_date,summary,url\n"
)
_DIRECTORS_HEADER = "acn,person_name,role,appointed_date,ceased_date,birth_date,extracted_date\n"


@pytest.mark.parametrize(
    ("source", "table", "files"),
    [
        (
            "adverse",
            "adverse__records",
            {
                "ACCC.csv": _ADVERSE_HEADER
                + 'ACCC,A-1,53004085616,ACME PTY LTD,COURT_ORDER,HIGH,ACTIVE,2024-03-01,,"Fined, $1m",\n'
                + "ACCC,,53004085616,NO RECORD ID PTY LTD,UNDERTAKING,LOW,RESOLVED,2024-03-02,,,\n"
                # a listed ABN failing its check digits alone quarantines nothing (decision 19)
                + "ACCC,A-3,12345678901,BAD ABN PTY LTD,UNDERTAKING,LOW,RESOLVED,2024-03-02,,,\n",
                "QBCC.csv": _ADVERSE_HEADER
                + "QBCC,Q-1,51824753556,BUILDER,Show cause,MEDIUM,ACTIVE,2024-13-01,,,\n"
                + "QBCC,Q-2,51824753556,BUILDER,Show cause,MEDIUM,ACTIVE,2024-04-01,,,\n",
            },
        ),
        (
            "directors",
            "directors__officeholders",
            {
                "officeholders_2024.csv": _DIRECTORS_HEADER
                + '004085616,"SMITH, JANE",DIRECTOR,2020-01-01,,,2024-06-30\n'
                + '004085617,"BAD, ACN",DIRECTOR,2020-01-01,,,2024-06-30\n',
                "officeholders_2025.csv": _DIRECTORS_HEADER
                + '004085616,"SMITH, JANE",DIRECTOR,2020-01-01,,,2025-06-30\n'
                + '004085616,"JONES, BOB",SECRETARY,2025-01-01,,,2025-06-30\n',
            },
        ),
    ],
)
def test_project_sources_accumulate_every_file_with_quarantine(
    settings: Settings, source: str, table: str, files: dict[str, str]
) -> None:
    """Project-format folders are not snapshots: every file is read, bad rows quarantined."""
    landed = settings.landing_dir / SOURCES[source].folder
    landed.mkdir(parents=True)
    for name, text in files.items():
        (landed / name).write_text(text, encoding="utf-8")
    with warehouse(settings) as con:
        result = load_source(con, SOURCES[source], settings)
        loaded = con.execute(
            f"select source_file, count(*) from raw.{table} group by all order by all"
        ).fetchall()
        quarantined = con.execute(
            "select file_name, line from meta.quarantine where source = ? order by all", [source]
        ).fetchall()
        manifest = con.execute("select file_name from meta.manifest order by all").fetchall()
    first, second = sorted(files)
    assert result.status == "loaded"
    assert loaded == [
        (first, 2 if source == "adverse" else 1),
        (second, 1 if source == "adverse" else 2),
    ]
    assert quarantined == [(first, 3)] + ([(second, 2)] if source == "adverse" else [])
    assert manifest == [(first,), (second,)]
    with warehouse(settings) as con:
        assert load_source(con, SOURCES[source], settings).status == "unchanged"


_AFS_HEADER = (
    "REGISTER_NAME,AFS_LIC_NUM,AFS_LIC_NAME,AFS_LIC_ABN_ACN,AFS_LIC_START_DT,AFS_LIC_PRE_FSR,"
    "AFS_LIC_ADD_LOCAL,AFS_LIC_ADD_STATE,AFS_LIC_ADD_PCODE,AFS_LIC_ADD_COUNTRY,AFS_LIC_LAT,"
    "AFS_LIC_LNG,AFS_LIC_CONDITION\r\n"
)
_ADV_HEADER = (
    "REGISTER_NAME\tADV_NAME\tADV_NUMBER\tADV_ROLE\tADV_ROLE_STATUS\tADV_ABN\tLICENCE_NAME\t"
    "LICENCE_NUMBER\tLICENCE_ABN\tADV_START_DT\tADV_END_DT\tOVERALL_REGISTRATION_STATUS\t"
    "ADV_NOTES\r\n"
)


def _adviser(number: str, notes: str = "") -> str:
    return (
        f"FIN ADV\tJane Citizen\t{number}\tFinancial Adviser\tCurrent\t51824753556\t"
        f"ACME PTY LTD\t000001\t53004085616\t01/01/2019\t\tRegistered\t{notes}\r\n"
    )


@pytest.mark.parametrize(
    ("source", "table", "older", "newest"),
    [
        (
            "asic_afs_licensees",
            "asic__afs_licensees",
            _AFS_HEADER + '"AFS Licensee","000009","OLD PTY LTD","","01/01/2000","N",'
            '"","","","","","",""\r\n',
            _AFS_HEADER
            + '"AFS Licensee","000001","ACME PTY LTD","53004085616","01/03/2004","Y","SYDNEY",'
            '"NSW","2000","AUSTRALIA","-33.8","151.2","Line one\r\nline two"\r\n'
            + '"AFS Licensee","000002","BAD PTY LTD","12345678901","31/02/2004","Y","","","",'
            '"","","",""\r\n'
            + '"AFS Licensee","000003","BETA PTY LTD","004085616","01/03/2004","Y","","","",'
            '"","","",""\r\n',
        ),
        (
            "asic_financial_advisers",
            "asic__financial_advisers",
            _ADV_HEADER + _adviser("9999999"),
            _ADV_HEADER
            + _adviser("1000001")
            + _adviser("1000001")
            + _adviser("1000002", "text\twith a tab")
            + _adviser("1000003"),
        ),
    ],
)
def test_public_registers_read_only_the_newest_file_with_quarantine(
    settings: Settings, source: str, table: str, older: str, newest: str
) -> None:
    """Registers are snapshots: the newest file alone is read, bad rows quarantined."""
    landed = settings.landing_dir / SOURCES[source].folder
    landed.mkdir(parents=True)
    (landed / "register_20250101.csv").write_bytes(b"\xef\xbb\xbf" + older.encode())
    (landed / "register_20250201.csv").write_bytes(b"\xef\xbb\xbf" + newest.encode())
    with warehouse(settings) as con:
        result = load_source(con, SOURCES[source], settings)
        loaded = con.execute(
            f"select source_file, count(*) from raw.{table} group by all order by all"
        ).fetchall()
        quarantined = con.execute(
            "select file_name, line from meta.quarantine where source = ? order by all", [source]
        ).fetchall()
        manifest = con.execute("select file_name from meta.manifest").fetchall()
    assert result.status == "loaded"
    good = 2 if source == "asic_afs_licensees" else 3
    assert loaded == [("register_20250201.csv", good)]
    # AFS: the first record spans lines 2-3, the bad date is on 4 (its listed ABN failing its
    # check digits alone would not quarantine it: docs/decisions/19-a-records-own-identifier.md); advisers: the tab row
    assert quarantined == [("register_20250201.csv", 4)]
    assert manifest == [("register_20250201.csv",)]
    with warehouse(settings) as con:
        assert load_source(con, SOURCES[source], settings).status == "unchanged"


COMPANIES_FIXTURE = Path(__file__).parents[1] / "fixtures" / "asic_companies" / "company_202410.csv"


def _land_companies(settings: Settings) -> Path:
    """The good company file landed in its folder; returns the folder."""
    landing = settings.landing_dir / "asic_companies"
    landing.mkdir(parents=True)
    (landing / "company_202410.csv").write_bytes(COMPANIES_FIXTURE.read_bytes())
    return landing


def test_a_failed_load_leads_with_the_file_and_keeps_its_diagnosis(settings: Settings) -> None:
    """A header with one extra column: every row is quarantined. The failure names the file
    and the first row's cause before the checks it failed, and its quarantined rows stay in
    meta.quarantine under the failed load, for `bvs status` later."""
    fixture = COMPANIES_FIXTURE
    landing = _land_companies(settings)
    source = SOURCES["asic_companies"]
    with warehouse(settings) as con:
        assert load_source(con, source, settings).status == "loaded"
        before = _table(con, "raw.asic__companies")
        head, newline, rest = fixture.read_bytes().partition(b"\n")
        cr = b"\r" if head.endswith(b"\r") else b""
        bad = landing / "company_202411.csv"
        bad.write_bytes(head.removesuffix(b"\r") + b"\tExtra Column" + cr + newline + rest)
        with pytest.raises(LoadError) as failure:
            load_source(con, source, settings)
        message = str(failure.value)
        assert message.startswith("asic_companies: company_202411.csv: "), message
        assert "rows quarantined, the first at line 2: " in message
        assert "expected" in message.split("; ")[0] and "not_empty" in message
        assert _table(con, "raw.asic__companies") == before
        load_id, quarantined = con.execute(
            "select load_id, quarantined from meta.loads where status = 'failed'"
        ).fetchone()
        assert quarantined == len(before)
        kept = con.execute(
            "select file_name, min(line), count(*) from meta.quarantine where load_id = ?"
            " group by file_name",
            [load_id],
        ).fetchall()
        assert kept == [("company_202411.csv", 2, len(before))]


def test_a_load_runs_within_its_memory_limit_then_restores_the_connection_s(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB is bounded to load_memory_limit while a source loads (its checks spill beyond
    it), and the connection's own limit is back afterwards, after a failed load too."""
    import pipelines.warehouse.loader as loader

    seen: list[str] = []
    check = loader._check

    def observed_check(con, *args, **kwargs):  # the limit the checks run under
        seen.append(con.execute("select current_setting('memory_limit')").fetchone()[0])
        return check(con, *args, **kwargs)

    monkeypatch.setattr(loader, "_check", observed_check)
    abr_file(_landing(settings) / "20261118_Public01.xml", _records(3))
    settings = settings.model_copy(update={"load_memory_limit": "300MB"})
    with warehouse(settings) as con:
        before = con.execute("select current_setting('memory_limit')").fetchone()[0]
        assert load_source(con, ABR, settings).status == "loaded"
        assert seen == ["286.1 MiB"]  # 300 MB
        assert con.execute("select current_setting('memory_limit')").fetchone()[0] == before
        (_landing(settings) / "20261118_Public01.xml").write_text("<Transfer>")  # truncated
        with pytest.raises(LoadError):
            load_source(con, ABR, settings, force=True)
        assert con.execute("select current_setting('memory_limit')").fetchone()[0] == before


# --- issue 34, item 5: one bad file holds back only its source, zips too ---------------------


def _zipped(path: Path, member: str, data: bytes, *, truncate: bool = False) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
    if truncate:  # cut in half: the central directory at its end is gone
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return path


def test_a_corrupt_zip_fails_only_its_source_naming_it_and_keeps_the_data(
    settings: Settings,
) -> None:
    landing = _land_companies(settings)
    source = SOURCES["asic_companies"]
    with warehouse(settings) as con:
        assert load_source(con, source, settings).status == "loaded"
        before = _table(con, "raw.asic__companies")
        _zipped(
            landing / "company_202411.zip",
            "company_202411.csv",
            COMPANIES_FIXTURE.read_bytes(),
            truncate=True,
        )
        with pytest.raises(LoadError) as failure:
            load_source(con, source, settings)
        message = str(failure.value)
        assert message.startswith("asic_companies: company_202411.zip: cannot open zip: "), message
        assert failure.value.result is not None and failure.value.result.status == "failed"
        assert _table(con, "raw.asic__companies") == before
        recorded = con.execute(
            "select status, message from meta.loads order by started_at desc limit 1"
        ).fetchone()
    assert recorded == ("failed", message)
    status = collect_status(settings, today=dt.date(2026, 11, 20))  # what `bvs status` shows
    (companies,) = [s for s in status["sources"] if s["source"] == "asic_companies"]
    assert companies["status"] == "failed (previous data kept)"
    assert companies["last_message"] == message


def test_a_corrupt_zip_dated_before_the_snapshot_read_fails_nothing(settings: Settings) -> None:
    landing = _land_companies(settings)
    _zipped(landing / "company_202409.zip", "company_202409.csv", b"x" * 4096, truncate=True)
    with warehouse(settings) as con:
        result = load_source(con, SOURCES["asic_companies"], settings)
        (message,) = con.execute("select message from meta.loads").fetchone()
    assert result.status == "loaded" and result.files == ["company_202410.csv"]
    (warning,) = result.warnings
    assert warning.startswith("company_202409.zip: cannot open zip: ")
    assert warning in message


_PPSR_HEADER = (
    "registration_number,grantor_abn,grantor_acn,grantor_name,collateral_class,start_date,"
    "end_date\n"
)


def _ppsr_rows(first: int, n: int) -> str:
    rows = []
    for i in range(first, first + n):
        acn = make_acn(i)
        rows.append(f"{200000000000 + i},{abn_from_acn(acn)},{acn},GRANTOR {i} PTY LTD,"
                    "AGRICULTURE,2024-12-01,\n")  # fmt: skip
    return "".join(rows)


def _industry_rows(first: int, n: int) -> str:
    return "".join(
        f"{abn_from_acn(make_acn(i))},6720,Real Estate Services\n" for i in range(first, first + n)
    )


_FORMATS = {  # source: file name prefix, header, rows
    "ppsr": ("registrations", _PPSR_HEADER, _ppsr_rows),
    "industry": ("abn_industry", "abn,anzsic_code,anzsic_description\n", _industry_rows),
}


def _bad_row(source: str) -> str:
    """A row the parser quarantines (an impossible date; an empty ABN)."""
    if source == "ppsr":
        return "200000009999,,,GRANTOR PTY LTD,AGRICULTURE,2024-02-30,\n"
    return ",6720,Real Estate Services\n"


@pytest.mark.parametrize("source", ["ppsr", "industry"])
def test_a_failure_names_the_new_file_not_an_older_good_one(
    settings: Settings, source: str
) -> None:
    """Issue 34: an older, good file with a quarantined row, then a new file repeating its
    records: the failure leads with the new file, not the older file's quarantined row."""
    prefix, header, rows = _FORMATS[source]
    landing = settings.landing_dir / SOURCES[source].folder
    landing.mkdir(parents=True)
    (landing / f"{prefix}_20261111.csv").write_text(header + rows(1, 8) + _bad_row(source))
    with warehouse(settings) as con:
        assert load_source(con, SOURCES[source], settings).status == "loaded"
        (landing / f"{prefix}_20261118.csv").write_text(header + rows(1, 8))  # the same records
        with pytest.raises(LoadError) as failure:
            load_source(con, SOURCES[source], settings)
    message = str(failure.value)
    assert message.startswith(f"{source}: {prefix}_20261118.csv, new since the last good load; ")
    assert "key_unique" in message


@pytest.mark.parametrize("source", ["ppsr", "industry"])
def test_a_new_file_s_own_quarantined_rows_lead_its_failure(
    settings: Settings, source: str
) -> None:
    prefix, header, rows = _FORMATS[source]
    landing = settings.landing_dir / SOURCES[source].folder
    landing.mkdir(parents=True)
    older = header + rows(1, 8) + _bad_row(source) + _bad_row(source)  # two quarantined rows
    (landing / f"{prefix}_20261111.csv").write_text(older)
    with warehouse(settings) as con:
        assert load_source(con, SOURCES[source], settings).status == "loaded"
        (landing / f"{prefix}_20261118.csv").write_text(header + rows(1, 2) + _bad_row(source))
        with pytest.raises(LoadError) as failure:
            load_source(con, SOURCES[source], settings)
    message = str(failure.value)
    assert message.startswith(
        f"{source}: {prefix}_20261118.csv: 1 rows quarantined, the first at line 4: "
    ), message


def test_removing_the_refused_file_makes_the_source_current_again(settings: Settings) -> None:
    """Issue 34: the bad file goes, what is left is the last good load: the next run clears
    the failure (`bvs status`, the snapshot's meta.source_failures), writing no data."""
    landing = settings.landing_dir / "ppsr"
    landing.mkdir(parents=True)
    (landing / "registrations_20261111.csv").write_text(_PPSR_HEADER + _ppsr_rows(1, 8))
    source = SOURCES["ppsr"]
    today = dt.date(2026, 11, 20)

    def ppsr_status() -> tuple[str, str | None]:
        status = collect_status(settings, today=today)
        (entry,) = [s for s in status["sources"] if s["source"] == "ppsr"]
        return entry["status"], entry["last_attempt"]

    with warehouse(settings) as con:
        good = load_source(con, source, settings)
        bad = landing / "registrations_20261118.csv"
        bad.write_text(_PPSR_HEADER + _ppsr_rows(1, 8))  # duplicates every key
        with pytest.raises(LoadError):
            load_source(con, source, settings)
    assert ppsr_status() == ("failed (previous data kept)", "failed")
    with warehouse(settings) as con:
        failures = _published_failures(con, settings, today)
        assert [f[0] for f in failures] == ["ppsr"]
        bad.unlink()
        cleared = load_source(con, source, settings)
        again = load_source(con, source, settings)
        loads = con.execute("select status from meta.loads order by started_at").fetchall()
        assert _published_failures(con, settings, today) == []
    assert cleared.status == "unchanged" and cleared.load_id == good.load_id
    assert "again the ones of the last good load" in cleared.message
    assert again.status == "unchanged"
    assert loads == [("loaded",), ("failed",), ("unchanged",)]  # once: nothing more to clear
    assert ppsr_status() == ("loaded", "unchanged")


def _published_failures(
    con: duckdb.DuckDBPyConnection, settings: Settings, today: dt.date
) -> list[tuple]:
    """meta.source_failures of a snapshot published now (what /health serves)."""
    con.execute("create schema if not exists marts")
    con.execute("create or replace table marts.one as select 1 as x")
    info = publish_snapshot(con, settings, as_of=today)
    with duckdb.connect(str(info.path), read_only=True) as snap:
        return snap.execute("select source, message from meta.source_failures").fetchall()


def test_a_header_only_file_with_an_unexpected_column_is_not_loaded_silently(
    settings: Settings,
) -> None:
    """Issue 34: its header line is quarantined, naming the column (a header-only file of
    the declared columns loads with no word: an empty week)."""
    landing = settings.landing_dir / "ppsr"
    landing.mkdir(parents=True)
    (landing / "registrations_20261111.csv").write_text(_PPSR_HEADER + _ppsr_rows(1, 8))
    (landing / "registrations_20261117.csv").write_text(_PPSR_HEADER)
    (landing / "registrations_20261118.csv").write_text(_PPSR_HEADER.rstrip() + ",extra\n")
    with warehouse(settings) as con:
        result = load_source(con, SOURCES["ppsr"], settings)
        quarantined = con.execute(
            "select file_name, line, reason from meta.quarantine where source = 'ppsr'"
        ).fetchall()
    assert result.status == "loaded" and result.quarantined == 1
    assert quarantined == [
        (
            "registrations_20261118.csv",
            1,
            "header only, no rows: the PPSR registrations header has unexpected column(s)"
            " ['extra']",
        )
    ]
