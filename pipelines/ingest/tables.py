"""Arrow schemas of the raw tables, one per table a parser emits.

Raw tables keep the publisher's values, typed (dates as DATE, flags as text) but not
interpreted: ``0000`` postcodes and the ``19000101`` GST dummy date are resolved in dbt
staging, where the rules are visible to analysts. Every raw row carries its landing file
and line so an analyst can go from a warehouse row back to the byte it came from.
"""

from __future__ import annotations

import pyarrow as pa

_lineage = [pa.field("source_file", pa.string()), pa.field("source_line", pa.int64())]

ABR_ABNS = pa.schema(
    [
        pa.field("abn", pa.string(), nullable=False),
        pa.field("abn_status", pa.string()),
        pa.field("abn_status_from_date", pa.date32()),
        pa.field("record_last_updated_date", pa.date32()),
        pa.field("replaced", pa.string()),
        pa.field("entity_type_code", pa.string()),
        pa.field("entity_type_text", pa.string()),
        pa.field("is_individual", pa.bool_()),
        # Non-individuals: the main name. Individuals: given names and family name joined.
        pa.field("entity_name", pa.string()),
        pa.field("name_title", pa.string()),
        pa.field("given_name", pa.string()),
        pa.field("other_given_name", pa.string()),
        pa.field("family_name", pa.string()),
        pa.field("state", pa.string()),
        pa.field("postcode", pa.string()),
        pa.field("asic_number", pa.string()),
        pa.field("asic_number_type", pa.string()),
        pa.field("gst_status", pa.string()),
        pa.field("gst_status_from_date", pa.date32()),
        *_lineage,
    ]
)

ABR_OTHER_NAMES = pa.schema(
    [
        pa.field("abn", pa.string(), nullable=False),
        # TRD trading name, BN business name, OTN other name, DGR deductible gift recipient
        pa.field("name_type", pa.string(), nullable=False),
        pa.field("name", pa.string(), nullable=False),
        pa.field("dgr_status", pa.string()),
        pa.field("dgr_status_from_date", pa.date32()),
        *_lineage,
    ]
)

ASIC_COMPANIES = pa.schema(
    [
        pa.field("company_name", pa.string()),
        pa.field("acn", pa.string(), nullable=False),
        pa.field("type", pa.string()),
        pa.field("class", pa.string()),
        pa.field("sub_class", pa.string()),
        pa.field("status", pa.string()),
        pa.field("date_of_registration", pa.date32()),
        pa.field("date_of_deregistration", pa.date32()),
        pa.field("previous_state_of_registration", pa.string()),
        pa.field("state_registration_number", pa.string()),
        pa.field("modified_since_last_report", pa.string()),
        pa.field("current_name_indicator", pa.string()),
        pa.field("abn", pa.string()),
        pa.field("current_name", pa.string()),
        pa.field("current_name_start_date", pa.date32()),
        *_lineage,
    ]
)

ASIC_BUSINESS_NAMES = pa.schema(
    [
        pa.field("register_name", pa.string()),
        pa.field("bn_name", pa.string(), nullable=False),
        pa.field("bn_status", pa.string()),
        pa.field("bn_reg_dt", pa.date32()),
        pa.field("bn_cancel_dt", pa.date32()),
        pa.field("bn_state_num", pa.string()),
        pa.field("bn_state_of_reg", pa.string()),
        pa.field("bn_abn", pa.string()),
        *_lineage,
    ]
)
