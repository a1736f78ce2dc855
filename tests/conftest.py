"""Shared fixtures: a private data folder per test, and small landing files in real formats."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from pipelines.identifiers import abn_from_acn, abn_with_check_digits, acn_check_digit
from pipelines.settings import Settings, get_settings


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`make test` runs two xdist workers with `--dist loadscope`; this scheduler keeps
    every end-to-end test (tests/e2e: one pipeline world per session, built by the worker
    that runs them) in one unit, and every other module in a unit of its own, so module
    fixtures (a dbt build, a world copy) are set up once. (`--dist loadgroup` would group by
    marks, but marks no group under pytest 9: it edits a node id attribute pytest 9 no longer
    reads.)"""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class EndToEndTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            if module.startswith("tests/e2e/"):
                return "tests/e2e"
            return module

    return EndToEndTogether(config, log)  # type: ignore[arg-type]


@pytest.fixture(scope="session", autouse=True)
def counters_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The API's rate counters in this session's temporary folder, not in /dev/shm (where
    they would outlive the tests); servers the tests start inherit it."""
    folder = tmp_path_factory.mktemp("counters")
    previous = os.environ.get("BVS_COUNTERS_DIR")
    os.environ["BVS_COUNTERS_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("BVS_COUNTERS_DIR", None)
    else:
        os.environ["BVS_COUNTERS_DIR"] = previous


@pytest.fixture(scope="session", autouse=True)
def live_checks_off() -> Iterator[None]:
    """No test reaches the internet: the live checks are off for the pipelines and commands
    the tests run (tests/live starts its own DNS and web servers and configures them)."""
    previous = os.environ.get("BVS_LIVE_CHECKS")
    os.environ.setdefault("BVS_LIVE_CHECKS", "false")
    yield
    if previous is None:
        os.environ.pop("BVS_LIVE_CHECKS", None)


@pytest.fixture
def evict() -> Callable[..., None]:
    """Takes files out of the page cache (written back first: only clean pages can go).
    Skips the test on a file system that keeps files in memory (tmpfs), where that cannot
    be done."""
    from pipelines.serving.preload import resident_bytes

    def out_of_memory(*paths: Path) -> None:
        for path in paths:
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
            if resident_bytes(path):
                pytest.skip(f"{path.parent} is on a file system that keeps files in memory")

    return out_of_memory


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings pointing at an empty data folder of this test (never the project's data/)."""
    data = tmp_path / "data"
    (data / "landing").mkdir(parents=True)
    return get_settings(data_dir=data, parse_workers=1, progress=False)


def make_acn(n: int) -> str:
    body = f"{n:08d}"
    return body + str(acn_check_digit(body))


def company_record(n: int, name: str = "ACME PTY LTD", *, trading: Iterable[str] = ()) -> str:
    acn = make_acn(n)
    others = "".join(
        f'<OtherEntity><NonIndividualName type="TRD"><NonIndividualNameText>{t}'
        "</NonIndividualNameText></NonIndividualName></OtherEntity>"
        for t in trading
    )
    return (
        f'<ABR recordLastUpdatedDate="20240101" replaced="N"><ABN status="ACT" ABNStatusFromDate="20100101">'
        f"{abn_from_acn(acn)}</ABN><EntityType><EntityTypeInd>PRV</EntityTypeInd><EntityTypeText>"
        "Australian Private Company</EntityTypeText></EntityType><MainEntity><NonIndividualName "
        f'type="MN"><NonIndividualNameText>{name}</NonIndividualNameText></NonIndividualName>'
        "<BusinessAddress><AddressDetails><State>QLD</State><Postcode>4000</Postcode>"
        '</AddressDetails></BusinessAddress></MainEntity><ASICNumber ASICNumberType="undetermined">'
        f'{acn}</ASICNumber><GST status="ACT" GSTStatusFromDate="20100101" />{others}</ABR>'
    )


def individual_record(n: int, given: str = "JANE", family: str = "CITIZEN") -> str:
    abn = abn_with_check_digits(f"{900000000 + n:09d}")
    return (
        f'<ABR recordLastUpdatedDate="20240101" replaced="N"><ABN ABNStatusFromDate="20150101" status="CAN">'
        f"{abn}</ABN><EntityType><EntityTypeInd>IND</EntityTypeInd><EntityTypeText>Individual/Sole Trader"
        f'</EntityTypeText></EntityType><LegalEntity><IndividualName type="LGL"><GivenName>{given}'
        f"</GivenName><FamilyName>{family}</FamilyName></IndividualName><BusinessAddress><AddressDetails>"
        "<State>NSW</State><Postcode>0000</Postcode></AddressDetails></BusinessAddress></LegalEntity>"
        '<GST status="NON" GSTStatusFromDate="19000101" /></ABR>'
    )


def abr_file(path: Path, records: list[str], *, declared: int | None = None) -> Path:
    """An ABR bulk extract file in the real layout: one record per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = len(records) if declared is None else declared
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Transfer><TransferInfo><FileSequenceNumber>1'
        f"</FileSequenceNumber><RecordCount>{count:010d}</RecordCount><ExtractTime>"
        "2026-11-18T03:11:13</ExtractTime></TransferInfo>\n"
    )
    path.write_text(head + "".join(r + "\n" for r in records) + "</Transfer>\n", encoding="utf-8")
    return path
