"""Finding landed files: newest snapshot only, plain files before zip members, checksums."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from pipelines.ingest.base import LandingFile, SourceFileError
from pipelines.ingest.files import (
    SnapshotKey,
    checksums,
    dated_name_key,
    discover,
    every_file_key,
    sha256_of,
)
from pipelines.ingest.sources import SOURCES

ABR_PATTERNS = SOURCES["abr"].patterns  # the real configuration: ("*public??.xml",)


def touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(f"<Transfer>{name}</Transfer>\n".encode())


def make_zip(path: Path, *members: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for member in members:
            zf.writestr(member, f"<Transfer>{member}</Transfer>\n")
    return path


def found(folder: Path) -> list[tuple[str, str | None]]:
    return [(f.path.name, f.member) for f in discover(folder, ABR_PATTERNS, dated_name_key)]


def test_only_the_newest_snapshot_is_read(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "20261111_Public01.xml",
        "20261111_Public02.xml",
        "20261111_Public03.xml",  # a part the newest snapshot lacks: not read either
        "20261118_Public02.xml",
        "20261118_Public01.xml",
    )
    assert found(tmp_path) == [
        ("20261118_Public01.xml", None),
        ("20261118_Public02.xml", None),
    ]


def test_newest_snapshot_across_the_old_and_new_naming(tmp_path: Path) -> None:
    touch(tmp_path, "20150805Public01.xml", "20241127_Public01.xml")
    assert found(tmp_path) == [("20241127_Public01.xml", None)]


def test_members_of_the_split_zips_are_read(tmp_path: Path) -> None:
    make_zip(
        tmp_path / "public_split_1_10.zip",
        "20261118_Public02.xml",
        "20261118_Public01.xml",
        "readme.txt",  # does not match the pattern
    )
    make_zip(tmp_path / "public_split_11_20.zip", "20261118_Public11.xml")
    files = discover(tmp_path, ABR_PATTERNS, dated_name_key)
    assert files == [
        LandingFile(tmp_path / "public_split_1_10.zip", "20261118_Public01.xml"),
        LandingFile(tmp_path / "public_split_1_10.zip", "20261118_Public02.xml"),
        LandingFile(tmp_path / "public_split_11_20.zip", "20261118_Public11.xml"),
    ]
    assert files[0].name == "public_split_1_10.zip!20261118_Public01.xml"
    with files[0].open() as fh:
        assert fh.read() == b"<Transfer>20261118_Public01.xml</Transfer>\n"


def test_member_in_a_folder_inside_the_zip_is_read(tmp_path: Path) -> None:
    make_zip(tmp_path / "public_split_1_10.zip", "extract/20261118_Public01.xml")
    assert found(tmp_path) == [("public_split_1_10.zip", "extract/20261118_Public01.xml")]


def test_plain_file_beats_the_same_part_inside_a_zip(tmp_path: Path) -> None:
    make_zip(tmp_path / "public_split_1_10.zip", "20261118_Public01.xml", "20261118_Public02.xml")
    touch(tmp_path, "20261118_Public01.xml")
    assert found(tmp_path) == [
        ("20261118_Public01.xml", None),
        ("public_split_1_10.zip", "20261118_Public02.xml"),
    ]


def test_plain_file_beats_the_zip_whatever_the_name_order(tmp_path: Path) -> None:
    # "0_extract.zip" sorts before the plain file, "public_split…" after it
    make_zip(tmp_path / "0_extract.zip", "20261118_Public01.xml")
    make_zip(tmp_path / "public_split_1_10.zip", "20261118_Public01.xml")
    touch(tmp_path, "20261118_Public01.xml")
    assert found(tmp_path) == [("20261118_Public01.xml", None)]


def test_older_zip_loses_to_a_newer_plain_snapshot(tmp_path: Path) -> None:
    make_zip(tmp_path / "public_split_1_10.zip", "20261111_Public01.xml", "20261111_Public02.xml")
    touch(tmp_path, "20261118_Public01.xml")
    assert found(tmp_path) == [("20261118_Public01.xml", None)]


def test_names_match_case_insensitively(tmp_path: Path) -> None:
    touch(tmp_path, "20261118_PUBLIC01.XML")
    make_zip(tmp_path / "PUBLIC_SPLIT_1_10.ZIP", "20261118_public02.Xml")
    assert found(tmp_path) == [
        ("20261118_PUBLIC01.XML", None),
        ("PUBLIC_SPLIT_1_10.ZIP", "20261118_public02.Xml"),
    ]


def test_files_that_do_not_match_are_ignored(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "20261118_Public1.xml",  # one digit, not two
        "20261118_Public01.xml.part",
        "20261118_Public01.csv",
        ".20261125_Public01.xml",  # hidden: a download in progress
        "20261118_Public01.xml",
    )
    (tmp_path / "20261125_Public01.xml").mkdir()  # a folder, not a file
    assert found(tmp_path) == [("20261118_Public01.xml", None)]


def test_missing_folder_gives_no_files(tmp_path: Path) -> None:
    assert found(tmp_path / "abr") == []


def test_empty_folder_gives_no_files(tmp_path: Path) -> None:
    assert found(tmp_path) == []


def test_folder_without_matching_files_gives_no_files(tmp_path: Path) -> None:
    touch(tmp_path, "notes.txt")
    make_zip(tmp_path / "other.zip", "readme.txt")
    assert found(tmp_path) == []


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"this is not a zip file at all", id="not a zip"),
        pytest.param(b"", id="empty"),
    ],
)
def test_corrupt_zip_fails_naming_it(tmp_path: Path, content: bytes) -> None:
    touch(tmp_path, "20261118_Public01.xml")
    (tmp_path / "public_split_1_10.zip").write_bytes(content)
    with pytest.raises(SourceFileError, match=r"^public_split_1_10\.zip: cannot open zip"):
        discover(tmp_path, ABR_PATTERNS, dated_name_key)


def test_truncated_zip_fails_naming_it(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "public_split_1_10.zip", "20261118_Public01.xml")
    archive.write_bytes(archive.read_bytes()[:40])  # the central directory is gone
    with pytest.raises(SourceFileError, match=r"^public_split_1_10\.zip: "):
        discover(tmp_path, ABR_PATTERNS, dated_name_key)


# --------------------------------------------------------------------------------------
# dated_name_key
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "snapshot"),
    [
        pytest.param("20150805Public01.xml", "20150805", id="old name: date glued to Public"),
        pytest.param("20241127_Public01.xml", "20241127", id="current name: underscore"),
        pytest.param("company_202410.csv", "202410", id="YYYYMM"),
        pytest.param("business_names_201901_v2.csv", "201901", id="first date wins"),
        pytest.param("notes.xml", "", id="no date"),
    ],
)
def test_dated_name_key_snapshot(name: str, snapshot: str) -> None:
    assert dated_name_key(name).snapshot == snapshot


def test_dated_name_key_values() -> None:
    assert dated_name_key("20150805Public01.xml") == SnapshotKey("20150805", "public01.xml")
    assert dated_name_key("20241127_Public01.xml") == SnapshotKey("20241127", "_public01.xml")


def test_dated_name_key_parts() -> None:
    key = dated_name_key
    # the same part in two snapshots, whatever the case
    assert key("20241127_Public01.xml").part == key("20241204_PUBLIC01.XML").part
    # different parts of one snapshot
    assert key("20241127_Public01.xml").part != key("20241127_Public02.xml").part
    # snapshots sort by date
    assert key("20241127_Public01.xml").snapshot > key("20150805Public01.xml").snapshot
    assert key("20241204_Public01.xml").snapshot > key("20241127_Public01.xml").snapshot


# --------------------------------------------------------------------------------------
# checksums
# --------------------------------------------------------------------------------------


def test_checksums_are_the_sha256_of_the_bytes(tmp_path: Path) -> None:
    contents = {
        "a.xml": b"<Transfer></Transfer>\n",
        "b.zip": bytes(range(256)) * 1000,
        "empty.csv": b"",
    }
    paths = []
    for name, data in contents.items():
        (tmp_path / name).write_bytes(data)
        paths.append(tmp_path / name)
    result = checksums([*paths, paths[0]])  # a repeated path is hashed once
    assert result == {tmp_path / n: hashlib.sha256(d).hexdigest() for n, d in contents.items()}
    assert list(result) == sorted(result)


def test_sha256_reads_in_blocks(tmp_path: Path) -> None:
    path = tmp_path / "20261118_Public01.xml"
    data = b"0123456789" * 1001
    path.write_bytes(data)
    assert sha256_of(path, block=7) == hashlib.sha256(data).hexdigest()


def test_checksums_of_no_paths_is_empty() -> None:
    assert checksums([]) == {}


def test_every_file_key_reads_every_file_of_an_accumulating_source(tmp_path: Path) -> None:
    assert every_file_key("ACCC_2024.csv") == SnapshotKey("", "accc_2024.csv")
    touch(tmp_path, "ACCC.csv", "QBCC_20240101.csv", "QBCC_20250101.csv", "notes.txt")
    make_zip(tmp_path / "more.zip", "FWO.csv", "ACCC.csv")
    found = [(f.path.name, f.member) for f in discover(tmp_path, ("*.csv",), every_file_key)]
    assert found == [
        ("ACCC.csv", None),  # the plain file beats the zip member of the same name
        ("more.zip", "FWO.csv"),
        ("QBCC_20240101.csv", None),
        ("QBCC_20250101.csv", None),
    ]


# --------------------------------------------------------------------------------------
# corrupt zips: which ones fail, which are passed over
# --------------------------------------------------------------------------------------

COMPANY_PATTERNS = SOURCES["asic_companies"].patterns


def truncated_zip(path: Path, *members: str) -> Path:
    """A zip cut in half: its central directory (at the end) is gone."""
    archive = make_zip(path, *members)
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    return archive


def test_a_corrupt_zip_dated_before_the_newest_snapshot_is_passed_over(tmp_path: Path) -> None:
    """Issue 34: an older extract the load would not read fails nothing, corrupt or not."""
    touch(tmp_path, "company_202411.csv")
    truncated_zip(tmp_path / "company_202410.zip", "company_202410.csv")
    files = discover(tmp_path, COMPANY_PATTERNS, dated_name_key)
    assert [f.name for f in files] == ["company_202411.csv"]
    passed_over: list[str] = []
    discover(tmp_path, COMPANY_PATTERNS, dated_name_key, passed_over=passed_over)
    (line,) = passed_over
    assert line.startswith("company_202410.zip: cannot open zip: "), line
    assert line.endswith("passed over: its name dates it before the newest snapshot, the one read")


@pytest.mark.parametrize(
    ("existing", "broken", "patterns", "key"),
    [
        pytest.param(
            "company_202411.csv", "company_202412.zip", COMPANY_PATTERNS, dated_name_key,
            id="named for a newer snapshot",
        ),
        pytest.param(
            "company_202411.csv", "company_202411.zip", COMPANY_PATTERNS, dated_name_key,
            id="named for the snapshot read",
        ),
        pytest.param(
            "20261118_Public01.xml", "public_split_1_10.zip", ABR_PATTERNS, dated_name_key,
            id="no date in its name",
        ),
        pytest.param(
            "registrations_2025.csv", "registrations_20240101.zip", ("registrations*.csv",),
            every_file_key, id="a folder whose every file is read",
        ),
    ],
)  # fmt: skip
def test_a_corrupt_zip_that_may_hold_files_read_fails_naming_it(
    tmp_path: Path,
    existing: str,
    broken: str,
    patterns: tuple[str, ...],
    key: Callable[[str], SnapshotKey],
) -> None:
    touch(tmp_path, existing)
    truncated_zip(tmp_path / broken, existing)
    with pytest.raises(SourceFileError, match=rf"^{broken.replace('.', '[.]')}: cannot open zip"):
        discover(tmp_path, patterns, key)
