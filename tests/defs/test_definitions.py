"""The Dagster code location: what a data engineer sees in the UI."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from pipelines.definitions import defs
from pipelines.ingest.sources import SOURCES

# A rename breaks lineage, saved selections and the UI's history: change this list on purpose.
EXPECTED_KEYS = [
    "intermediate/int_activist__campaigns_matched",
    "intermediate/int_activist__pattern_elements",
    "intermediate/int_check_evidence__activist",
    "intermediate/int_check_evidence__adverse",
    "intermediate/int_check_evidence__adviser_bans",
    "intermediate/int_check_evidence__asx",
    "intermediate/int_check_evidence__banned_disqualified",
    "intermediate/int_check_evidence__business_names",
    "intermediate/int_check_evidence__charities",
    "intermediate/int_check_evidence__financial_advisers",
    "intermediate/int_check_evidence__financial_services_licences",
    "intermediate/int_check_evidence__gazette",
    "intermediate/int_check_evidence__industry",
    "intermediate/int_check_evidence__insolvency",
    "intermediate/int_check_evidence__licence_coverage",
    "intermediate/int_check_evidence__licences",
    "intermediate/int_check_evidence__live",
    "intermediate/int_check_evidence__loaded",
    "intermediate/int_check_evidence__people",
    "intermediate/int_check_evidence__phoenix",
    "intermediate/int_check_evidence__registers",
    "intermediate/int_check_inputs",
    "intermediate/int_check_outcomes",
    "intermediate/int_check_sources",
    "intermediate/int_companies_deregistered",
    "intermediate/int_entity_inputs",
    "intermediate/int_entity_names_unioned",
    "intermediate/int_match_records__adverse",
    "intermediate/int_match_records__afs_licensees",
    "intermediate/int_match_records__asx_listed",
    "intermediate/int_match_records__banned_organisations",
    "intermediate/int_match_records__business_names",
    "intermediate/int_match_records__charities",
    "intermediate/int_match_records__credit_licensees",
    "intermediate/int_match_records__financial_advisers",
    "intermediate/int_match_records__gazette",
    "intermediate/int_match_records__insolvency",
    "intermediate/int_match_records__licences",
    "intermediate/int_match_records__ppsr",
    "intermediate/int_match_records__registers",
    "intermediate/int_matching__abn_inputs",
    "intermediate/int_matching__changed_abn_names",
    "intermediate/int_matching__entity_names_keyed",
    "intermediate/int_matching__name_similarities",
    "intermediate/int_matching__people_keyed",
    "intermediate/int_matching__register_names",
    "intermediate/int_matching__sole_trader_inputs",
    "intermediate/int_matching__sole_traders_keyed",
    "intermediate/int_officeholders_keyed",
    "intermediate/int_search__name_trigram_counts",
    "intermediate/int_search__names",
    "intermediate/int_squeeze__inputs",
    "ledgers/history",
    "ledgers/int_ledger_abn_facts",
    "ledgers/int_ledger_invoice_names_compared",
    "ledgers/ledger_changes",
    "ledgers/ledger_supplier_states",
    "ledgers/ledger_verifications",
    "live/tiles",
    "marts/activist_campaigns",
    "marts/activist_entities",
    "marts/checks",
    "marts/entities",
    "marts/entity_names",
    "marts/flags",
    "marts/identity_failure_rule",
    "marts/match_adverse",
    "marts/match_afs_licensees",
    "marts/match_asx_listed",
    "marts/match_banned_organisations",
    "marts/match_banned_persons",
    "marts/match_business_names",
    "marts/match_charities",
    "marts/match_credit_licensees",
    "marts/match_financial_advisers",
    "marts/match_gazette",
    "marts/match_insolvency",
    "marts/match_licences",
    "marts/match_liquidators",
    "marts/match_ppsr",
    "marts/match_registers",
    "marts/network_officeholders",
    "marts/phoenix_assessments",
    "marts/phoenix_links",
    "marts/risk_flags",
    "marts/risk_levels",
    "marts/search_names",
    "marts/search_word_frequencies",
    "marts/search_words",
    "marts/squeeze_latest",
    "marts/squeeze_scores",
    "marts/tiles",
    "marts/verifications",
    "marts/viper",
    "marts/warn_cluster_rule",
    "meta/loads",
    "meta/manifest",
    "meta/raw_tables",
    "raw/abr__abns",
    "raw/abr__other_names",
    "raw/acnc__charities",
    "raw/activist__amplification",
    "raw/activist__campaigns",
    "raw/adverse__records",
    "raw/asic__afs_licensees",
    "raw/asic__banned_organisations",
    "raw/asic__banned_persons",
    "raw/asic__business_names",
    "raw/asic__companies",
    "raw/asic__credit_licensees",
    "raw/asic__financial_advisers",
    "raw/asic__liquidators",
    "raw/asic__short_positions",
    "raw/asx__listed_companies",
    "raw/directors__officeholders",
    "raw/gazette__notices",
    "raw/industry__abn_industry",
    "raw/ledger__previous_states",
    "raw/ledger__snapshot_checks",
    "raw/ledger__snapshot_entities",
    "raw/ledger__snapshot_entity_names",
    "raw/ledger__snapshot_flags",
    "raw/ledger__snapshot_match_adverse",
    "raw/ledger__snapshot_match_gazette",
    "raw/ledger__snapshot_match_insolvency",
    "raw/ledger__snapshot_network_officeholders",
    "raw/ledger__snapshot_risk_flags",
    "raw/ledger__snapshot_verifications",
    "raw/ledger__suppliers",
    "raw/licences__licences",
    "raw/positioning__short_interest",
    "raw/ppsr__registrations",
    "raw/prices__asx",
    "raw/prices__crypto",
    "raw/prices__forex",
    "raw/registers__records",
    "seeds/anzsic_trades",
    "seeds/check_sources",
    "seeds/check_weights",
    "seeds/flag_definitions",
    "seeds/licence_registers",
    "seeds/squeeze_coverage",
    "serving/alerts",
    "serving/snapshot",
    "snapshots/asic__deregistered_companies",
    "snapshots/directors__officeholders",
    "staging/stg_abr__abn_record_hashes",
    "staging/stg_abr__abns",
    "staging/stg_abr__other_names",
    "staging/stg_acnc__charities",
    "staging/stg_activist__amplification",
    "staging/stg_activist__campaigns",
    "staging/stg_adverse__records",
    "staging/stg_asic__afs_licensees",
    "staging/stg_asic__banned_organisations",
    "staging/stg_asic__banned_persons",
    "staging/stg_asic__business_names",
    "staging/stg_asic__companies",
    "staging/stg_asic__company_names",
    "staging/stg_asic__credit_licensees",
    "staging/stg_asic__financial_advisers",
    "staging/stg_asic__liquidators",
    "staging/stg_asic__short_positions",
    "staging/stg_asx__listed_companies",
    "staging/stg_directors__officeholders",
    "staging/stg_gazette__notices",
    "staging/stg_industry__abn_industry",
    "staging/stg_licences__licences",
    "staging/stg_live__tiles",
    "staging/stg_meta__source_loads",
    "staging/stg_positioning__short_interest",
    "staging/stg_ppsr__registrations",
    "staging/stg_prices__daily",
    "staging/stg_registers__records",
]


def test_asset_keys_are_stable() -> None:
    keys = sorted(k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys())
    assert keys == EXPECTED_KEYS


def test_lineage_runs_from_raw_tables_to_the_snapshot() -> None:
    graph = defs.resolve_asset_graph()
    upstream = graph.get(dg.AssetKey(["serving", "snapshot"])).parent_keys
    assert {k.path[0] for k in upstream} == {"marts"}
    entities = graph.get(dg.AssetKey(["staging", "stg_abr__abns"])).parent_keys
    assert dg.AssetKey(["raw", "abr__abns"]) in entities


def test_every_raw_table_has_blocking_checks() -> None:
    graph = defs.resolve_asset_graph()
    checks = {(c.asset_key.path[-1], c.name) for c in graph.asset_check_keys}
    for source in SOURCES.values():
        for table in source.tables.values():
            assert (table.name, "not_empty") in checks
            assert (table.name, "row_count_drift") in checks
    specs = [
        spec
        for assets_def in defs.assets or []
        if isinstance(assets_def, dg.AssetsDefinition)
        for spec in assets_def.check_specs
        if spec.asset_key.path[0] == "raw"
    ]
    assert specs and all(spec.blocking for spec in specs)


def test_every_asset_says_what_it_is() -> None:
    """Each asset's description is written (dbt: the YAML's), not dagster-dbt's default
    ("dbt model <name>" and the raw SQL)."""
    graph = defs.resolve_asset_graph()
    undescribed = [
        key.to_user_string()
        for key in graph.get_all_asset_keys()
        if not (graph.get(key).description or "").strip()
        or (graph.get(key).description or "").startswith(
            ("dbt model ", "dbt snapshot ", "dbt seed ")
        )
    ]
    assert undescribed == []


def test_singular_dbt_tests_of_two_models_are_checks_of_one() -> None:
    """A singular test that reads two models is an asset check of the one its
    meta.dagster.ref names, so its result shows on that asset (not as an observation)."""
    checks = {
        (c.asset_key.to_user_string(), c.name) for c in defs.resolve_asset_graph().asset_check_keys
    }
    assert (
        "staging/stg_asic__business_names",
        "assert_business_names_mostly_have_a_known_abn",
    ) in checks
    assert ("marts/entity_names", "assert_entities_have_exactly_one_legal_name") in checks


def test_groups_show_the_layers() -> None:
    graph = defs.resolve_asset_graph()
    keys = graph.get_all_asset_keys()
    ledger_inputs = {k for k in keys if k.path[0] == "raw" and k.path[1].startswith("ledger__")}
    groups = {k.path[0]: graph.get(k).group_name for k in keys - ledger_inputs}
    assert {graph.get(k).group_name for k in ledger_inputs} == {"ledgers"}
    assert groups == {
        "raw": "ingest",
        "meta": "ingest",
        "seeds": "seeds",
        "staging": "staging",
        "snapshots": "snapshots",
        "intermediate": "intermediate",
        "marts": "marts",
        "serving": "publish",
        "ledgers": "ledgers",
        "live": "live",
    }


def test_schedule_and_sensor_exist_and_are_off_by_default() -> None:
    schedule = defs.resolve_schedule_def("weekly_register_refresh")
    sensor = defs.resolve_sensor_def("new_landing_files")
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    assert schedule.execution_timezone == "Australia/Brisbane"
    assert sensor.default_status == dg.DefaultSensorStatus.STOPPED


def test_sensor_requests_a_run_only_when_landing_files_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipelines.defs.ingest.sensors import new_landing_files

    monkeypatch.setenv("BVS_DATA_DIR", str(tmp_path))
    empty = new_landing_files(dg.build_sensor_context(cursor=None))
    assert isinstance(empty, dg.SkipReason)

    (tmp_path / "landing" / "abr").mkdir(parents=True)
    (tmp_path / "landing" / "abr" / "20261118_Public01.xml").write_text("x")
    first = new_landing_files(dg.build_sensor_context(cursor=None))
    assert isinstance(first, dg.SensorResult) and len(first.run_requests or []) == 1
    again = new_landing_files(dg.build_sensor_context(cursor=first.cursor))
    assert isinstance(again, dg.SkipReason)

    (tmp_path / "landing" / "abr" / "20261125_Public01.xml").write_text("new week")
    changed = new_landing_files(dg.build_sensor_context(cursor=first.cursor))
    assert isinstance(changed, dg.SensorResult) and changed.cursor != first.cursor


def test_ledger_job_is_partitioned_by_day_and_customer_with_its_checks() -> None:
    job = defs.resolve_job_def("ledger_nightly")
    partitions = job.partitions_def
    assert isinstance(partitions, dg.MultiPartitionsDefinition)
    assert {d.name for d in partitions.partitions_defs} == {"date", "customer"}
    graph = defs.resolve_asset_graph()
    checks = {(c.asset_key.to_user_string(), c.name) for c in graph.asset_check_keys}
    assert ("ledgers/history", "every_landed_ledger_was_read") in checks
    assert any(key == "ledgers/ledger_verifications" for key, _ in checks)  # dbt tests
    # the register refresh never builds the ledgers
    everything = defs.resolve_job_def("bvs_everything")
    assert not any(
        k.path[0] == "ledgers" or k.path[-1].startswith("ledger__")
        for k in everything.asset_layer.executable_asset_keys
    )


def test_ledger_schedule_and_publish_sensor_run_out_of_the_box() -> None:
    """docs/decisions/16-changes-between-runs.md, alerts within 24 hours of a material change, with no operator: the nightly
    re-verification and the re-verification after each publish ship running."""
    schedule = defs.resolve_schedule_def("nightly_ledger_reverification")
    sensor = defs.resolve_sensor_def("ledgers_after_publish")
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    assert schedule.execution_timezone == "Australia/Brisbane"
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING


def test_ledger_schedule_asks_one_run_per_customer_with_a_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datetime as dt

    from pipelines.defs.ledgers.schedules import nightly_ledger_reverification

    monkeypatch.setenv("BVS_DATA_DIR", str(tmp_path))
    for customer in ("acme", "beta-co"):
        folder = tmp_path / "landing" / "ledgers" / customer
        folder.mkdir(parents=True)
        (folder / "suppliers.csv").write_text("abn,supplier_name\n")
    (tmp_path / "landing" / "ledgers" / "no-ledger-yet").mkdir()
    # the context closed with the block: left open, it leaves the closed instance's state
    # storage as the process's current one, and later Definitions in this worker fail
    with (
        dg.instance_for_test() as instance,
        dg.build_schedule_context(
            instance=instance,
            scheduled_execution_time=dt.datetime(2026, 11, 20, 2, 30, tzinfo=dt.UTC),
        ) as context,
    ):
        requests = nightly_ledger_reverification(context)
        assert isinstance(requests, list)
        assert sorted(str(r.partition_key) for r in requests) == [
            "acme|2026-11-20",
            "beta-co|2026-11-20",
        ]
        assert set(instance.get_dynamic_partitions("ledger_customers")) == {"acme", "beta-co"}
