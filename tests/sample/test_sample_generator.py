"""The sample generator writes the three core registers in their real formats, reproducibly,
with valid identifiers everywhere except the rows it lists as deliberately malformed."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing as mp
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from lxml import etree

from bvs_sample import DEFAULT_EXTRACT_DATE, SampleSummary, write_sample
from bvs_sample import writer as sample_writer
from pipelines.identifiers import abn_from_acn, abn_is_valid, acn_is_valid

SCALE = 4_000
SEED = 7
EXTRACT = DEFAULT_EXTRACT_DATE
MEMBERS = [f"20261118_Public{i:02d}.xml" for i in range(1, 21)]
COMPANY_COLUMNS = [
    "Company Name", "ACN", "Type", "Class", "Sub Class", "Status", "Date of Registration",
    "Date of Deregistration", "Previous State of Registration", "State Registration number",
    "Modified since last report", "Current Name Indicator", "ABN", "Current Name",
    "Current Name Start Date",
]  # fmt: skip
BN_COLUMNS = [
    "REGISTER_NAME", "BN_NAME", "BN_STATUS", "BN_REG_DT", "BN_CANCEL_DT", "BN_STATE_NUM",
    "BN_STATE_OF_REG", "BN_ABN",
]  # fmt: skip


@dataclass
class Sample:
    root: Path
    summary: SampleSummary
    progress: list[tuple[str, int, int]]


def _write(root: Path, **kwargs: object) -> Sample:
    calls: list[tuple[str, int, int]] = []
    summary = write_sample(
        root,
        scale=kwargs.pop("scale", SCALE),  # type: ignore[arg-type]
        seed=kwargs.pop("seed", SEED),  # type: ignore[arg-type]
        progress=lambda stage, done, total: calls.append((stage, done, total)),
        **kwargs,  # type: ignore[arg-type]
    )
    return Sample(root, summary, calls)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return _write(tmp_path_factory.mktemp("zip"), workers=1)


@pytest.fixture(scope="module")
def sample_two_workers(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return _write(tmp_path_factory.mktemp("zip2"), workers=2)


def _all_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _members(root: Path) -> dict[str, bytes]:
    """The 20 XML files' bytes, whether zipped or plain."""
    out: dict[str, bytes] = {}
    for zip_path in sorted((root / "abr").glob("*.zip")):
        with zipfile.ZipFile(zip_path) as zf:
            for name in zf.namelist():
                out[name] = zf.read(name)
    for xml_path in sorted((root / "abr").glob("*.xml")):
        out[xml_path.name] = xml_path.read_bytes()
    return out


def _records(sample: Sample) -> list[tuple[str, int, ET.Element]]:
    """(member, line, <ABR> element) for every record line."""
    out = []
    for name, data in _members(sample.root).items():
        lines = data.decode("utf-8").split("\n")
        for number, line in enumerate(lines, start=1):
            if line.startswith("<ABR "):
                out.append((name, number, ET.fromstring(line)))
    return out


def _csv_lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "UTF-8 BOM"
    text = raw[3:].decode("utf-8")
    assert text.endswith("\r\n")
    assert "\n" not in text.replace("\r\n", ""), "CRLF line endings only"
    return text[:-2].split("\r\n")


def _cases(sample: Sample) -> list[dict]:
    return json.loads((sample.root / "_sample" / "planted.json").read_text())["cases"]


def _case_records(sample: Sample) -> int:
    return sample.summary.per_source["abr"]["planted_cases"]


def _case_acns(sample: Sample) -> set[str]:
    """ACNs of planted-case companies (theirs, and the companies their records name)."""
    acns: set[str] = set()
    for case in _cases(sample):
        acns.add(case.get("acn", ""))
        for m in case["matches"] + case["non_matches"]:
            acns.add(m["record"].get("acn", "") or m["record"].get("deregistered_acn", ""))
    return acns - {""}


def _planted_lines(summary: SampleSummary, source: str) -> dict[tuple[str, int], str]:
    return {(p.file, p.line): p.reason_kind for p in summary.planted_for(source)}


def _ymd_ok(value: str | None) -> bool:
    try:
        dt.datetime.strptime(value or "", "%Y%m%d")
    except ValueError:
        return False
    return True


def _dmy(value: str) -> dt.date:
    return dt.datetime.strptime(value, "%d/%m/%Y").date()


def _dmy_ok(value: str) -> bool:
    try:
        _dmy(value)
    except ValueError:
        return False
    return True


# -- reproducibility --------------------------------------------------------------------


def test_same_seed_gives_identical_bytes_whatever_the_worker_count(
    sample: Sample, sample_two_workers: Sample
) -> None:
    one, two = _all_files(sample.root), _all_files(sample_two_workers.root)
    assert sorted(one) == sorted(two)
    assert "abr/public_split_1_10.zip" in one and "_sample/planted.json" in one
    for name in one:
        assert one[name] == two[name], name


def test_another_seed_gives_other_files(sample: Sample, tmp_path: Path) -> None:
    other = _all_files(_write(tmp_path, seed=SEED + 1, workers=1).root)
    mine = _all_files(sample.root)
    for name in ("abr/public_split_1_10.zip", "asic_companies/company_202611.csv",
                 "asic_business_names/business_names_202611.csv"):  # fmt: skip
        assert other[name] != mine[name], name


def test_plain_xml_files_hold_the_same_bytes_as_the_zip_members(
    sample: Sample, tmp_path: Path
) -> None:
    root = tmp_path / "landing"
    (root / "abr").mkdir(parents=True)
    (root / "abr" / "public_split_1_10.zip").write_bytes(b"stale")
    plain = _write(root, abr_format="xml", workers=2)
    names = sorted(p.name for p in (plain.root / "abr").iterdir())
    assert names == MEMBERS, "20 plain files, and the zips of the same sample removed"
    assert _members(plain.root) == _members(sample.root)


def test_zips_are_the_two_real_downloads_with_fixed_timestamps(sample: Sample) -> None:
    for zip_name, expected in (
        ("public_split_1_10.zip", MEMBERS[:10]),
        ("public_split_11_20.zip", MEMBERS[10:]),
    ):
        with zipfile.ZipFile(sample.root / "abr" / zip_name) as zf:
            assert zf.testzip() is None  # CRCs match
            assert zf.namelist() == expected
            for info in zf.infolist():
                assert info.compress_type == zipfile.ZIP_DEFLATED
                assert info.date_time == (2026, 11, 18, 3, 11, 12)  # DOS time: 2 s steps


# -- ABR XML ----------------------------------------------------------------------------


def test_abr_files_are_well_formed_with_matching_record_counts(sample: Sample) -> None:
    members = _members(sample.root)
    assert sorted(members) == MEMBERS
    total = 0
    for i, name in enumerate(MEMBERS, start=1):
        data = members[name]
        assert b"\r" not in data
        lines = data.decode("utf-8").split("\n")
        assert lines[0] == '<?xml version="1.0" encoding="UTF-8"?>'
        assert lines[1].startswith("<Transfer><TransferInfo><FileSequenceNumber>")
        assert lines[1].endswith("</TransferInfo>")
        assert lines[-2:] == ["</Transfer>", ""]
        body = lines[2:-2]
        assert all(line.startswith("<ABR ") and line.endswith("</ABR>") for line in body)
        root = etree.fromstring(data)  # the whole file parses
        info = root.find("TransferInfo")
        assert info is not None
        assert info.findtext("FileSequenceNumber") == str(i)
        declared = info.findtext("RecordCount") or ""
        assert len(declared) == 10 and int(declared) == len(root.findall("ABR")) == len(body)
        assert info.findtext("ExtractTime", "").startswith("2026-11-18T")
        total += len(body)
    assert total == SCALE + _case_records(sample), "scale records plus the planted cases"
    counts = [len(members[n].split(b"\n")) - 4 for n in MEMBERS[:-1]]
    assert max(counts) - min(counts) <= 1, "records spread evenly over the 20 files"


def test_abr_identifiers_valid_except_planted_rows(sample: Sample) -> None:
    planted = _planted_lines(sample.summary, "abr")
    found: dict[tuple[str, int], str] = {}
    companies = 0
    for member, line, rec in _records(sample):
        zip_name = "public_split_1_10.zip" if member <= MEMBERS[9] else "public_split_11_20.zip"
        key = (f"{zip_name}!{member}", line)
        abn = rec.find("ABN")
        if abn is None:
            found[key] = "missing_abn"
            continue
        if not abn_is_valid(abn.text):
            found[key] = "bad_abn_check_digit"
        elif not _ymd_ok(abn.get("ABNStatusFromDate")):
            found[key] = "bad_date"
        asic = rec.findtext("ASICNumber")
        if asic is not None:
            companies += 1
            assert acn_is_valid(asic), asic
            assert abn.text == abn_from_acn(asic), "company ABN = NN + ACN"
            assert rec.find("ASICNumber").get("ASICNumberType") == "undetermined"  # type: ignore[union-attr]
    assert found == planted
    assert Counter(planted.values()) == Counter(
        {"bad_abn_check_digit": 2, "bad_date": 2, "missing_abn": 2}
    )
    assert companies == sample.summary.per_source["abr"]["companies"]


def test_abr_record_shapes(sample: Sample) -> None:
    planted = {c["abn"] for c in _cases(sample)}
    records = [rec for _, _, rec in _records(sample) if rec.findtext("ABN") not in planted]
    kinds: Counter[str] = Counter()
    orders: Counter[str] = Counter()
    gst: Counter[str] = Counter()
    states: Counter[str] = Counter()
    for rec in records:
        assert rec.get("replaced") == "N" and _ymd_ok(rec.get("recordLastUpdatedDate"))
        code = rec.findtext("EntityType/EntityTypeInd")
        assert code and rec.findtext("EntityType/EntityTypeText")
        if code == "IND":
            assert rec.find("MainEntity") is None
            person = rec.find("LegalEntity/IndividualName")
            assert person is not None and person.get("type") == "LGL"
            assert len(person.findall("GivenName")) <= 2 and person.findtext("FamilyName")
            assert len(person.findall("NameTitle")) <= 1
            address = rec.find("LegalEntity/BusinessAddress/AddressDetails")
        else:
            assert rec.find("LegalEntity") is None
            name = rec.find("MainEntity/NonIndividualName")
            assert name is not None and name.get("type") == "MN"
            assert name.findtext("NonIndividualNameText")
            address = rec.find("MainEntity/BusinessAddress/AddressDetails")
        assert address is not None
        state = address.findtext("State") or ""
        postcode = address.findtext("Postcode") or ""
        states[state] += 1
        assert len(postcode) == 4 and postcode.isdigit()
        if not state:
            assert postcode == "0000"
        abn = rec.find("ABN")
        if abn is not None:
            assert abn.get("status") in ("ACT", "CAN")
            orders[list(abn.attrib)[0]] += 1
        g = rec.find("GST")
        if g is not None:
            gst[g.get("status") or ""] += 1
            if g.get("status") == "NON":
                assert g.get("GSTStatusFromDate") == "19000101"
            else:
                date = g.get("GSTStatusFromDate") or ""
                assert _ymd_ok(date) and date >= "20000701"
        for other in rec.findall("OtherEntity/NonIndividualName"):
            kinds[other.get("type") or ""] += 1
            assert other.findtext("NonIndividualNameText")
        for dgr in rec.findall("DGR"):
            assert dgr.get("status") == "ACT" and _ymd_ok(dgr.get("DGRStatusFromDate"))
    assert set(kinds) == {"TRD", "BN", "OTN"}
    assert set(orders) == {"status", "ABNStatusFromDate"}, "attribute order varies"
    assert set(gst) == {"ACT", "CAN", "NON"}
    assert set(states) == {"", "NSW", "VIC", "QLD", "WA", "SA", "TAS", "ACT", "NT"}
    codes = Counter(rec.findtext("EntityType/EntityTypeInd") for rec in records)
    assert 0.45 < codes["IND"] / SCALE < 0.56
    assert 0.14 < codes["PRV"] / SCALE < 0.20
    assert len(codes) > 15
    cancelled = sum(1 for rec in records if rec.find("ABN[@status='CAN']") is not None)
    assert 0.25 < cancelled / SCALE < 0.35


def test_abr_text_is_escaped(sample: Sample) -> None:
    text = b"".join(_members(sample.root).values()).decode("utf-8")
    assert "&amp;" in text and "&apos;" in text
    names = [
        el.text or "" for _, _, rec in _records(sample) for el in rec.iter("NonIndividualNameText")
    ]
    assert any("&" in n for n in names) and any("'" in n for n in names)


# -- ASIC companies ---------------------------------------------------------------------


def test_company_file_format_and_rules(sample: Sample) -> None:
    path = sample.root / "asic_companies" / "company_202611.csv"
    lines = _csv_lines(path)
    assert lines[0].split("\t") == COMPANY_COLUMNS
    planted = _planted_lines(sample.summary, "asic_companies")
    found: dict[tuple[str, int], str] = {}
    by_acn: dict[str, list[list[str]]] = {}
    cases = _case_acns(sample)
    for number, line in enumerate(lines[1:], start=2):
        f = line.split("\t")
        key = (path.name, number)
        if len(f) != 15:
            found[key] = "wrong_field_count"
            continue
        row = dict(zip(COMPANY_COLUMNS, f, strict=True))
        if not acn_is_valid(row["ACN"]):
            found[key] = "bad_acn_check_digit"
            continue
        if not _dmy_ok(row["Date of Registration"]):
            found[key] = "bad_date"
            continue
        by_acn.setdefault(row["ACN"], []).append(f)
        if row["ABN"]:
            assert row["ABN"] == abn_from_acn(row["ACN"])
        if row["Current Name Indicator"] == "Y":
            assert row["Current Name"] == "" and row["Current Name Start Date"] == ""
        else:
            assert row["Current Name Indicator"] == ""
            assert row["Current Name"] and _dmy_ok(row["Current Name Start Date"])
        if row["Status"] == "DRGD" and row["ACN"] not in cases:
            gone = _dmy(row["Date of Deregistration"])
            assert EXTRACT - dt.timedelta(days=366) <= gone <= EXTRACT
        elif row["Status"] != "DRGD":
            assert row["Date of Deregistration"] == ""
    assert found == planted
    assert Counter(planted.values()) == Counter(
        {"wrong_field_count": 2, "bad_date": 2, "bad_acn_check_digit": 2}
    )
    counts = sample.summary.per_source["asic_companies"]
    assert len(by_acn) == counts["companies"]
    background = len(set(by_acn) - cases)
    assert 0.15 < background / SCALE < 0.20, "companies are about 17.5% of the ABNs"
    rows = sum(len(v) for v in by_acn.values())
    assert rows == counts["valid_rows"] == counts["rows"] - 6
    assert 1.15 < rows / len(by_acn) < 1.32, "about 1.23 rows per company"
    assert any(all(r[11] == "" for r in v) for v in by_acn.values()), "former names only"
    statuses = Counter(r[5] for v in by_acn.values() for r in v)
    assert statuses.most_common(1)[0][0] == "REGD" and "DRGD" in statuses
    assert any(not r[12] for v in by_acn.values() for r in v), "some rows without ABN"


def test_every_abr_company_has_a_company_row(sample: Sample) -> None:
    abr = {
        rec.findtext("ABN"): rec.findtext("ASICNumber")
        for _, _, rec in _records(sample)
        if rec.find("ASICNumber") is not None
    }
    lines = _csv_lines(sample.root / "asic_companies" / "company_202611.csv")[1:]
    listed = {f[12]: f[1] for f in (line.split("\t") for line in lines) if len(f) == 15 and f[12]}
    absent = {c["abn"] for c in _cases(sample) if c["id"] == "company_status/acn-not-found"}
    assert absent and all(abn in abr and abn not in listed for abn in absent)
    abr = {abn: acn for abn, acn in abr.items() if abn not in absent}
    assert abr and all(listed.get(abn) == acn for abn, acn in abr.items())
    assert set(listed) == set(abr), "no company ABN outside the ABR"


# -- ASIC business names ----------------------------------------------------------------


def test_business_name_file_format_and_rules(sample: Sample) -> None:
    path = sample.root / "asic_business_names" / "business_names_202611.csv"
    lines = _csv_lines(path)
    assert lines[0].split("\t") == BN_COLUMNS
    abr_abns = {rec.findtext("ABN") for _, _, rec in _records(sample)}
    planted = _planted_lines(sample.summary, "asic_business_names")
    found: dict[tuple[str, int], str] = {}
    pads: Counter[int] = Counter()
    holders: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for number, line in enumerate(lines[1:], start=2):
        f = line.split("\t")
        key = (path.name, number)
        if len(f) != 8:
            found[key] = "wrong_field_count"
            continue
        row = dict(zip(BN_COLUMNS, f, strict=True))
        if not row["BN_NAME"].strip():
            found[key] = "missing_name"
            continue
        if not _dmy_ok(row["BN_REG_DT"]):
            found[key] = "bad_date"
            continue
        assert row["REGISTER_NAME"] == "BUSINESS NAMES"
        name = row["BN_NAME"]
        pads[len(name) - len(name.lstrip(" "))] += 1
        assert name.strip()
        statuses[row["BN_STATUS"]] += 1
        if row["BN_STATUS"] == "Registered":
            assert row["BN_CANCEL_DT"] == ""
        else:
            assert row["BN_STATUS"] in ("Cancelled", "Deregistered")
            assert _dmy(row["BN_CANCEL_DT"]) >= _dmy(row["BN_REG_DT"])
        holders[
            "empty" if not row["BN_ABN"] else "abr" if row["BN_ABN"] in abr_abns else "other"
        ] += 1
    assert found == planted
    assert Counter(planted.values()) == Counter(
        {"wrong_field_count": 2, "bad_date": 2, "missing_name": 2}
    )
    assert 0 not in pads and len(pads) > 3, "names padded with varying leading spaces"
    assert set(statuses) == {"Registered", "Cancelled", "Deregistered"}
    assert holders["abr"] > 0.9 * sum(holders.values()) and holders["empty"] and holders["other"]
    rows = sum(holders.values())
    assert rows == sample.summary.per_source["asic_business_names"]["valid_rows"]
    assert 0.12 < rows / SCALE < 0.21, "about 16.5% of the ABNs"


# -- summary, planted.json, progress ----------------------------------------------------


def test_planted_json_matches_the_summary(sample: Sample) -> None:
    doc = json.loads((sample.root / "_sample" / "planted.json").read_text())
    assert doc["counts"] == sample.summary.per_source
    core = [
        p for p in doc["planted"] if p["source"] in ("abr", "asic_companies", "asic_business_names")
    ]
    assert len(core) == 18 and len(doc["planted"]) == len(sample.summary.planted)
    first = doc["planted"][0]
    assert {"source", "file", "line", "reason_kind"} <= set(first)
    cases = _case_records(sample)
    assert cases >= sum(c.get("in_abr", True) for c in doc["cases"]) > 100
    assert doc["counts"]["abr"]["records"] == SCALE + cases
    assert doc["counts"]["abr"]["entities"] == SCALE + cases - 6
    flat = sample.summary.counts  # what `bvs sample` prints, one int per line
    assert flat["abr.records"] == SCALE + cases and all(isinstance(v, int) for v in flat.values())
    files = {
        f["path"] + ("!" + f["member"] if f["member"] else ""): f["rows"] for f in doc["files"]
    }
    assert sum(v for k, v in files.items() if k.startswith("abr/")) == SCALE + cases
    assert not any(p.name.startswith("tmp") for p in (sample.root / "_sample").iterdir())


def test_progress_reports_every_stage_to_completion(sample: Sample) -> None:
    last = {stage: (done, total) for stage, done, total in sample.progress}
    assert last["abr"] == (SCALE, SCALE)
    counts = sample.summary.per_source
    assert (
        last["asic_companies"][0] == last["asic_companies"][1] == counts["asic_companies"]["rows"]
    )
    assert last["asic_business_names"][1] == counts["asic_business_names"]["rows"]


def test_tiny_scale_and_bad_arguments(tmp_path: Path) -> None:
    tiny = _write(tmp_path / "tiny", scale=5, workers=1, abr_format="xml")
    assert tiny.summary.per_source["abr"]["records"] == 5 + _case_records(tiny)
    data = (tmp_path / "tiny" / "abr" / "20261118_Public19.xml").read_text()
    assert "<RecordCount>0000000000</RecordCount>" in data
    with pytest.raises(ValueError):
        write_sample(tmp_path / "bad", scale=0)
    with pytest.raises(ValueError):
        write_sample(tmp_path / "bad", scale=10, abr_format="gz")  # type: ignore[arg-type]


@pytest.mark.timeout(120)
def test_a_failing_worker_raises_instead_of_hanging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("needs fork so the worker sees the patched function")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("worker failed")

    monkeypatch.setattr(sample_writer, "_process_context", lambda: mp.get_context("fork"))
    monkeypatch.setattr(sample_writer, "generate_chunk", broken)
    with pytest.raises(RuntimeError, match="worker failed"):
        write_sample(tmp_path, scale=100, workers=2)
    assert not list((tmp_path / "abr").iterdir()), "no partial ABR output"


@pytest.mark.timeout(120)
def test_workers_start_from_a_script_read_on_stdin(tmp_path: Path) -> None:
    script = (
        "from pathlib import Path\n"
        "from bvs_sample import write_sample\n"
        f"write_sample(Path({str(tmp_path)!r}), scale=200, workers=2)\n"
    )
    subprocess.run([sys.executable, "-"], input=script, text=True, check=True, timeout=100)
    assert len(list((tmp_path / "abr").glob("public_split_*.zip"))) == 2
