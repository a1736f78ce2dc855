"""ASIC Business Names Dataset (``asic_business_names/business_names_YYYYMM*.csv`` or ``.zip``).

Tab-separated, no quoting, UTF-8 with BOM and CRLF, 8 columns. ``BN_NAME`` is padded with
leading spaces (trimmed here, like every value). ``BN_STATUS`` is kept as published
(``Registered``, ``Cancelled``, the undocumented ``Deregistered``, or anything new).
``BN_ABN`` may be empty; a present ABN is kept as listed even when it fails its check digits
(the matching then finds it names no entity: docs/decisions/19-a-records-own-identifier.md). A row without a name is
quarantined. Columns are read by header name; extra columns (e.g. ``BN_RENEW_DT``) are ignored.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipelines.ingest.base import Batch, FileInfo, LandingFile
from pipelines.ingest.delimited import date_from_name, declared_spec, read_delimited
from pipelines.ingest.tables import ASIC_BUSINESS_NAMES

TABLE = "business_names"

SPEC = declared_spec("ASIC Business Names Dataset", TABLE, ASIC_BUSINESS_NAMES, delimiter="\t")


def parse(file: LandingFile, batch_rows: int = 100_000) -> Iterator[Batch]:
    """Stream the file as ``Batch(tables={"business_names": ...})`` (ASIC_BUSINESS_NAMES)."""
    return read_delimited(file, SPEC, batch_rows)


def file_info(file: LandingFile) -> FileInfo:
    """Extract date from ``business_names_YYYYMM[DD]``: that day, else the month's first day."""
    extract = date_from_name(file.inner_name, "business_names") or date_from_name(
        file.path.name, "business_names"
    )
    return FileInfo(extract_date=extract, declared_records=None)
