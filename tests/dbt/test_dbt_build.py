"""The dbt project builds on a tiny warehouse and the marts say what the registers say.

Each test builds its own DuckDB file in ``tmp_path`` with the raw tables of
``pipelines.ingest.tables`` and runs the real ``dbt`` executable of this environment.
(No ``__init__.py`` in this folder: a package named ``dbt`` would shadow dbt itself.)
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest
import yaml

from pipelines.identifiers import abn_from_acn
from pipelines.ingest.sources import SOURCES
from pipelines.ledgers.run import INPUT_TABLES
from pipelines.settings import PROJECT_ROOT, Settings
from pipelines.warehouse.connection import create_table_sql
from pipelines.warehouse.meta import ensure_meta

DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"
DBT = Path(sys.executable).parent / "dbt"

# Every declared raw table, as the loader creates them (empty when a source has no files).
RAW_TABLES: dict[str, pa.Schema] = {
    f"raw.{table.name}": table.schema
    for source in SOURCES.values()
    for table in source.tables.values()
}

# A company the ABR links to ASIC by its ASIC number; it has a former name too.
ACME_ACN = "004085616"
ACME_ABN = abn_from_acn(ACME_ACN)  # 53004085616
# A company without an ASIC number in the ABR; ASIC has only former-name rows for it, so the
# match is by ACN = last 9 digits of the ABN and the name comes from `current_name`.
BETA_ACN = "010499966"
BETA_ABN = abn_from_acn(BETA_ACN)  # 25010499966
SOLE_TRADER_ABN = "51824753556"
TRUST_ABN = abn_from_acn("123456780")  # 11123456780; a trust's ABN, not a company's

D = dt.date


def _abn(abn: str, **values: Any) -> dict[str, Any]:
    row = {
        "abn": abn,
        "abn_status": "ACT",
        "abn_status_from_date": D(2001, 7, 1),
        "record_last_updated_date": D(2024, 11, 1),
        "replaced": "N",
        "is_individual": False,
        "source_file": "20241127_Public01.xml",
        "source_line": 1,
    }
    return row | values


ABNS: list[dict[str, Any]] = [
    _abn(
        ACME_ABN,
        entity_type_code="PRV",
        entity_type_text="Australian Private Company",
        entity_name="ACME  PTY LTD",
        state="QLD",
        postcode="4000",
        asic_number=ACME_ACN,
        asic_number_type="undetermined",
        gst_status="ACT",
        gst_status_from_date=D(2001, 7, 1),
    ),
    _abn(
        BETA_ABN,
        entity_type_code="PRV",
        entity_type_text="Australian Private Company",
        entity_name="BETA HOLDINGS PTY LTD",
        state="",
        postcode="0000",
        gst_status="CAN",
        gst_status_from_date=D(2015, 6, 30),
    ),
    _abn(
        SOLE_TRADER_ABN,
        entity_type_code="IND",
        entity_type_text="Individual/Sole Trader",
        is_individual=True,
        entity_name="JANE MARY CITIZEN",
        given_name="JANE",
        other_given_name="MARY",
        family_name="CITIZEN",
        state="VIC",
        postcode="3000",
        gst_status="NON",
        gst_status_from_date=D(1900, 1, 1),
    ),
    _abn(
        TRUST_ABN,
        entity_type_code="DTT",
        entity_type_text="Discretionary Trading Trust",
        entity_name="The Trustee for the Smith Family Trust",
        state="NSW",
        postcode="2000",
    ),
]

OTHER_NAMES: list[dict[str, Any]] = [
    {"abn": ACME_ABN, "name_type": "TRD", "name": "Acme Plumbing & Gas"},
    {"abn": ACME_ABN, "name_type": "BN", "name": "ACME GAS"},
    {"abn": SOLE_TRADER_ABN, "name_type": "BN", "name": "  JANE'S   CAKES "},
    {
        "abn": TRUST_ABN,
        "name_type": "DGR",
        "name": "SMITH FAMILY FOUNDATION FUND",
        "dgr_status": "ACT",
        "dgr_status_from_date": D(2010, 1, 1),
    },
]

COMPANIES: list[dict[str, Any]] = [
    {
        "company_name": "ACME PTY LTD",
        "acn": ACME_ACN,
        "type": "APTY",
        "class": "LMSH",
        "sub_class": "PROP",
        "status": "REGD",
        "date_of_registration": D(1980, 1, 2),
        "current_name_indicator": "Y",
        "abn": ACME_ABN,
    },
    {
        "company_name": "ACME TRADING PTY LTD",
        "acn": ACME_ACN,
        "type": "APTY",
        "class": "LMSH",
        "sub_class": "PROP",
        "status": "REGD",
        "date_of_registration": D(1980, 1, 2),
        "current_name_indicator": "",
        "abn": ACME_ABN,
        "current_name": "ACME PTY LTD",
        "current_name_start_date": D(1995, 3, 1),
    },
    {
        "company_name": "BETA NOMINEES PTY LTD",
        "acn": BETA_ACN,
        "type": "APTY",
        "class": "LMSH",
        "sub_class": "PROP",
        "status": "DRGD",
        "date_of_registration": D(1990, 5, 5),
        "date_of_deregistration": D(2024, 8, 1),
        "current_name_indicator": "",
        "abn": "",
        "current_name": "BETA HOLDINGS PTY LTD",
        "current_name_start_date": D(2005, 1, 1),
    },
]

BUSINESS_NAMES: list[dict[str, Any]] = [
    {
        "register_name": "BUSINESS NAMES",
        "bn_name": "     ACME GAS",
        "bn_status": "Registered",
        "bn_reg_dt": D(2012, 5, 28),
        "bn_abn": ACME_ABN,
    },
    {
        "register_name": "BUSINESS NAMES",
        "bn_name": "  JANE'S CAKES",
        "bn_status": "Cancelled",
        "bn_reg_dt": D(2013, 1, 1),
        "bn_cancel_dt": D(2020, 1, 1),
        "bn_abn": SOLE_TRADER_ABN,
    },
    {
        "register_name": "BUSINESS NAMES",
        "bn_name": "   NOBODY'S SHOP",
        "bn_status": "Registered",
        "bn_reg_dt": D(2014, 1, 1),
        "bn_abn": "",
    },
]


def make_warehouse(path: Path, rows: Mapping[str, Sequence[Mapping[str, Any]]]) -> Path:
    """A DuckDB file holding every raw table (created empty), the given rows, and the load
    bookkeeping (schema meta) with no load recorded: no source counts as loaded."""
    con = duckdb.connect(str(path))
    try:
        ensure_meta(con)
        con.execute("create schema if not exists raw")
        for name, schema in RAW_TABLES.items():
            con.execute(create_table_sql(name, schema))
            table_rows = rows.get(name, [])
            if not table_rows:
                continue
            filled = [
                {"source_file": "fixture", "source_line": line} | dict(row)
                for line, row in enumerate(table_rows, start=1)
            ]
            batch = pa.Table.from_pylist(
                [{f.name: row.get(f.name) for f in schema} for row in filled],
                schema=schema,
            )
            con.register("batch", batch)
            con.execute(f"insert into {name} select * from batch")  # name from RAW_TABLES
            con.unregister("batch")
    finally:
        con.close()
    return path


def run_dbt(
    command: str, warehouse: Path, work: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    env = os.environ | {
        "BVS_WAREHOUSE": str(warehouse),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        **(env or {}),
    }
    return subprocess.run(
        [
            str(DBT),
            command,
            "--project-dir",
            str(DBT_PROJECT_DIR),
            "--profiles-dir",
            str(DBT_PROJECT_DIR),
            "--target-path",
            str(work / "target"),
            "--log-path",
            str(work / "logs"),
            *args,
        ],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )


def published_snapshot(
    work: Path, rows: Mapping[str, Sequence[Mapping[str, Any]]], select: str, as_of: str
) -> Settings:
    """Fixture rows through the selected models (and what they read) into a published
    serving snapshot under ``work``, published as the pipeline does (the models' publish
    keys and orders); returns the settings that open it."""
    from pipelines.dbt import publish_keys, publish_orders
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import publish_snapshot

    settings = get_settings(data_dir=work / "data", progress=False)
    settings.data_dir.mkdir()
    warehouse = make_warehouse(settings.warehouse, rows)
    result = run_dbt(
        "build",
        warehouse,
        work,
        "--select",
        select,
        "--indirect-selection",
        "cautious",  # not the tests of unselected marts that also read the same models
        "--vars",
        f'{{"as_of": "{as_of}"}}',
    )
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = json.loads((work / "target" / "manifest.json").read_bytes())
    con = duckdb.connect(str(warehouse))
    try:
        publish_snapshot(
            con,
            settings,
            as_of=dt.date.fromisoformat(as_of),
            keys=publish_keys(manifest),
            orders=publish_orders(manifest),
        )
    finally:
        con.close()
    return settings


def results_by_name(work: Path) -> dict[str, str]:
    run_results = json.loads((work / "target" / "run_results.json").read_text())
    return {r["unique_id"]: r["status"] for r in run_results["results"]}


def query(warehouse: Path, sql: str) -> list[dict[str, Any]]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        cur = con.execute(sql)
        columns = [c[0] for c in cur.description]
        return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The fixture registers, built once for every assertion of this module."""
    work = tmp_path_factory.mktemp("dbt_build")
    warehouse = make_warehouse(
        work / "warehouse.duckdb",
        {
            "raw.abr__abns": ABNS,
            "raw.abr__other_names": OTHER_NAMES,
            "raw.asic__companies": COMPANIES,
            "raw.asic__business_names": BUSINESS_NAMES,
        },
    )
    con = duckdb.connect(str(warehouse))
    try:  # what the live checks (pipelines/live, asset live/tiles) found for one ABN
        con.executemany(
            "insert into live.tiles values (?, ?, ?, ?, ?, timestamp '2026-11-01 00:00:00')",
            [
                (TRUST_ABN, "domain", "PASS", "Age 2 years or more, DMARC present, SPF present => PASS",
                 '{"domain": "trust.example.com.au"}'),
                (TRUST_ABN, "trust", "N/A", "Not run: a blocklist rate limited us or did not answer (no listing found) => N/A",
                 '{"rate_limited": {"retry_at": "2026-11-01T01:00:00Z"}}'),
            ],
        )  # fmt: skip
    finally:
        con.close()
    result = run_dbt("build", warehouse, work)
    assert result.returncode == 0, result.stdout + result.stderr
    return warehouse, work


def entity(warehouse: Path, abn: str) -> dict[str, Any]:
    (row,) = query(warehouse, f"select * from marts.entities where abn = '{abn}'")  # fixed ABN
    return row


def test_every_model_unit_test_and_data_test_passes(built: tuple[Path, Path]) -> None:
    _, work = built
    statuses = results_by_name(work)
    unit_tests = [uid for uid in statuses if uid.startswith("unit_test.")]
    assert len(unit_tests) >= 10
    # The one warning: a business-name registration without an ABN is a third of this register.
    warned = {uid for uid, status in statuses.items() if status == "warn"}
    assert warned == {"test.bvs.assert_business_names_mostly_have_a_known_abn"}
    # exposures (models/exposures.yml: the API and the ledger reports) are nodes dbt build
    # lists without running anything
    exposures = {uid for uid in statuses if uid.startswith("exposure.")}
    assert exposures and all(statuses[uid] == "no-op" for uid in exposures)
    assert all(
        s in {"success", "pass"} for uid, s in statuses.items() if uid not in warned | exposures
    )


def test_no_check_passes_on_data_that_was_never_loaded(built: tuple[Path, Path]) -> None:
    """Issue 4: a verification never shows PASS for a check whose data was not loaded. The
    fixture records no load in meta.loads, so every check that reads a source is N/A with
    the reason, although the raw tables hold rows."""
    warehouse, _ = built
    rows = query(
        warehouse,
        "select check_id, status, reason from marts.tiles where abn = '" + ACME_ABN + "'",
    )
    by_check = {r["check_id"]: r for r in rows}
    assert len(by_check) == 36
    assert {r["status"] for r in rows} == {"N/A"}
    for check_id in ("abn_status", "insolvency", "gazette", "conduct", "phoenix", "tax_debt"):
        assert by_check[check_id]["reason"].startswith("Data not loaded => N/A ("), check_id
    assert "Company insolvency gazette" in by_check["gazette"]["reason"]
    (verification,) = query(
        warehouse,
        "select assurance_score, risk_level from marts.verifications where abn = '"
        + ACME_ABN
        + "'",
    )
    assert verification == {"assurance_score": None, "risk_level": "low"}


def test_the_published_risk_bands_are_the_declared_ones(built: tuple[Path, Path]) -> None:
    """dbt_project.yml's var risk_levels is the one declaration: marts.risk_levels carries it
    to the API (the scoring macros' bands are proven by the verifications unit test)."""
    warehouse, _ = built
    declared = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text())["vars"][
        "risk_levels"
    ]
    published = query(
        warehouse, "select severity, severity_rank, risk_floor, level from marts.risk_levels"
    )
    assert sorted(published, key=lambda r: r["severity_rank"]) == sorted(
        ({**b, "risk_floor": float(b["risk_floor"])} for b in declared),
        key=lambda b: b["severity_rank"],
    )


def test_the_published_warn_cluster_rule_is_the_declared_one(built: tuple[Path, Path]) -> None:
    """dbt_project.yml's var warn_cluster is the one declaration: marts.warn_cluster_rule
    carries it to bvs verify --live and the API (the macros' rule is proven by the
    risk_flags unit test, Python's by tests/live/test_warn_cluster.py)."""
    warehouse, _ = built
    declared = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text())["vars"][
        "warn_cluster"
    ]
    assert query(warehouse, "select min_warns, cascade_checks from marts.warn_cluster_rule") == [
        {"min_warns": declared["min_warns"], "cascade_checks": ",".join(declared["cascade_checks"])}
    ]


def test_the_published_identity_failure_rule_is_the_declared_one(
    built: tuple[Path, Path],
) -> None:
    """dbt_project.yml's var identity_failures (docs/decisions/21-decisive-identity-failure.md) is the one declaration:
    marts.identity_failure_rule carries it, with the floor of its severity's band, to the API."""
    warehouse, _ = built
    declared = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text())["vars"]
    floor = next(
        b["risk_floor"]
        for b in declared["risk_levels"]
        if b["severity"] == declared["identity_failures"]["severity"]
    )
    assert query(
        warehouse, "select checks, severity, risk_floor from marts.identity_failure_rule"
    ) == [
        {
            "checks": ",".join(declared["identity_failures"]["checks"]),
            "severity": declared["identity_failures"]["severity"],
            "risk_floor": float(floor),
        }
    ]


def test_live_tiles_come_from_the_live_checks_and_the_rest_say_not_run(
    built: tuple[Path, Path],
) -> None:
    """Issue 21: the verification models read the live checks' tiles (live.tiles); an ABN
    they did not run for is N/A "Not run" (docs/decisions/18-a-check-that-did-not-run-is-unknown.md)."""
    warehouse, _ = built
    rows = query(warehouse, "select abn, check_id, status, reason, detail from marts.tiles"
                 " where check_id in ('domain', 'trust', 'email') order by abn, check_id")  # fmt: skip
    tiles = {(r["abn"], r["check_id"]): r for r in rows}
    assert tiles[(TRUST_ABN, "domain")]["status"] == "PASS"
    assert "trust.example.com.au" in tiles[(TRUST_ABN, "domain")]["detail"]
    assert tiles[(TRUST_ABN, "trust")]["reason"].startswith("Not run: a blocklist rate limited us")
    assert "retry_at" in tiles[(TRUST_ABN, "trust")]["detail"]
    assert tiles[(TRUST_ABN, "email")]["reason"].startswith(
        "Not run: MX, SPF and DMARC not checked live"
    )
    assert tiles[(ACME_ABN, "domain")]["status"] == "N/A"
    assert tiles[(ACME_ABN, "domain")]["reason"].startswith(
        "Not run: WHOIS/RDAP and DNS not checked live"
    )


def test_company_matched_by_asic_number_has_its_asic_status(built: tuple[Path, Path]) -> None:
    warehouse, _ = built
    acme = entity(warehouse, ACME_ABN)
    assert acme["legal_name"] == "ACME PTY LTD"
    assert acme["acn"] == ACME_ACN
    assert acme["asic_match_method"] == "asic_number"
    assert acme["asic_company_name"] == "ACME PTY LTD"  # the current name, not the former one
    assert acme["asic_company_status"] == "REGD"
    assert acme["asic_company_type"] == "APTY"
    assert acme["asic_registration_date"] == D(1980, 1, 2)
    assert (acme["state"], acme["postcode"]) == ("QLD", "4000")


def test_former_name_only_company_matched_by_abn_suffix(built: tuple[Path, Path]) -> None:
    warehouse, _ = built
    beta = entity(warehouse, BETA_ABN)
    assert beta["acn"] == BETA_ACN
    assert beta["asic_match_method"] == "abn_suffix"
    assert beta["asic_company_name"] == "BETA HOLDINGS PTY LTD"
    assert beta["asic_company_status"] == "DRGD"
    assert beta["asic_deregistration_date"] == D(2024, 8, 1)
    # ABR placeholders: postcode 0000 and an empty state mean unknown
    assert beta["postcode"] is None
    assert beta["state"] is None


def test_sole_trader_gst_non_has_no_date_and_no_company(built: tuple[Path, Path]) -> None:
    warehouse, _ = built
    jane = entity(warehouse, SOLE_TRADER_ABN)
    assert jane["is_individual"] is True
    assert jane["gst_status"] == "NON"
    assert jane["gst_status_from_date"] is None
    assert jane["acn"] is None
    assert jane["asic_company_status"] is None
    assert jane["asic_match_method"] is None


def test_entity_names_lists_every_name_once_with_its_strongest_kind(
    built: tuple[Path, Path],
) -> None:
    warehouse, _ = built
    rows = query(
        warehouse,
        "select abn, name, name_normalised, name_kind, is_legal_name, bn_status, sources"
        " from marts.entity_names order by abn, name",
    )
    names = {(r["abn"], r["name"]): r for r in rows}
    assert set(names) == {
        (ACME_ABN, "ACME PTY LTD"),
        (ACME_ABN, "Acme Plumbing & Gas"),
        (ACME_ABN, "ACME GAS"),
        (SOLE_TRADER_ABN, "JANE MARY CITIZEN"),
        (SOLE_TRADER_ABN, "JANE'S CAKES"),
        (TRUST_ABN, "The Trustee for the Smith Family Trust"),
        (TRUST_ABN, "SMITH FAMILY FOUNDATION FUND"),
        (BETA_ABN, "BETA HOLDINGS PTY LTD"),
    }  # NOBODY'S SHOP has no ABN: left out

    trading = names[(ACME_ABN, "Acme Plumbing & Gas")]
    assert trading["name_kind"] == "trading"
    assert trading["name_normalised"] == "ACME PLUMBING AND GAS"
    assert trading["sources"] == "abr__other_names"
    assert trading["bn_status"] is None

    legal = names[(ACME_ABN, "ACME PTY LTD")]
    assert (legal["name_kind"], legal["is_legal_name"], legal["name_normalised"]) == (
        "legal",
        True,
        "ACME",
    )

    business = names[(ACME_ABN, "ACME GAS")]
    assert business["name_kind"] == "business_name"
    assert business["bn_status"] == "Registered"
    assert business["sources"] == "abr__other_names,asic__business_names"

    cakes = names[(SOLE_TRADER_ABN, "JANE'S CAKES")]
    assert (cakes["bn_status"], cakes["name_normalised"]) == ("Cancelled", "JANES CAKES")

    trust = names[(TRUST_ABN, "The Trustee for the Smith Family Trust")]
    assert trust["name_normalised"] == "SMITH FT"
    assert names[(TRUST_ABN, "SMITH FAMILY FOUNDATION FUND")]["name_kind"] == "dgr"


def test_the_serving_snapshot_carries_every_comment_the_warehouse_has(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """dbt's persist_docs documents the marts in the warehouse; an analyst sent to the
    serving snapshot reads the same table, view and column comments there."""
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import open_snapshot, publish_snapshot
    from tests.warehouse.test_snapshot import comments_of

    warehouse, _ = built
    settings = get_settings(data_dir=tmp_path / "data", progress=False)
    con = duckdb.connect(str(warehouse))
    try:
        info = publish_snapshot(con, settings, as_of=D(2026, 11, 20))
        published = {name.split(".", 1)[1] for name in [*info.tables, *info.views]}
        documented = {
            key: text
            for key, text in comments_of(con).items()
            if key[0] == "marts" and key[1] in published
        }
    finally:
        con.close()
    with open_snapshot(settings) as snap:
        carried = {key: text for key, text in comments_of(snap).items() if key[0] == "marts"}

    columns = [key for key in documented if key[2]]
    assert len(columns) > 300 and len(documented) - len(columns) == len(published)
    assert len(carried) == len(documented)
    assert carried == documented


def test_marts_land_in_their_own_schemas(built: tuple[Path, Path]) -> None:
    warehouse, _ = built
    rows = query(
        warehouse,
        "select table_schema, table_name, table_type from information_schema.tables"
        " where table_schema in ('staging', 'intermediate', 'marts')"
        " order by table_schema, table_name",
    )
    assert [(r["table_schema"], r["table_name"], r["table_type"]) for r in rows] == [
        ("intermediate", "int_activist__campaigns_matched", "BASE TABLE"),
        ("intermediate", "int_activist__pattern_elements", "VIEW"),
        ("intermediate", "int_check_evidence__activist", "VIEW"),
        ("intermediate", "int_check_evidence__adverse", "BASE TABLE"),
        ("intermediate", "int_check_evidence__adviser_bans", "VIEW"),
        ("intermediate", "int_check_evidence__asx", "VIEW"),
        ("intermediate", "int_check_evidence__banned_disqualified", "VIEW"),
        ("intermediate", "int_check_evidence__business_names", "BASE TABLE"),
        ("intermediate", "int_check_evidence__charities", "VIEW"),
        ("intermediate", "int_check_evidence__financial_advisers", "BASE TABLE"),
        ("intermediate", "int_check_evidence__financial_services_licences", "VIEW"),
        ("intermediate", "int_check_evidence__gazette", "BASE TABLE"),
        ("intermediate", "int_check_evidence__industry", "BASE TABLE"),
        ("intermediate", "int_check_evidence__insolvency", "BASE TABLE"),
        ("intermediate", "int_check_evidence__licence_coverage", "VIEW"),
        ("intermediate", "int_check_evidence__licences", "BASE TABLE"),
        ("intermediate", "int_check_evidence__live", "VIEW"),
        ("intermediate", "int_check_evidence__loaded", "VIEW"),
        ("intermediate", "int_check_evidence__people", "BASE TABLE"),
        ("intermediate", "int_check_evidence__phoenix", "VIEW"),
        ("intermediate", "int_check_evidence__registers", "BASE TABLE"),
        ("intermediate", "int_check_inputs", "BASE TABLE"),
        ("intermediate", "int_check_outcomes", "BASE TABLE"),
        ("intermediate", "int_check_sources", "VIEW"),
        ("intermediate", "int_companies_deregistered", "VIEW"),
        ("intermediate", "int_entity_inputs", "BASE TABLE"),
        ("intermediate", "int_entity_names_unioned", "VIEW"),
        ("intermediate", "int_match_records__adverse", "VIEW"),
        ("intermediate", "int_match_records__afs_licensees", "VIEW"),
        ("intermediate", "int_match_records__asx_listed", "VIEW"),
        ("intermediate", "int_match_records__banned_organisations", "VIEW"),
        ("intermediate", "int_match_records__business_names", "VIEW"),
        ("intermediate", "int_match_records__charities", "VIEW"),
        ("intermediate", "int_match_records__credit_licensees", "VIEW"),
        ("intermediate", "int_match_records__financial_advisers", "VIEW"),
        ("intermediate", "int_match_records__gazette", "VIEW"),
        ("intermediate", "int_match_records__insolvency", "VIEW"),
        ("intermediate", "int_match_records__licences", "VIEW"),
        ("intermediate", "int_match_records__ppsr", "VIEW"),
        ("intermediate", "int_match_records__registers", "VIEW"),
        ("intermediate", "int_matching__abn_inputs", "BASE TABLE"),
        ("intermediate", "int_matching__changed_abn_names", "BASE TABLE"),
        ("intermediate", "int_matching__entity_names_keyed", "BASE TABLE"),
        ("intermediate", "int_matching__name_similarities", "BASE TABLE"),
        ("intermediate", "int_matching__people_keyed", "BASE TABLE"),
        ("intermediate", "int_matching__register_names", "BASE TABLE"),
        ("intermediate", "int_matching__sole_trader_inputs", "VIEW"),
        ("intermediate", "int_matching__sole_traders_keyed", "BASE TABLE"),
        ("intermediate", "int_officeholders_keyed", "BASE TABLE"),
        ("intermediate", "int_search__name_trigram_counts", "BASE TABLE"),
        ("intermediate", "int_search__names", "VIEW"),
        ("intermediate", "int_squeeze__inputs", "BASE TABLE"),
        ("marts", "activist_campaigns", "BASE TABLE"),
        ("marts", "activist_entities", "BASE TABLE"),
        ("marts", "checks", "BASE TABLE"),
        ("marts", "entities", "BASE TABLE"),
        ("marts", "entity_names", "BASE TABLE"),
        ("marts", "flags", "BASE TABLE"),
        ("marts", "identity_failure_rule", "BASE TABLE"),
        ("marts", "match_adverse", "BASE TABLE"),
        ("marts", "match_afs_licensees", "BASE TABLE"),
        ("marts", "match_asx_listed", "BASE TABLE"),
        ("marts", "match_banned_organisations", "BASE TABLE"),
        ("marts", "match_banned_persons", "BASE TABLE"),
        ("marts", "match_business_names", "BASE TABLE"),
        ("marts", "match_charities", "BASE TABLE"),
        ("marts", "match_credit_licensees", "BASE TABLE"),
        ("marts", "match_financial_advisers", "BASE TABLE"),
        ("marts", "match_gazette", "BASE TABLE"),
        ("marts", "match_insolvency", "BASE TABLE"),
        ("marts", "match_licences", "BASE TABLE"),
        ("marts", "match_liquidators", "BASE TABLE"),
        ("marts", "match_ppsr", "BASE TABLE"),
        ("marts", "match_registers", "BASE TABLE"),
        ("marts", "network_officeholders", "BASE TABLE"),
        ("marts", "phoenix_assessments", "BASE TABLE"),
        ("marts", "phoenix_links", "BASE TABLE"),
        ("marts", "risk_flags", "BASE TABLE"),
        ("marts", "risk_levels", "BASE TABLE"),
        ("marts", "search_names", "BASE TABLE"),
        ("marts", "search_word_frequencies", "BASE TABLE"),
        ("marts", "search_words", "BASE TABLE"),
        ("marts", "squeeze_latest", "BASE TABLE"),
        ("marts", "squeeze_scores", "BASE TABLE"),
        ("marts", "tiles", "VIEW"),
        ("marts", "verifications", "BASE TABLE"),
        ("marts", "viper", "BASE TABLE"),
        ("marts", "warn_cluster_rule", "BASE TABLE"),
        ("staging", "stg_abr__abn_record_hashes", "BASE TABLE"),
        ("staging", "stg_abr__abns", "BASE TABLE"),
        ("staging", "stg_abr__other_names", "VIEW"),
        ("staging", "stg_acnc__charities", "VIEW"),
        ("staging", "stg_activist__amplification", "VIEW"),
        ("staging", "stg_activist__campaigns", "VIEW"),
        ("staging", "stg_adverse__records", "VIEW"),
        ("staging", "stg_asic__afs_licensees", "VIEW"),
        ("staging", "stg_asic__banned_organisations", "VIEW"),
        ("staging", "stg_asic__banned_persons", "VIEW"),
        ("staging", "stg_asic__business_names", "VIEW"),
        ("staging", "stg_asic__companies", "VIEW"),
        ("staging", "stg_asic__company_names", "VIEW"),
        ("staging", "stg_asic__credit_licensees", "VIEW"),
        ("staging", "stg_asic__financial_advisers", "VIEW"),
        ("staging", "stg_asic__liquidators", "VIEW"),
        ("staging", "stg_asic__short_positions", "VIEW"),
        ("staging", "stg_asx__listed_companies", "VIEW"),
        ("staging", "stg_directors__officeholders", "VIEW"),
        ("staging", "stg_gazette__notices", "VIEW"),
        ("staging", "stg_industry__abn_industry", "VIEW"),
        ("staging", "stg_licences__licences", "VIEW"),
        ("staging", "stg_live__tiles", "VIEW"),
        ("staging", "stg_meta__source_loads", "VIEW"),
        ("staging", "stg_positioning__short_interest", "VIEW"),
        ("staging", "stg_ppsr__registrations", "VIEW"),
        ("staging", "stg_prices__daily", "VIEW"),
        ("staging", "stg_registers__records", "VIEW"),
    ]


def test_builds_with_only_the_abr_loaded_and_twice_in_a_row(tmp_path: Path) -> None:
    """Empty ASIC and other-name tables still build; a second build gives the same marts."""
    warehouse = make_warehouse(tmp_path / "warehouse.duckdb", {"raw.abr__abns": ABNS})
    for command in ("build", "run"):  # the rerun replaces every table and view in place
        result = run_dbt(command, warehouse, tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
    assert query(warehouse, "select count(*) as n from marts.entities") == [{"n": len(ABNS)}]
    assert query(
        warehouse, "select count(*) as n from marts.entities where asic_company_status is not null"
    ) == [{"n": 0}]
    assert query(warehouse, "select count(*) as n from marts.entity_names") == [{"n": len(ABNS)}]


def test_parse_needs_no_warehouse_file(tmp_path: Path) -> None:
    """Dagster parses the project at dev time, before any warehouse exists."""
    warehouse = tmp_path / "missing" / "warehouse.duckdb"
    result = run_dbt("parse", warehouse, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    # each source's warehouse address, its Dagster asset key (BvsTranslator.get_asset_key)
    sources = {
        s["identifier"]: [s["schema"], s["identifier"]] for s in manifest["sources"].values()
    }
    raw = {name: ["raw", name] for name in (t.split(".")[1] for t in RAW_TABLES)}
    meta = {name: ["meta", name] for name in ("loads", "manifest", "raw_tables")}
    ledger_inputs = {name: ["raw", name] for name in INPUT_TABLES}  # a ledger run's inputs
    live = {"tiles": ["live", "tiles"]}  # the live checks' tiles (asset live/tiles)
    assert sources == raw | meta | ledger_inputs | live
    assert not warehouse.parent.exists()


def test_conduct_reads_exactly_the_conduct_regulators_it_counts() -> None:
    """docs/decisions/17-a-register-that-does-not-cover-says-nothing.md: conduct is loaded when one of its own regulators has records
    (seed check_sources), and those must be the regulators its evidence counts
    (int_check_evidence__adverse): a list that drifted would load conduct on another
    regulator's records and PASS every ABN."""
    import csv
    import re

    with (DBT_PROJECT_DIR / "seeds" / "check_sources.csv").open() as f:
        (conduct,) = [r for r in csv.DictReader(f) if r["check_id"] == "conduct"]
    evidence = (
        DBT_PROJECT_DIR / "models" / "intermediate" / "checks" / "int_check_evidence__adverse.sql"
    ).read_text()
    found = re.search(r'set conduct_regulators = "\(([^)]*)\)"', evidence)
    assert found is not None
    counted = {r.strip().strip("'") for r in found.group(1).split(",")}
    assert set(conduct["register"].split("|")) == counted
    assert "FWO" not in counted and "NDIS_COMMISSION" not in counted
