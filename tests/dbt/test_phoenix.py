"""Phoenix links end to end: landing files -> the real loader -> dbt build -> the marts.

The history test loads a first ASIC company extract in which a company is deregistered,
then a newer extract (and a newer officeholders extract) that no longer lists it, and
shows the phoenix link still there: the snapshots remember what the extracts forget
(docs/decisions/07-history-the-extracts-forget.md). A warehouse that only ever saw the newer files has no link, so the
test fails if the history were not kept.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from test_dbt_build import ABNS, ACME_ABN, ACME_ACN, make_warehouse, query, run_dbt

from pipelines.identifiers import abn_from_acn
from pipelines.ingest import tables
from pipelines.ingest.sources import SOURCES
from pipelines.settings import Settings, get_settings
from pipelines.warehouse.connection import warehouse
from pipelines.warehouse.loader import load_source
from tests.conftest import abr_file, company_record, make_acn

AS_OF = "2026-11-20"
D = dt.date

NEWCO_ACN = make_acn(101)  # the entity assessed: a current company with an ABN
OLDCO_ACN = make_acn(102)  # deregistered 2025-01-15; its director now runs NEWCO
NAMESAKE_ACN = make_acn(103)  # deregistered too; a different JOHN SMITH (born 1985)
FILLER_ACNS = [make_acn(n) for n in (104, 105, 106)]

# the files' headers as their sources declare them (pipelines.ingest.tables)
COMPANY_HEADER = "\t".join(tables.ASIC_COMPANIES.header)
OFFICEHOLDERS_HEADER = ",".join(tables.DIRECTORS_OFFICEHOLDERS.header)


def _company(name: str, acn: str, status: str = "REGD", deregistered: str = "") -> str:
    fields = [name, acn, "APTY", "LMSH", "PROP", status, "01/03/2000", deregistered]
    return "\t".join([*fields, "", "", "", "Y", abn_from_acn(acn), "", ""])


def _company_extract(path: Path, rows: list[str]) -> None:
    """An ASIC Company Dataset file as published: tab-separated, UTF-8 BOM, CRLF."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\ufeff" + "\r\n".join([COMPANY_HEADER, *rows]) + "\r\n").encode("utf-8"))


def _officeholders(path: Path, rows: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([OFFICEHOLDERS_HEADER, *rows]) + "\n", encoding="utf-8")


def _load_and_build(settings: Settings, work: Path) -> None:
    """What `bvs run` does, minus Dagster: load every source (empty raw tables for those
    without files), then `dbt build` as of AS_OF."""
    with warehouse(settings) as con:
        for name, source in SOURCES.items():
            status = load_source(con, source, settings).status
            if name in {"abr", "asic_companies", "directors"}:
                assert status in {"loaded", "unchanged"}, name
    result = run_dbt("build", settings.warehouse, work, "--vars", f'{{"as_of": "{AS_OF}"}}')
    assert result.returncode == 0, result.stdout + result.stderr


def _first_extracts(landing: Path) -> None:
    abr_file(
        landing / "abr" / "20261118_Public01.xml",
        [company_record(101, "NEWCO PTY LTD", trading=["NEWCO"])],
    )
    _company_extract(
        landing / "asic_companies" / "company_202502.csv",
        [
            _company("NEWCO PTY LTD", NEWCO_ACN),
            _company("OLDCO PTY LTD", OLDCO_ACN, "DRGD", "15/01/2025"),
            _company("NAMESAKE PTY LTD", NAMESAKE_ACN, "DRGD", "01/03/2025"),
            *(_company(f"FILLER {acn} PTY LTD", acn) for acn in FILLER_ACNS),
        ],
    )
    _officeholders(
        landing / "directors" / "officeholders_2025.csv",
        [
            f'{NEWCO_ACN},"SMITH, JOHN PAUL",DIRECTOR,2025-02-01,,1970-01-01,2025-03-01',
            f'{OLDCO_ACN},"SMITH, JOHN",DIRECTOR,2015-06-01,2025-01-15,1970-01-01,2025-03-01',
            f'{OLDCO_ACN},"JONES, MARY",SECRETARY,2015-06-01,2025-01-15,,2025-03-01',
            f'{NAMESAKE_ACN},"SMITH, JOHN",DIRECTOR,2010-01-01,2025-03-01,1985-05-05,2025-03-01',
        ],
    )


def _newer_extracts(landing: Path) -> None:
    """A year on: ASIC no longer lists the deregistered companies, nor does the new
    officeholders extract (the old one is taken out of the landing folder)."""
    _company_extract(
        landing / "asic_companies" / "company_202611.csv",
        [
            _company("NEWCO PTY LTD", NEWCO_ACN),
            *(_company(f"FILLER {acn} PTY LTD", acn) for acn in FILLER_ACNS),
            _company("LATECOMER PTY LTD", make_acn(107)),
            _company("LATECOMER TWO PTY LTD", make_acn(108)),
        ],
    )
    (landing / "directors" / "officeholders_2025.csv").unlink()
    _officeholders(
        landing / "directors" / "officeholders_2026.csv",
        [f'{NEWCO_ACN},"SMITH, JOHN PAUL",DIRECTOR,2025-02-01,,1970-01-01,2026-11-01'],
    )


def _links(warehouse_path: Path) -> list[dict[str, Any]]:
    return query(
        warehouse_path,
        "select abn, person_name, deregistered_acn, deregistered_company_name,"
        " deregistration_date, officeholder_role, months_before_as_of"
        " from marts.phoenix_links order by all",
    )


def _settings(root: Path) -> Settings:
    data = root / "data"
    (data / "landing").mkdir(parents=True, exist_ok=True)
    return get_settings(data_dir=data, parse_workers=1, progress=False, max_row_drift=1.0)


NEWCO_LINK = {
    "abn": abn_from_acn(NEWCO_ACN),
    "person_name": "SMITH, JOHN PAUL",
    "deregistered_acn": OLDCO_ACN,
    "deregistered_company_name": "OLDCO PTY LTD",
    "deregistration_date": D(2025, 1, 15),
    "officeholder_role": "DIRECTOR",
    "months_before_as_of": 22,
}


def test_the_warehouse_remembers_what_the_extracts_forget(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _first_extracts(settings.landing_dir)
    _load_and_build(settings, tmp_path)
    # the namesake born in 1985 is another person: no link to NAMESAKE PTY LTD
    assert _links(settings.warehouse) == [NEWCO_LINK]

    _newer_extracts(settings.landing_dir)
    _load_and_build(settings, tmp_path)
    forgotten = f"acn in ('{OLDCO_ACN}', '{NAMESAKE_ACN}')"  # fixed test ACNs
    assert query(
        settings.warehouse, f"select count(*) as n from raw.asic__companies where {forgotten}"
    ) == [{"n": 0}]
    assert query(
        settings.warehouse,
        f"select count(*) as n from raw.directors__officeholders where {forgotten}",
    ) == [{"n": 0}]
    assert _links(settings.warehouse) == [NEWCO_LINK]
    (assessment,) = query(
        settings.warehouse,
        "select phoenix_status, tile_status, link_count, latest_deregistered_acn"
        f" from marts.phoenix_assessments where abn = '{abn_from_acn(NEWCO_ACN)}'",
    )
    assert assessment == {
        "phoenix_status": "linked",
        "tile_status": "FAIL",
        "link_count": 1,
        "latest_deregistered_acn": OLDCO_ACN,
    }
    history = query(
        settings.warehouse,
        "select acn, dbt_valid_to from snapshots.asic__deregistered_companies order by acn",
    )
    assert history == [
        {"acn": OLDCO_ACN, "dbt_valid_to": None},
        {"acn": NAMESAKE_ACN, "dbt_valid_to": None},
    ]


def test_without_history_the_newer_extract_alone_has_no_link(tmp_path: Path) -> None:
    """The control: the same newer files in a fresh warehouse give no link at all."""
    settings = _settings(tmp_path)
    _first_extracts(settings.landing_dir)
    (settings.landing_dir / "asic_companies" / "company_202502.csv").unlink()
    _newer_extracts(settings.landing_dir)
    _load_and_build(settings, tmp_path)
    assert _links(settings.warehouse) == []
    (assessment,) = query(
        settings.warehouse,
        "select phoenix_status from marts.phoenix_assessments"
        f" where abn = '{abn_from_acn(NEWCO_ACN)}'",
    )
    assert assessment == {"phoenix_status": "clear"}


# --- the statuses on the dbt fixture warehouse of test_dbt_build ----------------------------

SOLE_TRADER_ABN = "51824753556"
BETA_ACN = "010499966"


def _officeholder(acn: str, name: str, **values: Any) -> dict[str, Any]:
    return {
        "acn": acn,
        "person_name": name,
        "role": "DIRECTOR",
        "extracted_date": D(2026, 11, 1),
    } | values


@pytest.fixture(scope="module")
def statuses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    work = tmp_path_factory.mktemp("phoenix_statuses")
    dereg = make_acn(201)
    wh = make_warehouse(
        work / "warehouse.duckdb",
        {
            "raw.abr__abns": ABNS,
            "raw.asic__companies": [
                {
                    "company_name": "ACME PTY LTD",
                    "acn": ACME_ACN,
                    "status": "REGD",
                    "current_name_indicator": "Y",
                    "abn": ACME_ABN,
                },
                {
                    "company_name": "BETA PTY LTD",
                    "acn": BETA_ACN,
                    "status": "REGD",
                    "current_name_indicator": "Y",
                },
                {
                    "company_name": "GONE PTY LTD",
                    "acn": dereg,
                    "status": "DRGD",
                    "date_of_deregistration": D(2026, 1, 31),
                    "current_name_indicator": "Y",
                },
            ],
            "raw.directors__officeholders": [
                _officeholder(ACME_ACN, "CITIZEN, JANE MARY", appointed_date=D(2020, 1, 1)),
                _officeholder(dereg, "Citizen, J", role="SECRETARY", ceased_date=D(2026, 1, 31)),
            ],
        },
    )
    result = run_dbt("build", wh, work, "--vars", f'{{"as_of": "{AS_OF}"}}')
    assert result.returncode == 0, result.stdout + result.stderr
    rows = query(wh, "select * from marts.phoenix_assessments")
    return {row["abn"]: row for row in rows}


def test_every_entity_is_assessed_once(statuses: dict[str, dict[str, Any]]) -> None:
    assert sorted(statuses) == sorted(row["abn"] for row in ABNS)


def test_director_of_a_recently_deregistered_company_fails(
    statuses: dict[str, dict[str, Any]],
) -> None:
    acme = statuses[ACME_ABN]
    assert (acme["phoenix_status"], acme["tile_status"], acme["phoenix_pattern"]) == (
        "linked",
        "FAIL",
        True,
    )
    assert (acme["latest_deregistered_company_name"], acme["latest_deregistration_date"]) == (
        "GONE PTY LTD",
        D(2026, 1, 31),
    )
    assert acme["latest_linked_director"] == "CITIZEN, JANE MARY"


def test_no_acn_and_no_officeholders_are_not_applicable(
    statuses: dict[str, dict[str, Any]],
) -> None:
    assert statuses[SOLE_TRADER_ABN]["phoenix_status"] == "no_acn"
    beta = statuses[abn_from_acn(BETA_ACN)]  # a company, but nobody holds office in it
    assert (beta["phoenix_status"], beta["tile_status"]) == ("no_officeholders", "N/A")


def test_no_director_data_is_never_pass(tmp_path: Path) -> None:
    wh = make_warehouse(tmp_path / "warehouse.duckdb", {"raw.abr__abns": ABNS})
    result = run_dbt("build", wh, tmp_path, "--vars", f'{{"as_of": "{AS_OF}"}}')
    assert result.returncode == 0, result.stdout + result.stderr
    rows = query(
        wh,
        "select phoenix_status, tile_status, count(*) as n from marts.phoenix_assessments group by all order by all",
    )
    assert rows == [
        {"phoenix_status": "no_acn", "tile_status": "N/A", "n": 3},  # no ASIC company matched
        {"phoenix_status": "no_director_data", "tile_status": "N/A", "n": 1},  # ACME
    ]
