"""The ledgers' landing folder and run history: what is a ledger, how a run is recorded (no
warehouse, no dbt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.ledgers import store
from pipelines.ledgers.commands import import_ledger
from pipelines.ledgers.intake import LedgerError
from pipelines.settings import Settings

GOOD = "supplier_ref,abn,supplier_name,state\nS1,53004085616,Acme Pty Ltd,QLD\n"


def test_run_ids_count_within_a_day_and_never_go_back() -> None:
    assert store.next_run_id(None, "2026-11-20") == "2026-11-20.01"
    run = store.Run("c", "l", "2026-11-20.01", Path("/x"), {})
    assert store.next_run_id(run, "2026-11-20") == "2026-11-20.02"
    assert store.next_run_id(run, "2026-11-21") == "2026-11-21.01"
    with pytest.raises(LedgerError, match="already has a run on 2026-11-20, after 2026-11-19"):
        store.next_run_id(run, "2026-11-19")


def test_a_run_is_recorded_whole_or_not_at_all(settings: Settings) -> None:
    def broken(folder: Path) -> dict:
        (folder / "suppliers.parquet").write_bytes(b"half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        store.commit_run(settings, "acme", "suppliers", "2026-11-20.01", broken)
    runs_dir = settings.ledgers_dir / "acme" / "suppliers" / "runs"
    assert store.runs(settings, "acme", "suppliers") == []
    assert list(runs_dir.iterdir()) == []

    (runs_dir / ".tmp-deadbeef").mkdir()  # what a kill -9 leaves
    run = store.commit_run(settings, "acme", "suppliers", "2026-11-20.01", lambda f: {"n": 1})
    assert [r.run_id for r in store.runs(settings, "acme", "suppliers")] == ["2026-11-20.01"]
    assert json.loads((run.path / "run.json").read_text()) == {"n": 1}
    assert sorted(p.name for p in runs_dir.iterdir()) == ["2026-11-20.01"]
    with pytest.raises(LedgerError, match="already recorded"):
        store.commit_run(settings, "acme", "suppliers", "2026-11-20.01", lambda f: {})


def test_runs_sort_by_date_then_number(settings: Settings) -> None:
    for run_id in ("2026-11-21.01", "2026-11-20.10", "2026-11-20.02"):
        store.commit_run(settings, "acme", "l", run_id, lambda f: {})
    assert [r.run_id for r in store.runs(settings, "acme", "l")] == [
        "2026-11-20.02", "2026-11-20.10", "2026-11-21.01",
    ]  # fmt: skip


def test_what_counts_as_a_landed_ledger(settings: Settings) -> None:
    folder = settings.landing_dir / "ledgers" / "acme"
    (folder / "replaced").mkdir(parents=True)
    (folder / "suppliers.csv").write_text(GOOD)
    (folder / "replaced" / "suppliers.20260101T000000Z.csv").write_text(GOOD)
    (folder / ".suppliers.tmp-1234").write_text(GOOD)
    (folder / "notes.txt").write_text("not a ledger")
    (settings.landing_dir / "ledgers" / "Bad_Customer").mkdir()
    assert [(x.customer, x.ledger) for x in store.landed_ledgers(settings, "acme")] == [
        ("acme", "suppliers")
    ]
    assert store.customers_with_ledgers(settings) == ["acme"]
    (folder / "suppliers.xlsx").write_bytes(b"PK")
    with pytest.raises(LedgerError, match="two files for ledger 'suppliers'"):
        store.landed_ledgers(settings, "acme")


def test_import_lands_atomically_keeps_the_old_file_and_refuses_a_bad_one(
    settings: Settings, tmp_path: Path
) -> None:
    first = tmp_path / "suppliers.csv"
    first.write_text(GOOD)
    summary = import_ledger(settings, first, "acme")
    landed = settings.landing_dir / "ledgers" / "acme" / "suppliers.csv"
    assert summary["file"] == str(landed) and summary["replaced"] is None
    assert (summary["rows"], summary["verified"], summary["snapshot_id"]) == (1, 1, None)

    broken = tmp_path / "broken.csv"
    broken.write_text("supplier_ref,name\nS1,Acme\n")
    with pytest.raises(LedgerError, match=str(broken)):
        import_ledger(settings, broken, "acme", "suppliers")
    assert landed.read_text() == GOOD

    second = tmp_path / "new.csv"
    second.write_text(GOOD + "S2,51824753556,Jane Citizen,VIC\n")
    summary = import_ledger(settings, second, "acme", "suppliers")
    assert landed.read_text() == second.read_text()
    kept = Path(summary["replaced"])
    assert kept.parent.name == "replaced" and kept.read_text() == GOOD
    assert [x.ledger for x in store.landed_ledgers(settings, "acme")] == ["suppliers"]


@pytest.mark.parametrize(
    ("customer", "name", "message"),
    [
        ("Acme", None, "customer id 'Acme'"),
        ("acme co", None, "customer id 'acme co'"),
        ("acme", "../x", "ledger name '../x'"),
        ("acme", "suppliers.csv", "without the file extension"),
    ],
)
def test_import_refuses_bad_names(
    settings: Settings, tmp_path: Path, customer: str, name: str | None, message: str
) -> None:
    path = tmp_path / "suppliers.csv"
    path.write_text(GOOD)
    with pytest.raises(LedgerError, match=message):
        import_ledger(settings, path, customer, name)
    assert not (settings.landing_dir / "ledgers").exists()


def test_a_cached_read_gives_what_the_first_read_gave(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "suppliers.csv"
    path.write_text(
        "Supplier Name,ABN No.,Notes\nAcme,53004085616,x\nSupplier Name,ABN No.,Notes\n"
        "Beta,004085616,y\nTotal,,\n"
    )
    first = store.read_ledger_cached(settings, "acme", "suppliers", path)
    cached = list((settings.ledgers_dir / "acme" / "suppliers" / "files").glob("*.parquet"))
    assert len(cached) == 1
    again = store.read_ledger_cached(settings, "acme", "suppliers", path)
    assert again.rows.equals(first.rows) and "acn" in again.rows.columns
    assert (again.ignored, again.columns, again.header_line) == (
        first.ignored, first.columns, first.header_line,
    )  # fmt: skip
    assert [i["line"] for i in again.ignored] == [3, 5]
