"""``write_sample``: a landing folder with the three core registers, in their real formats.

Work is split into the 20 ABR files. Each chunk writes its XML (deflated in the worker
when the output is zipped) and the ASIC company and business-name rows its records give
rise to, as part files; the parts are then joined in chunk order. Every random draw comes
from an RNG seeded with (seed, chunk index), and the malformed rows are placed from an RNG
seeded with the seed alone, so the bytes do not depend on the number of workers.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import multiprocessing as mp
import os
import queue as queue_mod
import random
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from bvs_sample import formats as F
from bvs_sample import market as M
from bvs_sample.cases import build_cases
from bvs_sample.cases.builder import EXTRACT_AGE, CasePlan
from bvs_sample.entity_types import UNKNOWN_ENTITY_TYPE_CODES
from bvs_sample.families.abr import ABR_KINDS
from bvs_sample.families.asic_companies import COMPANY_KINDS, UNKNOWN_COMPANY_STATUS
from bvs_sample.families.business_names import BUSINESS_NAME_KINDS
from bvs_sample.generate import generate_chunk
from bvs_sample.ledgers import write_ledgers
from bvs_sample.numbering import MAX_SCALE
from bvs_sample.tasks import ChunkResult, ChunkTask
from bvs_sample.zipwrite import DeflatedMember, write_zip
from pipelines.ingest import tables as T

# Without an as-of date the sample is the fixed one the tests and benchmarks are built on
# (as of 2026-11-20); `bvs sample --as-of today` (`make sample`) dates it for today.
DEFAULT_AS_OF = dt.date(2026, 11, 20)
DEFAULT_EXTRACT_DATE = DEFAULT_AS_OF - EXTRACT_AGE


def extract_date_for(as_of: dt.date) -> dt.date:
    """The extract date of a sample written for ``as_of`` (its planted cases' as-of date)."""
    return as_of - EXTRACT_AGE


ABR_FILES = 20
ABR_ZIPS = (("public_split_1_10.zip", range(0, 10)), ("public_split_11_20.zip", range(10, 20)))
MALFORMED_SHARE = 0.0005  # of the rows of each source
MIN_MALFORMED = 6  # per source, so a small sample still has a couple of each kind
# Expected ASIC rows per ABN record, only used to size the planted share.
COMPANY_ROWS_PER_RECORD = 0.215
BUSINESS_NAME_ROWS_PER_RECORD = 0.165

COMPANY_HEADER = "\t".join(T.ASIC_COMPANIES.header)
BUSINESS_NAME_HEADER = "\t".join(T.ASIC_BUSINESS_NAMES.header)
BOM = b"\xef\xbb\xbf"
CRLF = "\r\n"

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PlantedRow:
    """A deliberately malformed row: the ingest must quarantine exactly these."""

    source: str  # source name: its landing folder (prices_<market>: prices/<market>)
    file: str  # as the parsers name it: "x.csv", or "archive.zip!member.xml"
    line: int  # 1-based physical line (the CSV header is line 1)
    reason_kind: str
    path: str  # the landed file, relative to the landing folder
    member: str | None = None  # the zip member, if any


@dataclass(frozen=True)
class SampleFile:
    path: str  # relative to the landing folder
    member: str | None  # zip member
    rows: int  # ABR records, or CSV data rows (header excluded)


@dataclass
class SampleSummary:
    out_dir: Path
    scale: int
    seed: int
    extract_date: dt.date
    files: list[SampleFile]
    # Per source (abr, asic_companies, asic_business_names): rows written, malformed and
    # valid rows, and what the valid rows hold. Also the "counts" of planted.json.
    per_source: dict[str, dict[str, int]]
    planted: list[PlantedRow]
    as_of: dt.date | None = None  # the date the planted cases are built around
    cases: list[dict[str, Any]] = field(default_factory=list)  # planted cases (planted.json)
    unknown_codes: dict[str, list[str]] = field(default_factory=dict)
    # Market sample (bvs_sample.market): planted squeezers, calm names, live campaign;
    # the malformed market rows (also in ``planted``); the 002 short-position files.
    market: list[dict[str, Any]] = field(default_factory=list)
    market_malformed: list[PlantedRow] = field(default_factory=list)
    market_corrections: list[dict[str, Any]] = field(default_factory=list)
    # Supplier ledgers (bvs_sample.ledgers): files, planted cases.
    ledgers: dict[str, Any] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Flat view of ``per_source``: "abr.records", "asic_companies.rows", ..."""
        return {f"{s}.{k}": v for s, counts in self.per_source.items() for k, v in counts.items()}

    def planted_for(self, source: str) -> list[PlantedRow]:
        return [p for p in self.planted if p.source == source]


def chunk_bounds(scale: int, files: int = ABR_FILES) -> list[tuple[int, int]]:
    """(first record, record count) per file: records spread evenly over the files."""
    base, extra = divmod(scale, files)
    bounds = []
    start = 0
    for i in range(files):
        count = base + (1 if i < extra else 0)
        bounds.append((start, count))
        start += count
    return bounds


def _planted_positions(
    rng: random.Random, scale: int, wanted: int, kinds: Sequence[str]
) -> dict[int, str]:
    """``wanted`` distinct record indexes, kinds assigned in turn so each kind occurs."""
    wanted = min(wanted, scale)
    return {pos: kinds[i % len(kinds)] for i, pos in enumerate(rng.sample(range(scale), wanted))}


def _planted_count(rows: float) -> int:
    return max(MIN_MALFORMED, round(rows * MALFORMED_SHARE))


def _split(positions: dict[int, str], start: int, count: int) -> dict[int, str]:
    return {p - start: k for p, k in positions.items() if start <= p < start + count}


_QUEUE: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _QUEUE
    _QUEUE = progress_queue


def _run_in_worker(task: ChunkTask) -> ChunkResult:
    q = _QUEUE

    def report(done: int) -> None:
        if q is not None:
            q.put((task.index, done))

    return generate_chunk(task, report)


def _run_tasks(
    tasks: list[ChunkTask], workers: int, progress: Progress | None
) -> list[ChunkResult]:
    total = sum(t.count for t in tasks)
    done = [0] * len(tasks)

    def note(index: int, n: int) -> None:
        done[index] = n
        if progress is not None:
            progress("abr", sum(done), total)

    if workers <= 1:
        return [generate_chunk(task, partial(note, task.index)) for task in tasks]

    ctx = _process_context()
    progress_queue = ctx.Queue()
    with ProcessPoolExecutor(
        workers, mp_context=ctx, initializer=_init_worker, initargs=(progress_queue,)
    ) as pool:
        # A worker that dies (or cannot start) raises BrokenProcessPool here: no hang.
        pending = [pool.submit(_run_in_worker, task) for task in tasks]
        while not all(f.done() for f in pending):
            failed = [f for f in pending if f.done() and f.exception() is not None]
            if failed:  # stop early and raise the worker's own error
                pool.shutdown(cancel_futures=True)
                failed[0].result()
            with contextlib.suppress(queue_mod.Empty):
                note(*progress_queue.get(timeout=0.2))
        results = [f.result() for f in pending]
    while True:
        try:
            note(*progress_queue.get_nowait())
        except queue_mod.Empty:
            break
    progress_queue.close()
    return results


def _process_context() -> mp.context.BaseContext:
    """fork when this process runs no other thread (fast, and no re-import of ``__main__``,
    which fails for ``python -`` or a notebook); spawn otherwise, as fork copies any lock
    another thread holds."""
    if "fork" in mp.get_all_start_methods() and threading.active_count() == 1:
        return mp.get_context("fork")
    return mp.get_context("spawn")


def _finish_abr(
    abr_dir: Path,
    tmp: Path,
    members: list[str],
    tasks: list[ChunkTask],
    results: list[ChunkResult],
    extract_date: dt.date,
) -> tuple[list[SampleFile], list[PlantedRow]]:
    """Move the 20 XML files into place, or wrap the deflated ones in the two zips.

    The other format of the same files is removed, so a landing folder never holds the
    same sample twice.
    """
    home: dict[int, str] = {}  # member index -> zip holding it
    if tasks[0].compress:
        when = dt.datetime.combine(extract_date, dt.time(3, 11, 13))
        for zip_name, indexes in ABR_ZIPS:
            entries = [
                DeflatedMember(
                    name=members[i],
                    data_path=tasks[i].abr_path,
                    crc32=results[i].crc32,
                    compressed_size=results[i].abr_stored_bytes,
                    size=results[i].abr_bytes,
                )
                for i in indexes
            ]
            write_zip(tmp / zip_name, entries, when)
            os.replace(tmp / zip_name, abr_dir / zip_name)
            for i in indexes:
                home[i] = zip_name
                (abr_dir / members[i]).unlink(missing_ok=True)
    else:
        for i, name in enumerate(members):
            os.replace(tasks[i].abr_path, abr_dir / name)
        for zip_name, _ in ABR_ZIPS:
            (abr_dir / zip_name).unlink(missing_ok=True)

    files: list[SampleFile] = []
    planted: list[PlantedRow] = []
    for i, res in enumerate(results):
        holder = home.get(i)
        member = members[i] if holder else None
        rel = f"abr/{holder or members[i]}"
        display = f"{holder}!{members[i]}" if holder else members[i]
        files.append(SampleFile(rel, member, res.records))
        planted += [
            PlantedRow("abr", display, line, kind, rel, member) for kind, line in res.planted_abr
        ]
    return files, planted


def _finish_csv(
    out_dir: Path,
    tmp: Path,
    source: str,
    name: str,
    header: str,
    parts: list[tuple[Path, int, list[tuple[str, int]]]],
    progress: Progress | None,
) -> tuple[SampleFile, list[PlantedRow]]:
    """BOM and header, then the chunks' parts in order; part lines shift by what precedes."""
    rel = f"{source}/{name}"
    total = sum(rows for _, rows, _ in parts)
    planted: list[PlantedRow] = []
    done = 0
    with open(tmp / name, "wb") as out:
        out.write(BOM + header.encode("utf-8") + b"\r\n")
        for path, rows, part_planted in parts:
            with open(path, "rb") as fh:
                shutil.copyfileobj(fh, out, 1 << 20)
            # header = line 1, then the rows of the earlier parts
            planted += [
                PlantedRow(source, name, 1 + done + line, kind, rel) for kind, line in part_planted
            ]
            done += rows
            if progress is not None:
                progress(source, done, total)
    os.replace(tmp / name, out_dir / rel)
    return SampleFile(rel, None, total), planted


def write_sample(
    out_dir: Path,
    *,
    scale: int = 10_000,
    seed: int = 1,
    extract_date: dt.date = DEFAULT_EXTRACT_DATE,
    abr_format: Literal["zip", "xml"] = "zip",
    workers: int = 0,
    progress: Progress | None = None,
) -> SampleSummary:
    """Write a reproducible sample of the ABR extract and the ASIC company and BN datasets.

    ``scale`` ABN records go into 20 ABR files (zipped as the two real downloads, or plain
    XML); about 0.175 * scale companies (1.23 rows each) and 0.165 * scale business names
    follow from them. A few rows per source are deliberately malformed; they are listed in
    the summary and in ``_sample/planted.json``. Same arguments, same bytes.
    """
    if not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"scale must be between 1 and {MAX_SCALE}, got {scale}")
    if abr_format not in ("zip", "xml"):
        raise ValueError(f"abr_format must be 'zip' or 'xml', got {abr_format!r}")
    out_dir = Path(out_dir)
    stamp = extract_date.strftime("%Y%m%d")
    month = extract_date.strftime("%Y%m")
    abr_dir = out_dir / "abr"
    co_dir = out_dir / "asic_companies"
    bn_dir = out_dir / "asic_business_names"
    meta_dir = out_dir / "_sample"
    for d in (abr_dir, co_dir, bn_dir, meta_dir):
        d.mkdir(parents=True, exist_ok=True)
    members = [f"{stamp}_Public{i + 1:02d}.xml" for i in range(ABR_FILES)]
    company_name = f"company_{month}.csv"
    bn_name = f"business_names_{month}.csv"
    compress = abr_format == "zip"

    plan = random.Random(f"bvs-sample-planted:{seed}")
    planted_abr = _planted_positions(
        plan, scale, min(_planted_count(scale), scale // 10), ABR_KINDS
    )
    planted_co = _planted_positions(
        plan, scale, _planted_count(scale * COMPANY_ROWS_PER_RECORD), COMPANY_KINDS
    )
    planted_bn = _planted_positions(
        plan, scale, _planted_count(scale * BUSINESS_NAME_ROWS_PER_RECORD), BUSINESS_NAME_KINDS
    )

    plan_cases = build_cases(scale=scale, seed=seed, extract_date=extract_date)
    tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=meta_dir))
    try:
        tasks = [
            ChunkTask(
                index=i,
                start=start,
                count=count,
                seed=seed,
                scale=scale,
                extract_date=extract_date,
                abr_path=tmp / (f"{members[i]}.deflate" if compress else members[i]),
                compress=compress,
                company_part=tmp / f"company.{i:02d}.part",
                business_name_part=tmp / f"business_names.{i:02d}.part",
                part_dir=tmp,
                extra_abr=tuple(plan_cases.abr_lines) if i == ABR_FILES - 1 else (),
                extra_company=tuple(plan_cases.company_rows) if i == ABR_FILES - 1 else (),
                extra_business_name=(
                    tuple(plan_cases.business_name_rows) if i == ABR_FILES - 1 else ()
                ),
                planted_abr=_split(planted_abr, start, count),
                planted_company=_split(planted_co, start, count),
                planted_business_name=_split(planted_bn, start, count),
            )
            for i, (start, count) in enumerate(chunk_bounds(scale))
        ]
        n_workers = min(workers or os.cpu_count() or 1, len(tasks))
        results = sorted(_run_tasks(tasks, n_workers, progress), key=lambda r: r.index)

        files, planted = _finish_abr(abr_dir, tmp, members, tasks, results, extract_date)
        for source, name, header, parts in (
            (
                "asic_companies",
                company_name,
                COMPANY_HEADER,
                [
                    (t.company_part, r.company_rows, r.planted_company)
                    for t, r in zip(tasks, results, strict=True)
                ],
            ),
            (
                "asic_business_names",
                bn_name,
                BUSINESS_NAME_HEADER,
                [
                    (t.business_name_part, r.business_name_rows, r.planted_business_name)
                    for t, r in zip(tasks, results, strict=True)
                ],
            ),
        ):
            csv_file, csv_planted = _finish_csv(out_dir, tmp, source, name, header, parts, progress)
            files.append(csv_file)
            planted += csv_planted
        # The market's ASX products: the listed background companies, plus the core and
        # new names, which the ASX list gets too.
        universe = M.build_universe(
            scale,
            seed,
            M.read_listed(
                [tmp / f"asx.{r.index:02d}.part" for r in results if r.register_rows.get("asx")]
            ),
        )
        register_files, register_planted, register_counts = _finish_registers(
            out_dir,
            tmp,
            results,
            plan_cases,
            seed,
            extract_date,
            progress,
            extra_rows={"asx": [list(row) for row in universe.listed_rows]},
        )
        files += register_files
        planted += register_planted
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    market = M.write_market(
        out_dir, universe, seed=seed, extract_date=extract_date, progress=progress
    )
    files += [SampleFile(f.rel, None, f.rows) for f in market.files]
    market_planted = [
        PlantedRow(f.source, f.file, f.line, f.reason_kind, f.rel) for f in market.faults
    ]
    planted += market_planted
    register_counts.update(market.counts)

    ledgers = write_ledgers(out_dir, plan_cases, seed, scale)

    counts = _counts(results, planted)
    _add_case_counts(counts, plan_cases)
    counts["ledgers"] = {f"{f['customer']}/{f['ledger']}": f["rows"] for f in ledgers["files"]}
    counts.update(register_counts)
    summary = SampleSummary(
        out_dir=out_dir,
        scale=scale,
        seed=seed,
        extract_date=extract_date,
        files=files,
        per_source=counts,
        planted=planted,
        as_of=plan_cases.as_of,
        cases=plan_cases.cases,
        unknown_codes={
            "entity_type": list(UNKNOWN_ENTITY_TYPE_CODES),
            "company_status": [UNKNOWN_COMPANY_STATUS],
        },
        market=market.cases,
        market_malformed=market_planted,
        market_corrections=market.corrections,
        ledgers=ledgers,
    )
    _write_planted_json(meta_dir / "planted.json", summary)
    return summary


def _counts(results: list[ChunkResult], planted: list[PlantedRow]) -> dict[str, dict[str, int]]:
    def total(key: str) -> int:
        return sum(r.counts[key] for r in results)

    bad = {
        s: sum(1 for p in planted if p.source == s)
        for s in ("abr", "asic_companies", "asic_business_names")
    }
    records = sum(r.records for r in results)
    co_rows = sum(r.company_rows for r in results)
    bn_rows = sum(r.business_name_rows for r in results)
    return {
        "abr": {
            "files": len(results),
            "records": records,
            "malformed": bad["abr"],
            # valid records: rows of raw.abr__abns
            "entities": records - bad["abr"],
            "individuals": total("individuals"),
            "abn_cancelled": total("abn_cancelled"),
            "with_gst": total("gst"),
            # <OtherEntity> names (TRD, BN, OTN); DGR elements counted apart
            "other_names": total("other_names"),
            "dgr": total("dgr"),
            "dgr_named": total("dgr_named"),
            # other names plus DGR fund names: the rows of raw.abr__other_names
            "other_name_rows": total("other_names") + total("dgr_named"),
            "companies": total("companies_in_abr"),
        },
        "asic_companies": {
            "rows": co_rows,
            "malformed": bad["asic_companies"],
            "valid_rows": co_rows - bad["asic_companies"],
            "companies": total("companies_in_abr") + total("companies_without_abr"),
            "companies_in_abr": total("companies_in_abr"),
            "companies_without_abr": total("companies_without_abr"),
            "current_name_rows": total("company_current_rows"),
            "former_name_rows": total("company_former_rows"),
        },
        "asic_business_names": {
            "rows": bn_rows,
            "malformed": bad["asic_business_names"],
            "valid_rows": bn_rows - bad["asic_business_names"],
            "in_abr": total("business_names_in_abr"),
        },
    }


def _add_case_counts(counts: dict[str, dict[str, int]], plan: CasePlan) -> None:
    """The planted cases' ABR records and ASIC rows in the core counts."""
    abr = counts["abr"]
    abr["companies"] += sum("<ASICNumber" in line for line in plan.abr_lines)
    abr["individuals"] += sum("<EntityTypeInd>IND<" in line for line in plan.abr_lines)
    abr["abn_cancelled"] += sum('status="CAN"' in line for line in plan.abr_lines)
    abr["with_gst"] += sum("<GST " in line for line in plan.abr_lines)
    abr["planted_cases"] = len(plan.abr_lines)
    co = counts["asic_companies"]
    rows = [row.split("\t") for row in plan.company_rows]
    with_abn = {f[1] for f in rows if f[12]}
    without = {f[1] for f in rows} - with_abn
    co["companies"] += len(with_abn) + len(without)
    co["companies_in_abr"] += len(with_abn)
    co["companies_without_abr"] += len(without)
    co["current_name_rows"] += sum(f[11] == "Y" for f in rows)
    co["former_name_rows"] += sum(f[11] != "Y" for f in rows)
    bn = counts["asic_business_names"]
    bn["in_abr"] += sum(not row.endswith("\t" + CRLF) for row in plan.business_name_rows)


def _write_planted_json(path: Path, summary: SampleSummary) -> None:
    doc = {
        "scale": summary.scale,
        "seed": summary.seed,
        "extract_date": summary.extract_date.isoformat(),
        "counts": summary.per_source,
        "files": [asdict(f) for f in summary.files],
        "unknown_codes": summary.unknown_codes,
        "planted": [asdict(p) for p in summary.planted],
        "as_of": summary.as_of.isoformat() if summary.as_of else None,
        "cases": summary.cases,
        "market": summary.market,
        "market_malformed": [asdict(p) for p in summary.market_malformed],
        "market_corrections": summary.market_corrections,
        "ledgers": summary.ledgers,
    }
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


# -- the other registers ----------------------------------------------------------------------

# Deliberately malformed rows per file: kinds, in turn. Each is a valid row of the file
# (the first one the generator wrote) with one fault, so the parser quarantines exactly it.
MALFORMED_KINDS: dict[str, tuple[str, ...]] = {
    "directors": ("bad_acn_check_digit", "bad_date", "missing_key"),
    "adverse/ACCC": ("wrong_field_count", "bad_date"),
    "adverse/QBCC": ("missing_key",),
    "gazette": ("bad_date", "missing_key", "wrong_field_count"),
    "licences/QBCC": ("bad_date", "wrong_field_count"),
    "licences/NSW_FAIR_TRADING": ("missing_key",),
    "industry": ("bad_abn_check_digit", "missing_key", "wrong_field_count"),
    "ppsr": ("bad_date", "wrong_field_count", "missing_key"),
    "registers/TAX_PRACTITIONERS": ("bad_date",),
    "registers/GOV_CONTRACTS": ("wrong_field_count", "missing_key"),
    "banned_persons": ("bad_date", "wrong_field_count", "missing_key"),
    "banned_organisations": ("wrong_field_count", "stray_tab", "bad_date"),
    "advisers": ("stray_tab", "bad_date", "missing_key"),
    "afs": ("wrong_field_count", "bad_date", "missing_key"),
    "credit": ("wrong_field_count", "bad_date"),
    "liquidators": ("bad_date", "missing_key"),
    "charities": ("bad_abn_check_digit", "wrong_field_count"),
    "asx": ("wrong_field_count", "missing_key"),
}
# An identifier a record only lists (not its key) is kept even when it fails its check digits
# (docs/decisions/19-a-records-own-identifier.md): the check-digit faults go only into key identifiers (directors' ACN,
# industry's and charities' ABN); the planted cases hold records listing such identifiers.
# Per file: the columns a fault goes into (date, ABN, ACN, key, free text).
_FAULT_COLUMNS: dict[str, dict[str, str]] = {
    "directors": {"date": "appointed_date", "acn": "acn", "key": "person_name"},
    "adverse": {"date": "action_date", "abn": "abn", "key": "record_id"},
    "gazette": {"date": "published_date", "acn": "acn", "key": "notice_id"},
    "licences": {"date": "granted_date", "abn": "abn", "key": "licence_number"},
    "industry": {"abn": "abn", "key": "abn"},
    "ppsr": {"date": "start_date", "acn": "grantor_acn", "key": "registration_number"},
    "registers": {"date": "status_date", "abn": "abn", "key": "record_id"},
    "banned_persons": {"date": "BD_PER_START_DT", "key": "BD_PER_NAME"},
    "banned_organisations": {
        "date": "BD_ORG_START_DT",
        "acn": "BD_ORG_ACN",
        "key": "BD_ORG_NAME",
        "free": "BD_ORG_COMMENT",
    },  # fmt: skip
    "advisers": {
        "date": "ADV_START_DT",
        "abn": "ADV_ABN",
        "key": "ADV_NUMBER",
        "free": "QUALIFICATIONS_AND_TRAINING",
    },  # fmt: skip
    "afs": {"date": "AFS_LIC_START_DT", "abn": "AFS_LIC_ABN_ACN", "key": "AFS_LIC_NUM"},
    "credit": {"date": "CRED_LIC_START_DT", "abn": "CRED_LIC_ABN_ACN", "key": "CRED_LIC_NUM"},
    "liquidators": {"date": "LIQ_START_DT", "key": "LIQ_NUM"},
    "charities": {"abn": "ABN", "key": "ABN"},
    "asx": {"key": "ASX code"},
}
_BAD_ABN = "51824753557"  # 51 824 753 556 (valid) with its last digit changed
_BAD_ACN = "004085617"  # 004 085 616 (valid) with its last digit changed


def _fault(target: F.Target, values: list[str], kind: str) -> list[str]:
    cols = _FAULT_COLUMNS[target.key.split("/")[0]]
    row = list(values)
    where = {name: i for i, name in enumerate(target.columns)}
    if kind == "bad_date":
        row[where[cols["date"]]] = "2026-02-30" if target.date_format == "iso" else "30/02/2026"
    elif kind == "bad_abn_check_digit":
        row[where[cols["abn"]]] = _BAD_ABN
    elif kind == "bad_acn_check_digit":
        row[where[cols["acn"]]] = _BAD_ACN
    elif kind == "missing_key":
        row[where[cols["key"]]] = ""
    elif kind == "wrong_field_count":
        row.append("EXTRA FIELD")
    elif kind == "stray_tab":  # free text holding a tab, as a few real rows do
        row[where[cols["free"]]] = "Diploma of Financial Planning\tAdvanced"
    else:
        raise ValueError(kind)
    return row


def _finish_registers(
    out_dir: Path,
    tmp: Path,
    results: list[ChunkResult],
    cases: CasePlan,
    seed: int,
    extract_date: dt.date,
    progress: Progress | None,
    extra_rows: dict[str, list[list[str]]] | None = None,
) -> tuple[list[SampleFile], list[PlantedRow], dict[str, dict[str, int]]]:
    """Join each other register's chunk parts, then its planted-case rows and any
    ``extra_rows`` (the market's ASX names), with the malformed rows placed between parts
    (their physical line numbers recorded)."""
    plan = random.Random(f"bvs-sample-register-faults:{seed}")
    files: list[SampleFile] = []
    planted: list[PlantedRow] = []
    per_source: dict[str, dict[str, int]] = {}
    targets = F.targets(extract_date)
    for done, (key, target) in enumerate(targets.items(), start=1):
        (out_dir / target.source).mkdir(parents=True, exist_ok=True)
        parts = [
            (tmp / f"{key.replace('/', '__')}.{r.index:02d}.part", r.register_rows.get(key, 0))
            for r in results
        ]
        parts = [(path, rows) for path, rows in parts if rows]
        case_rows = cases.rows.get(key, []) + (extra_rows or {}).get(key, [])
        template = next(
            (r.register_samples[key] for r in results if key in r.register_samples),
            case_rows[0] if case_rows else None,
        )
        kinds = MALFORMED_KINDS.get(key, ()) if template is not None else ()
        slots = len(parts) + 1
        where = sorted(plan.randrange(slots) for _ in kinds)
        faults = [(slot, kind) for slot, kind in zip(where, kinds, strict=True)]
        rows = 0
        lines = 0
        bad: list[PlantedRow] = []
        path = tmp / target.name
        with open(path, "wb") as out:
            head = target.head()
            out.write(head)
            lines += head.count(b"\n")

            def write_faults(slot: int) -> None:
                nonlocal lines, rows
                for s, kind in faults:  # noqa: B023 (called within the iteration that defines it)
                    if s == slot:
                        assert template is not None  # noqa: B023 (called within the iteration that defines it)
                        data = target.line(_fault(target, template, kind)).encode("utf-8")  # noqa: B023 (called within the iteration that defines it)
                        bad.append(  # noqa: B023 (called within the iteration that defines it)
                            PlantedRow(target.source, target.name, lines + 1, kind, target.rel)  # noqa: B023 (called within the iteration that defines it)
                        )
                        out.write(data)
                        lines += data.count(b"\n")
                        rows += 1

            for slot, (part, count) in enumerate(parts):
                write_faults(slot)
                with open(part, "rb") as fh:
                    while block := fh.read(1 << 22):
                        out.write(block)
                        lines += block.count(b"\n")
                rows += count
            write_faults(len(parts))
            for values in case_rows:
                data = target.line(values).encode("utf-8")
                out.write(data)
                lines += data.count(b"\n")
                rows += 1
        os.replace(path, out_dir / target.rel)
        files.append(SampleFile(target.rel, None, rows))
        planted += bad
        counts = per_source.setdefault(target.source, {"files": 0, "rows": 0, "malformed": 0})
        counts["files"] += 1
        counts["rows"] += rows
        counts["malformed"] += len(bad)
        if "/" in key:
            counts[f"rows.{key.partition('/')[2]}"] = rows
        if progress is not None:
            progress("registers", done, len(targets))
    for counts in per_source.values():
        counts["valid_rows"] = counts["rows"] - counts["malformed"]
    return files, planted, per_source
