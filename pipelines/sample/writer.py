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

from pipelines.sample.entity_types import UNKNOWN_ENTITY_TYPE_CODES
from pipelines.sample.generate import (
    ABR_KINDS,
    BUSINESS_NAME_KINDS,
    COMPANY_KINDS,
    UNKNOWN_COMPANY_STATUS,
    ChunkResult,
    ChunkTask,
    generate_chunk,
)
from pipelines.sample.numbering import MAX_SCALE
from pipelines.sample.zipwrite import DeflatedMember, write_zip

DEFAULT_EXTRACT_DATE = dt.date(2026, 11, 18)
ABR_FILES = 20
ABR_ZIPS = (("public_split_1_10.zip", range(0, 10)), ("public_split_11_20.zip", range(10, 20)))
MALFORMED_SHARE = 0.0005  # of the rows of each source
MIN_MALFORMED = 6  # per source, so a small sample still has a couple of each kind
# Expected ASIC rows per ABN record, only used to size the planted share.
COMPANY_ROWS_PER_RECORD = 0.215
BUSINESS_NAME_ROWS_PER_RECORD = 0.165

COMPANY_HEADER = (
    "Company Name\tACN\tType\tClass\tSub Class\tStatus\tDate of Registration\t"
    "Date of Deregistration\tPrevious State of Registration\tState Registration number\t"
    "Modified since last report\tCurrent Name Indicator\tABN\tCurrent Name\t"
    "Current Name Start Date"
)
BUSINESS_NAME_HEADER = (
    "REGISTER_NAME\tBN_NAME\tBN_STATUS\tBN_REG_DT\tBN_CANCEL_DT\tBN_STATE_NUM\t"
    "BN_STATE_OF_REG\tBN_ABN"
)
BOM = b"\xef\xbb\xbf"

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PlantedRow:
    """A deliberately malformed row: the ingest must quarantine exactly these."""

    source: str  # landing folder: abr, asic_companies, asic_business_names
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
    unknown_codes: dict[str, list[str]] = field(default_factory=dict)

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
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    counts = _counts(results, planted)
    summary = SampleSummary(
        out_dir=out_dir,
        scale=scale,
        seed=seed,
        extract_date=extract_date,
        files=files,
        per_source=counts,
        planted=planted,
        unknown_codes={
            "entity_type": list(UNKNOWN_ENTITY_TYPE_CODES),
            "company_status": [UNKNOWN_COMPANY_STATUS],
        },
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


def _write_planted_json(path: Path, summary: SampleSummary) -> None:
    doc = {
        "scale": summary.scale,
        "seed": summary.seed,
        "extract_date": summary.extract_date.isoformat(),
        "counts": summary.per_source,
        "files": [asdict(f) for f in summary.files],
        "unknown_codes": summary.unknown_codes,
        "planted": [asdict(p) for p in summary.planted],
    }
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
