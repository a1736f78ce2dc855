"""One bad file holds back only its own source: the ingest step of a failed load succeeds,
its checks fail with severity WARN (not blocking), the next steps of the run go on."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import dagster as dg

from pipelines.defs.ingest.assets import ingest_assets
from pipelines.defs.resources import BvsResource
from pipelines.settings import Settings
from pipelines.status import collect_status

FIXTURE = Path(__file__).parents[1] / "fixtures" / "asic_companies" / "company_202410.csv"


def _land_companies(settings: Settings) -> tuple[Path, dict[str, BvsResource]]:
    """The good company file landed; the folder and the run's resources."""
    landing = settings.landing_dir / "asic_companies"
    landing.mkdir(parents=True)
    (landing / "company_202410.csv").write_bytes(FIXTURE.read_bytes())
    return landing, {"bvs": BvsResource(data_dir=str(settings.data_dir), as_of="2026-11-20")}


def test_a_failed_load_warns_and_lets_the_run_go_on(settings: Settings) -> None:
    (ingest,) = [a for a in ingest_assets if a.op.name == "ingest_asic_companies"]

    @dg.asset(deps=list(ingest.keys))
    def downstream() -> None:  # stands for dbt and the publish
        return None

    landing, resources = _land_companies(settings)
    with dg.instance_for_test() as instance:
        first = dg.materialize([ingest, downstream], instance=instance, resources=resources)
        assert first.success
        head, newline, rest = FIXTURE.read_bytes().partition(b"\n")
        (landing / "company_202411.csv").write_bytes(head + b"\tExtra" + newline + rest)
        second = dg.materialize([ingest, downstream], instance=instance, resources=resources)
    assert second.success  # the run went on
    assert any(e.asset_key == dg.AssetKey("downstream") for e in
               [m for m in second.get_asset_materialization_events()])  # fmt: skip
    (raw,) = [
        e.materialization
        for e in second.get_asset_materialization_events()
        if e.asset_key == dg.AssetKey(["raw", "asic__companies"])
    ]
    assert raw.metadata["status"].value == "failed"
    assert str(raw.metadata["message"].value).startswith("asic_companies: company_202411.csv: ")
    checks = {c.check_name: c for c in second.get_asset_check_evaluations()}
    assert not checks["not_empty"].passed
    assert checks["not_empty"].severity == dg.AssetCheckSeverity.WARN
    assert all(c.severity == dg.AssetCheckSeverity.WARN for c in checks.values())


def test_a_corrupt_zip_fails_only_its_source_and_the_run_goes_on(settings: Settings) -> None:
    """Issue 34: a truncated zip in one source's folder is that source's failure, reported
    by its step and in `bvs status`; the other sources load and the steps after them run."""
    by_name = {a.op.name: a for a in ingest_assets}
    companies, ppsr = by_name["ingest_asic_companies"], by_name["ingest_ppsr"]

    @dg.asset(deps=[*companies.keys, *ppsr.keys])
    def downstream() -> None:  # stands for dbt and the publish
        return None

    landing, resources = _land_companies(settings)
    with dg.instance_for_test() as instance:
        assert dg.materialize([companies, downstream], instance=instance, resources=resources)
        archive = landing / "company_202411.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("company_202411.csv", FIXTURE.read_bytes())
        archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])  # truncated
        (settings.landing_dir / "ppsr").mkdir()
        (settings.landing_dir / "ppsr" / "registrations_20261118.csv").write_text(
            "registration_number,grantor_abn,grantor_acn,grantor_name,collateral_class,"
            "start_date,end_date\n200000000001,53004085616,004085616,ACME PTY LTD,"
            "AGRICULTURE,2024-12-01,\n"
        )
        run = dg.materialize([companies, ppsr, downstream], instance=instance, resources=resources)
    assert run.success
    metadata = {
        e.asset_key.path[-1]: e.materialization.metadata
        for e in run.get_asset_materialization_events()
    }
    assert "downstream" in metadata  # the run went on
    assert metadata["ppsr__registrations"]["status"].value == "loaded"
    failed = metadata["asic__companies"]
    assert failed["status"].value == "failed"
    message = str(failed["message"].value)
    assert message.startswith("asic_companies: company_202411.zip: cannot open zip: "), message
    status = collect_status(settings, today=dt.date(2026, 11, 20))
    (entry,) = [s for s in status["sources"] if s["source"] == "asic_companies"]
    assert (entry["status"], entry["last_message"]) == ("failed (previous data kept)", message)
