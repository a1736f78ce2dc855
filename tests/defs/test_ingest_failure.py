"""One bad file holds back only its own source: the ingest step of a failed load succeeds,
its checks fail with severity WARN (not blocking), the next steps of the run go on."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.defs.ingest.assets import ingest_assets
from pipelines.defs.resources import BvsResource
from pipelines.settings import Settings

FIXTURE = Path(__file__).parents[1] / "fixtures" / "asic_companies" / "company_202410.csv"


def test_a_failed_load_warns_and_lets_the_run_go_on(settings: Settings) -> None:
    (ingest,) = [a for a in ingest_assets if a.op.name == "ingest_asic_companies"]

    @dg.asset(deps=list(ingest.keys))
    def downstream() -> None:  # stands for dbt and the publish
        return None

    landing = settings.landing_dir / "asic_companies"
    landing.mkdir(parents=True)
    (landing / "company_202410.csv").write_bytes(FIXTURE.read_bytes())
    resources = {"bvs": BvsResource(data_dir=str(settings.data_dir), as_of="2026-11-20")}
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
