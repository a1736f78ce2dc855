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
