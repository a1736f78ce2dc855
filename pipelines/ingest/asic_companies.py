"""ASIC Company Dataset (``asic_companies/company_YYYYMM.csv`` or ``.zip``).

Tab-separated although named ``.csv``, no quoting (a ``"`` is literal), UTF-8 with BOM and
CRLF in current files, cp1252 in older ones. One row per company name: the current name has
``Current Name Indicator = Y``; former-name rows leave it blank and carry ``Current Name``.
Columns are read by header name: current files have 15, older ones 14 (no
``Date of Deregistration``) or 12; a column a file lacks loads as null.

Status and type codes are kept as published, unknown ones included. Type ``RACN`` rows hold
an ARBN in the ACN column; ARBNs use the ACN check digit, so both are validated alike.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipelines.ingest.base import Batch, FileInfo, LandingFile
from pipelines.ingest.delimited import date_from_name, declared_spec, read_delimited
from pipelines.ingest.tables import ASIC_COMPANIES

TABLE = "companies"

# Columns, headers and which ones older files may lack: tables.ASIC_COMPANIES.
SPEC = declared_spec("ASIC Company Dataset", TABLE, ASIC_COMPANIES, delimiter="\t")


def parse(file: LandingFile, batch_rows: int = 100_000) -> Iterator[Batch]:
    """Stream the file as ``Batch(tables={"companies": ...})`` in the ASIC_COMPANIES schema."""
    return read_delimited(file, SPEC, batch_rows)


def file_info(file: LandingFile) -> FileInfo:
    """Extract date from ``company_YYYYMM``: the first day of that month (see date_from_name)."""
    extract = date_from_name(file.inner_name, "company") or date_from_name(
        file.path.name, "company"
    )
    return FileInfo(extract_date=extract, declared_records=None)
