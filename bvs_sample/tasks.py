"""A chunk of the sample: the unit of parallel work (:class:`ChunkTask`, picklable) and what
its worker reports back (:class:`ChunkResult`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs for one chunk (picklable)."""

    index: int  # 0-based file index
    start: int  # global index of the chunk's first record
    count: int
    seed: int
    scale: int
    extract_date: dt.date
    abr_path: Path  # plain XML, or the raw deflate stream when ``compress``
    compress: bool
    company_part: Path
    business_name_part: Path
    planted_abr: dict[int, str] = field(default_factory=dict)  # local record index -> kind
    planted_company: dict[int, str] = field(default_factory=dict)
    planted_business_name: dict[int, str] = field(default_factory=dict)
    part_dir: Path | None = None  # where the other registers' part files go (None: not written)
    # Planted-case records appended to this chunk (the last one): ABR lines, ASIC rows.
    extra_abr: tuple[str, ...] = ()
    extra_company: tuple[str, ...] = ()
    extra_business_name: tuple[str, ...] = ()


@dataclass
class ChunkResult:
    index: int
    records: int = 0
    abr_bytes: int = 0  # uncompressed size of the XML
    abr_stored_bytes: int = 0  # bytes written (compressed size when compressing)
    crc32: int = 0
    company_rows: int = 0
    business_name_rows: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    # (kind, line): ABR lines are file lines; part lines are 1-based within the part.
    planted_abr: list[tuple[str, int]] = field(default_factory=list)
    planted_company: list[tuple[str, int]] = field(default_factory=list)
    planted_business_name: list[tuple[str, int]] = field(default_factory=list)
    register_rows: dict[str, int] = field(default_factory=dict)  # rows per other target
    register_samples: dict[str, list[str]] = field(default_factory=dict)
