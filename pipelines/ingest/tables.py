"""Arrow schemas of the raw tables, one per table a parser emits.

Raw tables keep the publisher's values, typed (dates as DATE, flags as text) but not
interpreted: ``0000`` postcodes and the ``19000101`` GST dummy date are resolved in dbt
staging, where the rules are visible to analysts. Every raw row carries its landing file
and line so an analyst can go from a warehouse row back to the byte it came from.
"""

from __future__ import annotations

import pyarrow as pa

# Columns with few distinct values are dictionary-encoded in the raw Parquet files; trying a
# dictionary on every column (ABNs, names) costs a third of the write for nothing.
_CODES = {b"bvs.encoding": b"dictionary"}


def code(name: str) -> pa.Field:
    """A short code column (status, type, state): dictionary-encoded when written."""
    return pa.field(name, pa.string(), metadata=_CODES)


def dictionary_columns(schema: pa.Schema) -> list[str]:
    return [f.name for f in schema if f.metadata == _CODES or f.type != pa.string()]


_lineage = [code("source_file"), pa.field("source_line", pa.int64())]

ABR_ABNS = pa.schema(
    [
        pa.field("abn", pa.string(), nullable=False),
        code("abn_status"),
        pa.field("abn_status_from_date", pa.date32()),
        pa.field("record_last_updated_date", pa.date32()),
        code("replaced"),
        code("entity_type_code"),
        code("entity_type_text"),
        pa.field("is_individual", pa.bool_()),
        # Non-individuals: the main name. Individuals: given names and family name joined.
        pa.field("entity_name", pa.string()),
        pa.field("name_title", pa.string()),
        pa.field("given_name", pa.string()),
        pa.field("other_given_name", pa.string()),
        pa.field("family_name", pa.string()),
        code("state"),
        pa.field("postcode", pa.string()),
        pa.field("asic_number", pa.string()),
        code("asic_number_type"),
        code("gst_status"),
        pa.field("gst_status_from_date", pa.date32()),
        *_lineage,
    ]
)

ABR_OTHER_NAMES = pa.schema(
    [
        pa.field("abn", pa.string(), nullable=False),
        # TRD trading name, BN business name, OTN other name, DGR deductible gift recipient
        code("name_type").with_nullable(False),
        pa.field("name", pa.string(), nullable=False),
        code("dgr_status"),
        pa.field("dgr_status_from_date", pa.date32()),
        *_lineage,
    ]
)

ASIC_COMPANIES = pa.schema(
    [
        pa.field("company_name", pa.string()),
        pa.field("acn", pa.string(), nullable=False),
        code("type"),
        code("class"),
        code("sub_class"),
        code("status"),
        pa.field("date_of_registration", pa.date32()),
        pa.field("date_of_deregistration", pa.date32()),
        code("previous_state_of_registration"),
        pa.field("state_registration_number", pa.string()),
        code("modified_since_last_report"),
        code("current_name_indicator"),
        pa.field("abn", pa.string()),
        pa.field("current_name", pa.string()),
        pa.field("current_name_start_date", pa.date32()),
        *_lineage,
    ]
)

ASIC_BUSINESS_NAMES = pa.schema(
    [
        code("register_name"),
        pa.field("bn_name", pa.string(), nullable=False),
        code("bn_status"),
        pa.field("bn_reg_dt", pa.date32()),
        pa.field("bn_cancel_dt", pa.date32()),
        pa.field("bn_state_num", pa.string()),
        code("bn_state_of_reg"),
        pa.field("bn_abn", pa.string()),
        *_lineage,
    ]
)


# --- project formats (LANDING.md B) --------------------------------------------------------
# Declared as column -> kind, in the files' documented order; the parser
# (pipelines.ingest.project_csv) reads the same declaration. Kinds: text, code (a short code,
# dictionary-encoded), date (ISO), abn, acn (text, check digits verified), int, float, bool.

_KIND_TYPES = {
    "text": pa.string(),
    "code": pa.string(),
    "date": pa.date32(),
    "abn": pa.string(),
    "acn": pa.string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
}


def project_schema(columns: dict[str, str], not_null: tuple[str, ...] = ()) -> pa.Schema:
    """The raw-table schema of a project-format file declared as column -> kind."""
    fields = []
    for name, kind in columns.items():
        if kind not in _KIND_TYPES:
            raise ValueError(f"column {name}: unknown kind {kind!r}")
        f = code(name) if kind == "code" else pa.field(name, _KIND_TYPES[kind])
        fields.append(f.with_nullable(name not in not_null))
    return pa.schema([*fields, *_lineage])


DIRECTORS_OFFICEHOLDERS_COLUMNS = {
    "acn": "acn",
    "person_name": "text",  # SURNAME, GIVEN NAMES
    "role": "code",  # DIRECTOR | SECRETARY
    "appointed_date": "date",
    "ceased_date": "date",  # null while current
    "birth_date": "date",
    "extracted_date": "date",
}
ADVERSE_RECORDS_COLUMNS = {
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
}
GAZETTE_NOTICES_COLUMNS = {
    "notice_id": "text",
    "published_date": "date",
    "notice_type": "code",
    "company_name": "text",
    "acn": "acn",
    "abn": "abn",
    "summary": "text",
    "url": "text",
}
LICENCES_LICENCES_COLUMNS = {
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
}
PPSR_REGISTRATIONS_COLUMNS = {
    "registration_number": "text",
    "grantor_abn": "abn",
    "grantor_acn": "acn",
    "grantor_name": "text",
    "collateral_class": "code",
    "start_date": "date",
    "end_date": "date",  # current while null or in the future
}
INDUSTRY_ABN_INDUSTRY_COLUMNS = {
    "abn": "abn",
    "anzsic_code": "code",
    "anzsic_description": "text",
}
REGISTERS_RECORDS_COLUMNS = {
    "register": "code",
    "record_id": "text",
    "abn": "abn",
    "acn": "acn",
    "entity_name": "text",
    "person_name": "text",
    "status": "text",  # the register's own status word (Current, Terminated, ...)
    "status_date": "date",
    "detail": "text",
}

# Not-null columns are the key columns: a row with one empty is quarantined.
DIRECTORS_OFFICEHOLDERS = project_schema(DIRECTORS_OFFICEHOLDERS_COLUMNS, ("acn", "person_name"))
ADVERSE_RECORDS = project_schema(ADVERSE_RECORDS_COLUMNS, ("regulator", "record_id"))
GAZETTE_NOTICES = project_schema(GAZETTE_NOTICES_COLUMNS, ("notice_id",))
LICENCES_LICENCES = project_schema(LICENCES_LICENCES_COLUMNS, ("register", "licence_number"))
PPSR_REGISTRATIONS = project_schema(PPSR_REGISTRATIONS_COLUMNS, ("registration_number",))
INDUSTRY_ABN_INDUSTRY = project_schema(INDUSTRY_ABN_INDUSTRY_COLUMNS, ("abn",))
REGISTERS_RECORDS = project_schema(REGISTERS_RECORDS_COLUMNS, ("register", "record_id"))


# --- other ASIC and ACNC registers, ASX list (LANDING.md A) ----------------------------------
# Column names are the publishers' headers, lower-cased. Only the columns LANDING.md names are
# read (the advisers and charities files have many more). Free-text fields that the
# publishers fill with non-dates (BD_ORG_END_DT = "Permanent banning") or whose format is
# not documented (ACNC dates, latitudes) stay text here and are parsed in staging, so no row
# is lost to an unparsable optional value.


def _text(name: str) -> pa.Field:
    return pa.field(name, pa.string())


def _date(name: str) -> pa.Field:
    return pa.field(name, pa.date32())


def _key(name: str) -> pa.Field:
    return pa.field(name, pa.string(), nullable=False)


ASIC_BANNED_PERSONS = pa.schema(
    [
        code("register_name"),
        _key("bd_per_name"),  # SURNAME, GIVEN NAMES
        code("bd_per_type"),  # Disq. Director, Banned Securities, AFS Banned & Disqualified, ...
        _text("bd_per_doc_num"),
        _date("bd_per_start_dt"),
        _date("bd_per_end_dt"),  # empty = permanent
        _text("bd_per_add_local"),
        code("bd_per_add_state"),
        _text("bd_per_add_pcode"),
        code("bd_per_add_country"),
        _text("bd_per_comments"),
        *_lineage,
    ]
)

ASIC_BANNED_ORGANISATIONS = pa.schema(
    [
        code("register_name"),
        _key("bd_org_name"),  # may hold a no-break space (kept; staging single-spaces)
        _text("bd_org_acn"),
        code("bd_org_type"),
        _date("bd_org_start_dt"),
        _text("bd_org_end_dt"),  # DD/MM/YYYY or free text ("Permanent banning")
        _text("bd_org_comment"),
        *_lineage,
    ]
)

ASIC_AFS_LICENSEES = pa.schema(
    [
        code("register_name"),
        _key("afs_lic_num"),
        _text("afs_lic_name"),
        _text("afs_lic_abn_acn"),  # an ABN (11 digits) or an ACN (9); split in staging
        _date("afs_lic_start_dt"),
        code("afs_lic_pre_fsr"),
        _text("afs_lic_add_local"),
        code("afs_lic_add_state"),
        _text("afs_lic_add_pcode"),
        code("afs_lic_add_country"),
        _text("afs_lic_lat"),
        _text("afs_lic_lng"),
        _text("afs_lic_condition"),
        *_lineage,
    ]
)

ASIC_CREDIT_LICENSEES = pa.schema(
    [
        code("register_name"),
        _key("cred_lic_num"),
        _text("cred_lic_name"),
        _date("cred_lic_start_dt"),
        _date("cred_lic_end_dt"),
        code("cred_lic_status"),
        _text("cred_lic_abn_acn"),  # an ABN (11 digits) or an ACN (9); split in staging
        _text("cred_lic_afsl_num"),
        _text("cred_lic_status_history"),
        _text("cred_lic_locality"),
        code("cred_lic_state"),
        _text("cred_lic_pcode"),
        _text("cred_lic_lat"),
        _text("cred_lic_lng"),
        _text("cred_lic_edrs"),
        _text("cred_lic_bn"),
        _text("cred_lic_authorisations"),
        *_lineage,
    ]
)

ASIC_LIQUIDATORS = pa.schema(
    [
        code("register_name"),
        _key("liq_num"),
        _text("liq_name"),
        _text("off_liq_num"),
        _date("liq_start_dt"),
        _date("off_liq_start_dt"),
        code("liq_status"),
        _date("liq_susp_dt"),
        _text("liq_add_local"),
        code("liq_add_state"),
        _text("liq_add_pcode"),
        code("liq_add_country"),
        _text("liq_firm"),
        *_lineage,
    ]
)

ASIC_FINANCIAL_ADVISERS = pa.schema(
    [
        code("register_name"),
        _text("adv_name"),
        _key("adv_number"),
        code("adv_role"),
        code("adv_role_status"),
        _text("adv_abn"),
        _text("licence_name"),
        _text("licence_number"),
        _text("licence_abn"),
        _date("adv_start_dt"),
        _date("adv_end_dt"),
        code("overall_registration_status"),
        *_lineage,
    ]
)

ACNC_CHARITIES = pa.schema(
    [
        _key("abn"),
        _text("charity_legal_name"),
        _text("other_organisation_names"),
        code("address_type"),
        _text("address_line_1"),
        _text("address_line_2"),
        _text("address_line_3"),
        _text("town_city"),
        code("state"),
        _text("postcode"),
        code("country"),
        _text("charity_website"),
        _text("registration_date"),  # parsed in staging (DD/MM/YYYY, or ISO)
        _text("date_organisation_established"),
        code("charity_size"),
        *_lineage,
    ]
)

ASX_LISTED_COMPANIES = pa.schema(
    [
        _text("company_name"),
        _key("asx_code"),
        code("gics_industry_group"),
        *_lineage,
    ]
)


# --- market data (LANDING.md A short positions and prices, B positioning and activist) -------

ASIC_SHORT_POSITIONS = pa.schema(
    [
        pa.field("position_date", pa.date32(), nullable=False),  # from the file name
        pa.field("version", pa.int64(), nullable=False),  # 001, 002: the newest replaces
        _text("product"),
        pa.field("product_code", pa.string(), nullable=False),  # the ASX ticker
        pa.field("reported_short_positions", pa.int64()),
        pa.field("total_product_in_issue", pa.int64()),
        pa.field("short_position_pct", pa.float64()),  # a percent: 1.92 means 1.92 %
        *_lineage,
    ]
)

PRICES_DAILY = pa.schema(
    [
        pa.field("ticker", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("open", pa.float64()),
        pa.field("high", pa.float64()),
        pa.field("low", pa.float64()),
        pa.field("close", pa.float64(), nullable=False),
        pa.field("volume", pa.float64()),
        *_lineage,
    ]
)

POSITIONING_SHORT_INTEREST_COLUMNS = {
    "date": "date",
    "symbol": "code",
    "short_interest_pct": "float",  # a percent of open interest
    "source": "text",
}
ACTIVIST_CAMPAIGNS_COLUMNS = {
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
}
ACTIVIST_AMPLIFICATION_COLUMNS = {
    "campaign_id": "text",
    "date": "date",
    "channel": "code",
    "mentions": "int",
}
POSITIONING_SHORT_INTEREST = project_schema(POSITIONING_SHORT_INTEREST_COLUMNS, ("date", "symbol"))
ACTIVIST_CAMPAIGNS = project_schema(ACTIVIST_CAMPAIGNS_COLUMNS, ("campaign_id",))
ACTIVIST_AMPLIFICATION = project_schema(ACTIVIST_AMPLIFICATION_COLUMNS, ("campaign_id", "date"))
