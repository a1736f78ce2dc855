"""The raw tables, each declared once as the columns of its landing file (a :class:`Layout`).

A layout lists a file's columns in the file's order: the raw-table column each one loads
into, its kind (the Arrow type, the identifier check), the publisher's header, and whether
it is a key (not null: a row without it is quarantined) or optional (a file may lack it).
From it derive the raw table's Arrow schema (``Layout.schema``), the parser's spec
(``delimited.declared_spec``) and the header the sample generator writes (``Layout.header``);
``pipelines.ingest.sources`` names each source's layouts.

Raw tables keep the publisher's values, typed (dates as DATE, flags as text) but not
interpreted: ``0000`` postcodes and the ``19000101`` GST dummy date are resolved in dbt
staging, where the rules are visible to analysts. Every raw row carries its landing file
and line so an analyst can go from a warehouse row back to the byte it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

import pyarrow as pa

# Columns with few distinct values are dictionary-encoded in the raw Parquet files; trying a
# dictionary on every column (ABNs, names) costs a third of the write for nothing.
_CODES = {b"bvs.encoding": b"dictionary"}


def code(name: str) -> pa.Field:
    """A short code column (status, type, state): dictionary-encoded when written."""
    return pa.field(name, pa.string(), metadata=_CODES)


def dictionary_columns(schema: pa.Schema) -> list[str]:
    """The columns written dictionary-encoded: the codes. Dates, numbers and flags are written
    plain: the writer's dictionary attempt on mostly distinct values (every source line) cost
    more CPU than it saved bytes (ABR parts, snappy: 0.77 -> 0.60 us a record, 67 -> 65
    bytes)."""
    return [f.name for f in schema if f.metadata == _CODES]


_lineage = [code("source_file"), pa.field("source_line", pa.int64())]

# Kinds: text; code (a short code, dictionary-encoded); date; abn, acn, abn_or_acn (text,
# cleaned by the delimited reader; a key one must pass its check digits, a listed one is kept
# as the record lists it: docs/decisions/19-a-records-own-identifier.md); int; float; bool.
Kind = Literal["text", "code", "date", "abn", "acn", "abn_or_acn", "int", "float", "bool"]
_KIND_TYPES: dict[str, pa.DataType] = {
    "text": pa.string(),
    "code": pa.string(),
    "date": pa.date32(),
    "abn": pa.string(),
    "acn": pa.string(),
    "abn_or_acn": pa.string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
}


@dataclass(frozen=True)
class Column:
    """One column of a landing file and the raw-table column it loads into."""

    name: str  # the raw-table column
    kind: Kind | None = "text"  # None: in the file but not loaded (the generator writes it)
    # The file's header for it; None: the file has no header for it (ABR XML, a value from
    # the file name, a headerless file).
    header: str | None = None
    key: bool = False  # not null: a row with it empty is quarantined
    optional: bool = False  # a file may lack the header; the column then loads as null

    def __post_init__(self) -> None:
        if self.kind is not None and self.kind not in _KIND_TYPES:
            raise ValueError(f"column {self.name}: unknown kind {self.kind!r}")

    @property
    def loaded(self) -> bool:
        return self.kind is not None

    def field(self) -> pa.Field:
        assert self.kind is not None, f"column {self.name} is not loaded"
        f = code(self.name) if self.kind == "code" else pa.field(self.name, _KIND_TYPES[self.kind])
        return f.with_nullable(not self.key)


@dataclass(frozen=True)
class Layout:
    """A raw table declared as its landing file's columns, in the file's order."""

    columns: tuple[Column, ...]

    def __post_init__(self) -> None:
        names = [c.name for c in self.loaded]
        if len(set(names)) != len(names):
            raise ValueError(f"a column is declared twice: {names}")
        headers = [c.header for c in self.columns if c.header is not None]
        if len(set(headers)) != len(headers):
            raise ValueError(f"a header is declared twice: {headers}")

    @property
    def loaded(self) -> tuple[Column, ...]:
        """The columns the raw table holds, in order."""
        return tuple(c for c in self.columns if c.loaded)

    @cached_property
    def schema(self) -> pa.Schema:
        """The raw table's Arrow schema: the loaded columns, then the lineage columns."""
        return pa.schema([*(c.field() for c in self.loaded), *_lineage])

    @property
    def header(self) -> tuple[str, ...]:
        """The file's header row, every column of the file in order (loaded or not)."""
        return tuple(c.header for c in self.columns if c.header is not None)


def layout(*columns: Column, headers: Literal["", "upper", "name"] = "") -> Layout:
    """A layout; ``headers="upper"`` or ``"name"`` gives each column without a header its
    name in capitals (the ASIC registers) or its name as its header (the project formats)."""
    if headers:
        columns = tuple(
            c
            if c.header is not None
            else replace(c, header=c.name.upper() if headers == "upper" else c.name)
            for c in columns
        )
    return Layout(columns)


def unread(*headers: str) -> tuple[Column, ...]:
    """Columns of a file that are not loaded (LANDING.md names only some of a wide file's)."""
    return tuple(Column(h.lower(), None, header=h) for h in headers)


def _text(name: str, header: str | None = None, **kw: bool) -> Column:
    return Column(name, "text", header, **kw)


def _code(name: str, header: str | None = None, **kw: bool) -> Column:
    return Column(name, "code", header, **kw)


def _date(name: str, header: str | None = None, **kw: bool) -> Column:
    return Column(name, "date", header, **kw)


def _key(name: str, header: str | None = None) -> Column:
    return Column(name, "text", header, key=True)


# --- ABR bulk extract (XML: no headers; pipelines.ingest.abr reads the elements) -------------

ABR_ABNS = layout(
    Column("abn", "abn", key=True),
    _code("abn_status"),
    _date("abn_status_from_date"),
    _date("record_last_updated_date"),
    _code("replaced"),
    _code("entity_type_code"),
    _code("entity_type_text"),
    Column("is_individual", "bool"),
    # Non-individuals: the main name. Individuals: given names and family name joined.
    _text("entity_name"),
    _text("name_title"),
    _text("given_name"),
    _text("other_given_name"),
    _text("family_name"),
    _code("state"),
    _text("postcode"),
    _text("asic_number"),
    _code("asic_number_type"),
    _code("gst_status"),
    _date("gst_status_from_date"),
)

ABR_OTHER_NAMES = layout(
    Column("abn", "abn", key=True),
    # TRD trading name, BN business name, OTN other name, DGR deductible gift recipient
    _code("name_type", key=True),
    _key("name"),
    _code("dgr_status"),
    _date("dgr_status_from_date"),
)

# --- ASIC company and business names datasets (tab-separated; read by header name) ----------

ASIC_COMPANIES = layout(
    # Present in every published layout; the rest may be missing from older files (14- and
    # 12-column files have no Date of Deregistration).
    _text("company_name", "Company Name"),
    Column("acn", "acn", "ACN", key=True),
    _code("type", "Type"),
    _code("class", "Class"),
    _code("sub_class", "Sub Class"),
    _code("status", "Status"),
    _date("date_of_registration", "Date of Registration"),
    _date("date_of_deregistration", "Date of Deregistration", optional=True),
    _code("previous_state_of_registration", "Previous State of Registration", optional=True),
    _text("state_registration_number", "State Registration number", optional=True),
    _code("modified_since_last_report", "Modified since last report", optional=True),
    _code("current_name_indicator", "Current Name Indicator", optional=True),
    Column("abn", "abn", "ABN", optional=True),
    _text("current_name", "Current Name", optional=True),
    _date("current_name_start_date", "Current Name Start Date", optional=True),
)

ASIC_BUSINESS_NAMES = layout(
    _code("register_name"),
    _key("bn_name"),
    _code("bn_status"),
    _date("bn_reg_dt"),
    _date("bn_cancel_dt"),
    _text("bn_state_num"),
    _code("bn_state_of_reg"),
    Column("bn_abn", "abn"),
    headers="upper",
)


# --- project formats (LANDING.md B) --------------------------------------------------------
# Declared as column -> kind, in the files' documented order, the header being the column
# name; the key columns are not null (a row with one empty is quarantined).


def project_layout(columns: Mapping[str, Kind], key: tuple[str, ...] = ()) -> Layout:
    """The layout of a project-format file declared as column -> kind."""
    if unknown := sorted(set(key) - set(columns)):
        raise ValueError(f"key columns not declared: {unknown}")
    return layout(
        *(Column(name, kind, key=name in key) for name, kind in columns.items()), headers="name"
    )


DIRECTORS_OFFICEHOLDERS = project_layout(
    {
        "acn": "acn",
        "person_name": "text",  # SURNAME, GIVEN NAMES
        "role": "code",  # DIRECTOR | SECRETARY
        "appointed_date": "date",
        "ceased_date": "date",  # null while current
        "birth_date": "date",
        "extracted_date": "date",
    },
    key=("acn", "person_name"),
)
ADVERSE_RECORDS = project_layout(
    {
        "regulator": "code",
        "record_id": "text",
        "abn": "abn",
        "entity_name": "text",
        "action_type": "text",  # codes for ACCC, FWO, NDIS_COMMISSION; free text for others
        "severity": "code",
        "status": "code",
        "action_date": "date",
        "resolved_date": "date",
        "summary": "text",
        "url": "text",
    },
    key=("regulator", "record_id"),
)
GAZETTE_NOTICES = project_layout(
    {
        "notice_id": "text",
        "published_date": "date",
        "notice_type": "code",
        "company_name": "text",
        "acn": "acn",
        "abn": "abn",
        "summary": "text",
        "url": "text",
    },
    key=("notice_id",),
)
LICENCES_LICENCES = project_layout(
    {
        "register": "code",
        "licence_number": "text",
        "licensee_name": "text",
        "abn": "abn",
        "acn": "acn",
        "licence_class": "text",
        "trade": "code",
        "status": "code",
        "granted_date": "date",
        "expiry_date": "date",
    },
    key=("register", "licence_number"),
)
PPSR_REGISTRATIONS = project_layout(
    {
        "registration_number": "text",
        "grantor_abn": "abn",
        "grantor_acn": "acn",
        "grantor_name": "text",
        "collateral_class": "code",
        "start_date": "date",
        "end_date": "date",  # current while null or in the future
    },
    key=("registration_number",),
)
INDUSTRY_ABN_INDUSTRY = project_layout(
    {
        "abn": "abn",
        "anzsic_code": "code",
        "anzsic_description": "text",
    },
    key=("abn",),
)
REGISTERS_RECORDS = project_layout(
    {
        "register": "code",
        "record_id": "text",
        "abn": "abn",
        "acn": "acn",
        "entity_name": "text",
        "person_name": "text",
        "status": "text",  # the register's own status word (Current, Terminated, ...)
        "status_date": "date",
        "detail": "text",
    },
    key=("register", "record_id"),
)


# --- other ASIC and ACNC registers, ASX list (LANDING.md A) ----------------------------------
# Column names are the publishers' headers, lower-cased. Only the columns LANDING.md names are
# read (the advisers and charities files have many more, declared ``unread`` so the sample
# generator writes the whole header). Free-text fields that the publishers fill with
# non-dates (BD_ORG_END_DT = "Permanent banning") or whose format is not documented (ACNC
# dates, latitudes) stay text here and are parsed in staging, so no row is lost to an
# unparsable optional value.

ASIC_BANNED_PERSONS = layout(
    _code("register_name"),
    _key("bd_per_name"),  # SURNAME, GIVEN NAMES
    _code("bd_per_type"),  # Disq. Director, Banned Securities, AFS Banned & Disqualified, ...
    _text("bd_per_doc_num"),
    _date("bd_per_start_dt"),
    _date("bd_per_end_dt"),  # empty = permanent
    _text("bd_per_add_local"),
    _code("bd_per_add_state"),
    _text("bd_per_add_pcode"),
    _code("bd_per_add_country"),
    _text("bd_per_comments"),
    headers="upper",
)

ASIC_BANNED_ORGANISATIONS = layout(
    _code("register_name"),
    _key("bd_org_name"),  # may hold a no-break space (kept; staging single-spaces)
    Column("bd_org_acn", "acn"),
    _code("bd_org_type"),
    _date("bd_org_start_dt"),
    _text("bd_org_end_dt"),  # DD/MM/YYYY or free text ("Permanent banning")
    _text("bd_org_comment"),
    headers="upper",
)

ASIC_AFS_LICENSEES = layout(
    _code("register_name"),
    _key("afs_lic_num"),
    _text("afs_lic_name"),
    # an ABN (11 digits) or an ACN (9), checked as either; split in staging
    Column("afs_lic_abn_acn", "abn_or_acn"),
    _date("afs_lic_start_dt"),
    _code("afs_lic_pre_fsr"),
    _text("afs_lic_add_local"),
    _code("afs_lic_add_state"),
    _text("afs_lic_add_pcode"),
    _code("afs_lic_add_country"),
    _text("afs_lic_lat"),
    _text("afs_lic_lng"),
    _text("afs_lic_condition"),
    headers="upper",
)

ASIC_CREDIT_LICENSEES = layout(
    _code("register_name"),
    _key("cred_lic_num"),
    _text("cred_lic_name"),
    _date("cred_lic_start_dt"),
    _date("cred_lic_end_dt"),
    _code("cred_lic_status"),
    Column("cred_lic_abn_acn", "abn_or_acn"),  # an ABN or an ACN; split in staging
    _text("cred_lic_afsl_num"),
    _text("cred_lic_status_history"),
    _text("cred_lic_locality"),
    _code("cred_lic_state"),
    _text("cred_lic_pcode"),
    _text("cred_lic_lat"),
    _text("cred_lic_lng"),
    _text("cred_lic_edrs"),
    _text("cred_lic_bn"),
    _text("cred_lic_authorisations"),
    headers="upper",
)

ASIC_LIQUIDATORS = layout(
    _code("register_name"),
    _key("liq_num"),
    _text("liq_name"),
    _text("off_liq_num"),
    _date("liq_start_dt"),
    _date("off_liq_start_dt"),
    _code("liq_status"),
    _date("liq_susp_dt"),
    _text("liq_add_local"),
    _code("liq_add_state"),
    _text("liq_add_pcode"),
    _code("liq_add_country"),
    _text("liq_firm"),
    headers="upper",
)

# The advisers file has 76 columns; the twelve LANDING.md names are loaded.
_ADVISER_AUTHORISATIONS = (
    "BASIC_DEPOSIT_PRODUCTS", "NON_BASIC_DEPOSIT_PRODUCTS", "DERIVATIVES", "FOREIGN_EXCHANGE",
    "GENERAL_INSURANCE", "LIFE_INSURANCE_RISK", "LIFE_INSURANCE_INVESTMENT",
    "MANAGED_INVESTMENT_SCHEMES", "IDPS", "RETIREMENT_SAVINGS_ACCOUNTS", "SECURITIES",
    "SUPERANNUATION", "SMSF", "MARGIN_LENDING", "CARBON_UNITS", "AUSTRALIAN_CARBON_CREDIT_UNITS",
    "ELIGIBLE_INTERNATIONAL_EMISSIONS_UNITS", "GOVERNMENT_DEBENTURES", "STOCKS_BONDS",
    "CUSTODIAL_DEPOSITORY", "TAX_FINANCIAL_ADVICE", "STANDARD_MARGIN_LENDING",
    "MISCELLANEOUS_FINANCIAL_INVESTMENT", "INVESTMENT_LIFE_INSURANCE", "FIRST_HOME_SAVER",
    "CASH_MANAGEMENT_TRUST", "ANNUITIES", "PERSONAL_ADVICE", "GENERAL_ADVICE",
    "CLASS_OF_PRODUCT_ADVICE", "RETAIL_CLIENTS", "WHOLESALE_CLIENTS",
)  # fmt: skip
ASIC_FINANCIAL_ADVISERS = layout(
    _code("register_name"),
    _text("adv_name"),
    _key("adv_number"),
    _code("adv_role"),
    *unread("ADV_SUB_TYPE"),
    _code("adv_role_status"),
    Column("adv_abn", "abn"),
    *unread("ADV_FIRST_PROVIDED_ADVICE"),
    _text("licence_name"),
    _text("licence_number"),
    Column("licence_abn", "abn"),
    *unread("LICENCE_CONTROLLED_BY", "REP_APPOINTED_BY", "REP_APPOINTED_NUM", "REP_APPOINTED_ABN"),
    _date("adv_start_dt"),
    _date("adv_end_dt"),
    *unread("ADV_DA_START_DT", "ADV_DA_END_DT", "ADV_DA_TYPE", "ADV_DA_DESCRIPTION"),
    _code("overall_registration_status"),
    *unread(
        "REGISTRATION_STATUS_UNDER_AFSL",
        "REGISTRATION_START_DATE_UNDER_AFSL",
        "REGISTRATION_END_DATE_UNDER_AFSL",
        "ADV_ADD_LOCAL",
        "ADV_ADD_STATE",
        "ADV_ADD_PCODE",
        "ADV_ADD_COUNTRY",
        "QUALIFICATIONS_AND_TRAINING",
        "MEMBERSHIPS",
        "FURTHER_RESTRICTIONS",
        "ADV_CPD_FAILURE_YEAR",
        "EXPERIENCE_YEARS",
        "QUALIFIED_TAX_RELEVANT_PROVIDER",
        "PREVIOUS_LICENSEES",
        "OTHER_NAMES",
        "LAST_UPDATED_DT",
        "SOURCE_OF_DATA",
        "ADV_BIO",
        *_ADVISER_AUTHORISATIONS,
        "PROVIDES_FINANCIAL_ADVICE",
        "AUTHORISED_REPRESENTATIVE",
        "ADV_EMAIL",
        "ADV_PHONE",
    ),  # fmt: skip
    headers="upper",
)

# The charity register has about 65 columns; LANDING.md names 15, of which the address and
# size ones are optional (they load as null if renamed).
ACNC_CHARITIES = layout(
    Column("abn", "abn", "ABN", key=True),
    _text("charity_legal_name", "Charity_Legal_Name"),
    _text("other_organisation_names", "Other_Organisation_Names"),
    _code("address_type", "Address_Type", optional=True),
    _text("address_line_1", "Address_Line_1", optional=True),
    _text("address_line_2", "Address_Line_2", optional=True),
    _text("address_line_3", "Address_Line_3", optional=True),
    _text("town_city", "Town_City", optional=True),
    _code("state", "State", optional=True),
    _text("postcode", "Postcode", optional=True),
    _code("country", "Country", optional=True),
    _text("charity_website", "Charity_Website", optional=True),
    _text("registration_date", "Registration_Date"),  # parsed in staging (DD/MM/YYYY or ISO)
    _text("date_organisation_established", "Date_Organisation_Established", optional=True),
    _code("charity_size", "Charity_Size", optional=True),
    *unread(
        "Number_of_Responsible_Persons",
        "Financial_Year_End",
        "Operates_in_ACT",
        "Operates_in_NSW",
        "Operates_in_NT",
        "Operates_in_QLD",
        "Operates_in_SA",
        "Operates_in_TAS",
        "Operates_in_VIC",
        "Operates_in_WA",
        "Operating_Countries",
        "PBI",
        "HPC",
        "Preventing_or_relieving_suffering_of_animals",
        "Advancing_Culture",
        "Advancing_Education",
        "Advancing_Health",
        "Promote_or_oppose_a_change_to_law__government_poll_or_prac",
        "Advancing_natual_environment",
        "Promoting_or_protecting_human_rights",
        "Purposes_beneficial_to_ther_general_public_and_other_analogous",
        "Promoting_reconciliation__mutual_respect_and_tolerance",
        "Advancing_Religion",
        "Advancing_social_or_public_welfare",
        "Advancing_security_or_safety_of_Australia_or_Australian_public",
        "Another_purpose_beneficial_to_the_community",
        "Aboriginal_or_TSI",
        "Adults",
        "Aged_Persons",
        "Children",
        "Communities_Overseas",
        "Early_Childhood",
        "Ethnic_Groups",
        "Families",
        "Females",
        "Financially_Disadvantaged",
        "Gay_Lesbian_Bisexual",
        "General_Community_in_Australia",
        "Males",
        "Migrants_Refugees_or_Asylum_Seekers",
        "Other_Beneficiaries",
        "Other_Charities",
        "People_at_risk_of_homelessness",
        "People_with_Chronic_Illness",
        "People_with_Disabilities",
        "Pre_Post_Release_Offenders",
        "Rural_Regional_Remote_Communities",
        "Unemployed_Person",
        "Veterans_or_their_families",
        "Victims_of_crime",
    ),  # fmt: skip
)

ASX_LISTED_COMPANIES = layout(
    _text("company_name", "Company name"),
    _key("asx_code", "ASX code"),
    _code("gics_industry_group", "GICS industry group"),
)


# --- market data (LANDING.md A short positions and prices, B positioning and activist) -------

ASIC_SHORT_POSITIONS = layout(
    Column("position_date", "date", key=True),  # from the file name
    Column("version", "int", key=True),  # 001, 002 (from the file name): the newest replaces
    _text("product", "Product", optional=True),
    _key("product_code", "Product Code"),  # the ASX ticker
    Column("reported_short_positions", "int", "Reported Short Positions"),
    Column("total_product_in_issue", "int", "Total Product in Issue"),
    # a percent: 1.92 means 1.92 %
    Column(
        "short_position_pct", "float", "% of Total Product in Issue Reported as Short Positions"
    ),
)

# Headerless: ``ticker,YYYYMMDD,open,high,low,close,volume`` (pipelines.ingest.market).
PRICES_DAILY = layout(
    _key("ticker"),
    Column("trade_date", "date", key=True),
    Column("open", "float"),
    Column("high", "float"),
    Column("low", "float"),
    Column("close", "float", key=True),
    Column("volume", "float"),
)

POSITIONING_SHORT_INTEREST = project_layout(
    {
        "date": "date",
        "symbol": "code",
        "short_interest_pct": "float",  # a percent of open interest
        "source": "text",
    },
    key=("date", "symbol"),
)
ACTIVIST_CAMPAIGNS = project_layout(
    {
        "campaign_id": "text",
        "activist": "text",
        "target_name": "text",
        "ticker": "code",
        "abn": "abn",
        "report_date": "date",
        "report_title": "text",
        "allegation_type": "code",
        "report_url": "text",
        "outcome": "code",  # SUBSTANTIATED | PARTLY_SUBSTANTIATED | REFUTED | PENDING
        "settled": "bool",
        "source": "text",
    },
    key=("campaign_id",),
)
ACTIVIST_AMPLIFICATION = project_layout(
    {
        "campaign_id": "text",
        "date": "date",
        "channel": "code",
        "mentions": "int",
    },
    key=("campaign_id", "date"),
)
