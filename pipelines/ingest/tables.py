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
