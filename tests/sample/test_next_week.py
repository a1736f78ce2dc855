"""``bvs sample --next-week``: the following week's landing files, read back with the
ingest's own parsers: the stated share of ABR and company records changed, the rest
identical, new and cancelled ABNs, the extract date seven days on, new gazette notices and
adverse records dated in the new week."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from bvs_sample import write_sample
from bvs_sample.nextweek import write_next_week
from pipelines.ingest.files import discover
from pipelines.ingest.sources import SOURCES

SCALE = 500
OLD = dt.date(2026, 11, 18)  # the sample's extract date
NEW = OLD + dt.timedelta(days=7)
CHANGE = 0.1


@dataclass
class Read:
    tables: dict[str, list[dict]]
    quarantined: int


def read(root: Path, source: str) -> Read:
    """Every row of the source's snapshot, through its parser (no source_file/line)."""
    src = SOURCES[source]
    files = discover(root / src.folder, src.patterns, src.snapshot_key)
    assert files, f"{source}: no files in {root}"
    tables: dict[str, list[dict]] = {}
    quarantined = 0
    for _, batch in src.parse(files, None, None):
        quarantined += len(batch.quarantine)
        for key, table in batch.tables.items():
            for row in table.to_pylist():
                row.pop("source_file", None)
                row.pop("source_line", None)
                tables.setdefault(key, []).append(row)
    return Read(tables, quarantined)


def abr_records(root: Path) -> dict[str, tuple]:
    """ABN -> (its abns row, its sorted other names): what the extract says of it."""
    got = read(root, "abr")
    others: dict[str, list] = {}
    for row in got.tables["other_names"]:
        others.setdefault(row["abn"], []).append(tuple(sorted(row.items())))
    return {row["abn"]: (row, sorted(others.get(row["abn"], []))) for row in got.tables["abns"]}


@pytest.fixture(scope="module")
def weeks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("weeks")
    write_sample(base / "w1", scale=SCALE, seed=3)
    write_next_week(base / "w1", base / "w2", change=CHANGE, seed=5)
    write_next_week(base / "w1", base / "w0", change=0.0, seed=5)
    return {"w1": base / "w1", "w2": base / "w2", "w0": base / "w0", "base": base}


def test_the_extracts_are_dated_seven_days_later(weeks: dict[str, Path]) -> None:
    abr = weeks["w2"] / "abr"
    assert sorted(p.name for p in abr.iterdir()) == [
        "public_split_11_20.zip",
        "public_split_1_10.zip",
    ]
    members = []
    for path in sorted(abr.iterdir()):
        with zipfile.ZipFile(path) as archive:
            members += archive.namelist()
            head = archive.read(archive.namelist()[0])[:300].decode()
            assert f"<ExtractTime>{NEW.isoformat()}T" in head
    assert sorted(members) == [f"{NEW:%Y%m%d}_Public{i:02d}.xml" for i in range(1, 21)]
    meta = json.loads((weeks["w2"] / "_sample" / "planted.json").read_text())
    assert meta["next_week"]["extract_date"] == NEW.isoformat()
    assert meta["next_week"]["as_of"] == (NEW + dt.timedelta(days=2)).isoformat()


def test_the_stated_share_of_abr_records_changes_and_the_rest_is_identical(
    weeks: dict[str, Path],
) -> None:
    old, new = abr_records(weeks["w1"]), abr_records(weeks["w2"])
    assert set(old) <= set(new), "no ABN leaves the extract (cancelled ones stay, as CAN)"
    changed = [abn for abn in old if old[abn] != new[abn]]
    share = len(changed) / len(old)
    # 655 records at 10 %: a binomial's standard deviation is 1.2 points
    assert CHANGE - 0.04 <= share <= CHANGE + 0.04, (share, len(old))
    kinds = {"cancelled": 0, "gst": 0, "name": 0}
    for abn in changed:
        (before, b_others), (after, a_others) = old[abn], new[abn]
        updated = after["record_last_updated_date"]
        assert OLD < updated <= NEW, (abn, updated)
        if before["abn_status"] == "ACT" and after["abn_status"] == "CAN":
            assert OLD < after["abn_status_from_date"] <= NEW
            kinds["cancelled"] += 1
        elif before["gst_status"] != after["gst_status"]:
            assert OLD < after["gst_status_from_date"] <= NEW
            kinds["gst"] += 1
        else:
            assert (before["entity_name"], before["family_name"], b_others) != (
                after["entity_name"],
                after["family_name"],
                a_others,
            ), abn
            kinds["name"] += 1
    assert all(kinds.values()), kinds
    added = [new[abn][0] for abn in set(new) - set(old)]
    assert added, "new ABNs"
    for row in added:
        assert row["abn_status"] == "ACT"
        assert OLD < row["abn_status_from_date"] <= NEW
    # the files parse as the first week's did: the planted malformed rows, nothing more
    assert read(weeks["w2"], "abr").quarantined == read(weeks["w1"], "abr").quarantined


def test_the_company_extract_changes_statuses_and_adds_the_new_companies(
    weeks: dict[str, Path],
) -> None:
    assert [p.name for p in (weeks["w2"] / "asic_companies").iterdir()] == ["company_202611.csv"]
    old_read, new_read = read(weeks["w1"], "asic_companies"), read(weeks["w2"], "asic_companies")
    assert new_read.quarantined == old_read.quarantined
    old, new = old_read.tables["companies"], new_read.tables["companies"]
    current = [r for r in old if r["current_name_indicator"] == "Y"]
    registered = [r for r in current if r["status"] == "REGD"]
    after = {r["acn"]: r for r in new if r["current_name_indicator"] == "Y"}
    changed = [r for r in registered if after[r["acn"]]["status"] != "REGD"]
    share = len(changed) / len(registered)
    assert CHANGE - 0.05 <= share <= CHANGE + 0.05, (share, len(registered))
    assert {after[r["acn"]]["status"] for r in changed} == {"DRGD", "SOFF", "EXAD"}
    assert all(after[r["acn"]]["modified_since_last_report"] == "Y" for r in changed)
    untouched = [r for r in current if r not in changed]
    assert all(after[r["acn"]] == r for r in untouched)
    added = [r for r in new[len(old) :]]
    assert added and all(r["status"] == "REGD" for r in added)
    new_abns = abr_records(weeks["w2"])
    assert all(new_abns[r["abn"]][0]["asic_number"] == r["acn"] for r in added)


def test_new_gazette_notices_and_adverse_records_are_dated_in_the_new_week(
    weeks: dict[str, Path],
) -> None:
    for source, table, date in (
        ("gazette", "notices", "published_date"),
        ("adverse", "records", "action_date"),
    ):
        old = read(weeks["w1"], source).tables[table]
        new = read(weeks["w2"], source).tables[table]
        assert new[: len(old)] == old or all(r in new for r in old)
        added = [r for r in new if r not in old]
        assert added, source
        assert all(OLD < r[date] <= NEW for r in added), source
    deregistered = {
        r["acn"]
        for r in read(weeks["w2"], "asic_companies").tables["companies"]
        if r["status"] in ("DRGD", "EXAD") and r["modified_since_last_report"] == "Y"
    }
    notices = read(weeks["w2"], "gazette").tables["notices"]
    assert deregistered <= {r["acn"] for r in notices}


def test_a_share_of_zero_changes_nothing_and_adds_nothing(weeks: dict[str, Path]) -> None:
    assert abr_records(weeks["w0"]) == abr_records(weeks["w1"])
    assert read(weeks["w0"], "asic_companies").tables == read(weeks["w1"], "asic_companies").tables
    assert (weeks["w0"] / "gazette" / f"notices_{NEW:%Y%m%d}.csv").read_text().count("\n") == 1


def test_everything_else_is_left_as_it_was(weeks: dict[str, Path]) -> None:
    w1, w2 = weeks["w1"], weeks["w2"]
    for path in sorted(w1.rglob("*")):
        rel = path.relative_to(w1)
        if path.is_dir() or rel.parts[0] in ("abr", "asic_companies", "_sample"):
            continue
        assert (w2 / rel).read_bytes() == path.read_bytes(), rel


def test_same_inputs_and_seed_give_the_same_bytes(weeks: dict[str, Path]) -> None:
    again = weeks["base"] / "again"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipelines.cli",
            "sample",
            "--next-week",
            str(weeks["w1"]),
            "--out",
            str(again),
            "--change",
            str(CHANGE),
            "--seed",
            "5",
        ],  # fmt: skip
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    for path in sorted(weeks["w2"].rglob("*")):
        if path.is_file():
            assert (again / path.relative_to(weeks["w2"])).read_bytes() == path.read_bytes()


def test_the_next_week_needs_another_folder(weeks: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match="another folder"):
        write_next_week(weeks["w1"], weeks["w1"], change=CHANGE)
    with pytest.raises(ValueError, match="between 0 and 1"):
        write_next_week(weeks["w1"], weeks["base"] / "bad", change=2)
