"""Other ASIC registers, the ACNC charity register and the ASX list (LANDING.md A).

Each register is declared as a :class:`DelimitedSpec` and read by
:mod:`pipelines.ingest.delimited`, which handles what they share: UTF-8 with BOM, the
delimiter read from the header line (it differs by file), columns matched by header name
(only the columns LANDING.md names are read; the advisers file has about 76 and the charity
register about 65), ``DD/MM/YYYY`` dates, and quarantine of malformed rows. Per file:

* Banned persons, AFS and credit licensees, liquidators, charities, ASX: comma-separated and
  quoted (fields may span lines, as AFS licence conditions do).
* Banned organisations and financial advisers: tab-separated, unquoted. Adviser rows whose
  free text holds a tab have too many fields and are quarantined; the rest load.
* ``BD_ORG_END_DT`` may be free text (``Permanent banning``), so it stays text in raw;
  staging keeps it and adds a parsed date that is null when it is not a date.
* ``AFS_LIC_ABN_ACN`` / ``CRED_LIC_ABN_ACN`` hold an ABN or an ACN: validated as either here,
  split into abn/acn in staging.
* The ASX list opens with a title line (``ASX listed companies as at <date>``) and a blank
  line before the header: both are skipped (and counted in line numbers); the title's date
  is the file's extract date.

Each register is republished whole, so only the newest file of a folder is read
(:func:`pipelines.ingest.files.latest_file_key`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator

from pipelines.ingest import tables as t
from pipelines.ingest.base import Batch, FileInfo, LandingFile
from pipelines.ingest.delimited import DelimitedSpec, declared_spec, read_delimited

# Each register's columns, headers, kinds and keys are its layout in ``tables``; the
# delimiter is read from the header line (it differs by file).

BANNED_PERSONS = declared_spec(
    "ASIC Banned and Disqualified Persons",
    "banned_persons",
    t.ASIC_BANNED_PERSONS,
    delimiter=None,
    quoted=True,
)
BANNED_ORGANISATIONS = declared_spec(
    "ASIC Banned and Disqualified Organisations",
    "banned_organisations",
    t.ASIC_BANNED_ORGANISATIONS,
    delimiter=None,
)
AFS_LICENSEES = declared_spec(
    "ASIC AFS Licensee dataset", "afs_licensees", t.ASIC_AFS_LICENSEES, delimiter=None, quoted=True
)
CREDIT_LICENSEES = declared_spec(
    "ASIC Credit Licensee dataset",
    "credit_licensees",
    t.ASIC_CREDIT_LICENSEES,
    delimiter=None,
    quoted=True,
)
LIQUIDATORS = declared_spec(
    "ASIC Registered Liquidators", "liquidators", t.ASIC_LIQUIDATORS, delimiter=None, quoted=True
)
FINANCIAL_ADVISERS = declared_spec(
    "ASIC Financial Advisers register",
    "financial_advisers",
    t.ASIC_FINANCIAL_ADVISERS,
    delimiter=None,
)
CHARITIES = declared_spec(
    "ACNC Charity Register", "charities", t.ACNC_CHARITIES, delimiter=None, quoted=True
)
ASX_LISTED = declared_spec(
    "ASX listed companies",
    "listed_companies",
    t.ASX_LISTED_COMPANIES,
    delimiter=None,
    quoted=True,
    preamble_lines=2,  # the title line and a blank line
)


def parser(spec: DelimitedSpec) -> Callable[[LandingFile], Iterator[Batch]]:
    """A single-file parser (for ``sources.each_file``) yielding ``Batch(tables={table: ...})``."""

    def parse(file: LandingFile, batch_rows: int = 100_000) -> Iterator[Batch]:
        return read_delimited(file, spec, batch_rows)

    return parse


def file_info(file: LandingFile) -> FileInfo:
    """The registers carry no extract date in their name nor a declared record count."""
    return FileInfo()


_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
_ASX_TITLE = re.compile(
    r"as at\s+\w{3}\s+(\w{3})\s+(\d{1,2})\s+[\d:]+\s+\S+\s+(\d{4})", re.IGNORECASE
)


def asx_date(title: str) -> dt.date | None:
    """The date of ``ASX listed companies as at Wed Apr 01 11:24:19 AEDT 2026``, or None."""
    match = _ASX_TITLE.search(title)
    if not match or match[1].lower() not in _MONTHS:
        return None
    try:
        return dt.date(int(match[3]), _MONTHS[match[1].lower()], int(match[2]))
    except ValueError:
        return None


def asx_file_info(file: LandingFile) -> FileInfo:
    """Extract date from the ASX list's title line (None if the title is not as expected)."""
    with file.open() as fh:
        first = fh.readline(1000)
    title = first.decode("utf-8-sig", errors="replace")
    return FileInfo(extract_date=asx_date(title))
