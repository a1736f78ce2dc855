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
from collections.abc import Callable, Iterator, Mapping

import pyarrow as pa

from pipelines.ingest import tables as t
from pipelines.ingest.base import Batch, FileInfo, LandingFile
from pipelines.ingest.delimited import DelimitedSpec, IdKind, read_delimited


def _spec(
    dataset: str,
    table: str,
    schema: pa.Schema,
    columns: Mapping[str, str],
    *,
    quoted: bool,
    optional: frozenset[str] = frozenset(),
    identifiers: Mapping[str, IdKind] | None = None,
    preamble_lines: int = 0,
) -> DelimitedSpec:
    """A spec whose headers are all required but ``optional``; date32 columns are dates."""
    return DelimitedSpec(
        dataset=dataset,
        table=table,
        schema=schema,
        columns=columns,
        required=frozenset(columns) - optional,
        dates=frozenset(f.name for f in schema if f.type == pa.date32()),
        identifiers=identifiers or {},
        delimiter=None,  # read from the header line
        quoted=quoted,
        preamble_lines=preamble_lines,
    )


def _lower(*headers: str) -> dict[str, str]:
    return {header: header.lower() for header in headers}


BANNED_PERSONS = _spec(
    "ASIC Banned and Disqualified Persons",
    "banned_persons",
    t.ASIC_BANNED_PERSONS,
    _lower(
        "REGISTER_NAME",
        "BD_PER_NAME",
        "BD_PER_TYPE",
        "BD_PER_DOC_NUM",
        "BD_PER_START_DT",
        "BD_PER_END_DT",
        "BD_PER_ADD_LOCAL",
        "BD_PER_ADD_STATE",
        "BD_PER_ADD_PCODE",
        "BD_PER_ADD_COUNTRY",
        "BD_PER_COMMENTS",
    ),
    quoted=True,
)

BANNED_ORGANISATIONS = _spec(
    "ASIC Banned and Disqualified Organisations",
    "banned_organisations",
    t.ASIC_BANNED_ORGANISATIONS,
    _lower(
        "REGISTER_NAME",
        "BD_ORG_NAME",
        "BD_ORG_ACN",
        "BD_ORG_TYPE",
        "BD_ORG_START_DT",
        "BD_ORG_END_DT",
        "BD_ORG_COMMENT",
    ),
    quoted=False,
    identifiers={"bd_org_acn": IdKind.ACN},
)

AFS_LICENSEES = _spec(
    "ASIC AFS Licensee dataset",
    "afs_licensees",
    t.ASIC_AFS_LICENSEES,
    _lower(
        "REGISTER_NAME",
        "AFS_LIC_NUM",
        "AFS_LIC_NAME",
        "AFS_LIC_ABN_ACN",
        "AFS_LIC_START_DT",
        "AFS_LIC_PRE_FSR",
        "AFS_LIC_ADD_LOCAL",
        "AFS_LIC_ADD_STATE",
        "AFS_LIC_ADD_PCODE",
        "AFS_LIC_ADD_COUNTRY",
        "AFS_LIC_LAT",
        "AFS_LIC_LNG",
        "AFS_LIC_CONDITION",
    ),
    quoted=True,
    identifiers={"afs_lic_abn_acn": IdKind.ABN_OR_ACN},
)

CREDIT_LICENSEES = _spec(
    "ASIC Credit Licensee dataset",
    "credit_licensees",
    t.ASIC_CREDIT_LICENSEES,
    _lower(
        "REGISTER_NAME",
        "CRED_LIC_NUM",
        "CRED_LIC_NAME",
        "CRED_LIC_START_DT",
        "CRED_LIC_END_DT",
        "CRED_LIC_STATUS",
        "CRED_LIC_ABN_ACN",
        "CRED_LIC_AFSL_NUM",
        "CRED_LIC_STATUS_HISTORY",
        "CRED_LIC_LOCALITY",
        "CRED_LIC_STATE",
        "CRED_LIC_PCODE",
        "CRED_LIC_LAT",
        "CRED_LIC_LNG",
        "CRED_LIC_EDRS",
        "CRED_LIC_BN",
        "CRED_LIC_AUTHORISATIONS",
    ),
    quoted=True,
    identifiers={"cred_lic_abn_acn": IdKind.ABN_OR_ACN},
)

LIQUIDATORS = _spec(
    "ASIC Registered Liquidators",
    "liquidators",
    t.ASIC_LIQUIDATORS,
    _lower(
        "REGISTER_NAME",
        "LIQ_NUM",
        "LIQ_NAME",
        "OFF_LIQ_NUM",
        "LIQ_START_DT",
        "OFF_LIQ_START_DT",
        "LIQ_STATUS",
        "LIQ_SUSP_DT",
        "LIQ_ADD_LOCAL",
        "LIQ_ADD_STATE",
        "LIQ_ADD_PCODE",
        "LIQ_ADD_COUNTRY",
        "LIQ_FIRM",
    ),
    quoted=True,
)

FINANCIAL_ADVISERS = _spec(
    "ASIC Financial Advisers register",
    "financial_advisers",
    t.ASIC_FINANCIAL_ADVISERS,
    _lower(
        "REGISTER_NAME",
        "ADV_NAME",
        "ADV_NUMBER",
        "ADV_ROLE",
        "ADV_ROLE_STATUS",
        "ADV_ABN",
        "LICENCE_NAME",
        "LICENCE_NUMBER",
        "LICENCE_ABN",
        "ADV_START_DT",
        "ADV_END_DT",
        "OVERALL_REGISTRATION_STATUS",
    ),
    quoted=False,
    identifiers={"adv_abn": IdKind.ABN, "licence_abn": IdKind.ABN},
)

_ACNC_ADDRESS = (
    "Address_Type",
    "Address_Line_1",
    "Address_Line_2",
    "Address_Line_3",
    "Town_City",
    "State",
    "Postcode",
    "Country",
    "Charity_Website",
    "Date_Organisation_Established",
    "Charity_Size",
)
CHARITIES = _spec(
    "ACNC Charity Register",
    "charities",
    t.ACNC_CHARITIES,
    _lower(
        "ABN",
        "Charity_Legal_Name",
        "Other_Organisation_Names",
        "Registration_Date",
        *_ACNC_ADDRESS,
    ),
    quoted=True,
    # Only the columns LANDING.md names are required; the others load as null if renamed.
    optional=frozenset(_ACNC_ADDRESS),
    identifiers={"abn": IdKind.ABN},
)

ASX_LISTED = _spec(
    "ASX listed companies",
    "listed_companies",
    t.ASX_LISTED_COMPANIES,
    {
        "Company name": "company_name",
        "ASX code": "asx_code",
        "GICS industry group": "gics_industry_group",
    },
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
