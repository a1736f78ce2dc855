"""Other ASIC registers, the ACNC charity register and the ASX list (LANDING.md A).

Each fixture is written in the publisher's format (UTF-8 BOM, CRLF, the real headers) and
exercises that register's quirk.
"""

from __future__ import annotations

import codecs
import datetime as dt
from pathlib import Path

import pyarrow as pa

from pipelines.ingest.base import Batch, LandingFile
from pipelines.ingest.files import discover
from pipelines.ingest.public_registers import asx_date
from pipelines.ingest.sources import SOURCES

ABN = "53004085616"
ABN_2 = "51824753556"
ACN = "004085616"
NBSP = "\u00a0"


def write(tmp_path: Path, name: str, lines: list[str]) -> LandingFile:
    path = tmp_path / name
    path.write_bytes(codecs.BOM_UTF8 + "".join(f"{line}\r\n" for line in lines).encode("utf-8"))
    return LandingFile(path)


def parse(source: str, file: LandingFile) -> Batch:
    declared = SOURCES[source]
    ((key, raw),) = declared.tables.items()
    batches = [batch for _, batch in declared.parse([file], None, None)]
    for batch in batches:
        assert batch.tables[key].schema == raw.schema
    parts = [b.tables[key] for b in batches]
    return Batch(
        tables={key: pa.concat_tables(parts) if parts else raw.schema.empty_table()},
        quarantine=[q for b in batches for q in b.quarantine],
    )


def rows(batch: Batch) -> list[dict[str, object]]:
    (table,) = batch.tables.values()
    return table.to_pylist()


def test_banned_persons_quoted_comma_names_and_empty_end_date(tmp_path: Path) -> None:
    header = (
        "REGISTER_NAME,BD_PER_NAME,BD_PER_TYPE,BD_PER_DOC_NUM,BD_PER_START_DT,BD_PER_END_DT,"
        "BD_PER_ADD_LOCAL,BD_PER_ADD_STATE,BD_PER_ADD_PCODE,BD_PER_ADD_COUNTRY,BD_PER_COMMENTS"
    )
    file = write(
        tmp_path,
        "bd_per.csv",
        [
            header,
            '"Banned and Disqualified","SMITH, JOHN PETER","Disq. Director","123456",'
            '"01/02/2020","01/02/2025","SYDNEY","NSW","2000","AUSTRALIA",""',
            '"Banned and Disqualified","CITIZEN, JANE","AFS Banned & Disqualified","",'
            '"15/06/2019","","PERTH","WA","6000","AUSTRALIA","Permanent"',
            '"Banned and Disqualified","BAD, DATE","Banned Securities","","31/02/2019","",'
            '"","","","",""',
        ],
    )
    batch = parse("asic_banned_persons", file)
    first, second = rows(batch)
    assert first["bd_per_name"] == "SMITH, JOHN PETER"
    assert first["bd_per_start_dt"] == dt.date(2020, 2, 1)
    assert second["bd_per_end_dt"] is None  # permanent
    assert (second["source_file"], second["source_line"]) == ("bd_per.csv", 3)
    assert [(q.line, "31/02/2019" in q.reason) for q in batch.quarantine] == [(4, True)]


def test_banned_organisations_tabs_free_text_end_date_and_nbsp_kept(tmp_path: Path) -> None:
    header = "\t".join(
        [
            "REGISTER_NAME",
            "BD_ORG_NAME",
            "BD_ORG_ACN",
            "BD_ORG_TYPE",
            "BD_ORG_START_DT",
            "BD_ORG_END_DT",
            "BD_ORG_COMMENT",
        ]
    )
    file = write(
        tmp_path,
        "bd_org.csv",
        [
            header,
            f"Banned and Disqualified\tACME{NBSP}PTY LTD\t{ACN}\tAFS Banned\t01/03/2021\t"
            "Permanent banning\t",
            "Banned and Disqualified\tOTHER CO\t\tCredit Banned\t01/03/2021\t01/03/2026\tNote",
        ],
    )
    batch = parse("asic_banned_organisations", file)
    assert batch.quarantine == []  # a free-text end date is not an error
    first, second = rows(batch)
    assert first["bd_org_name"] == f"ACME{NBSP}PTY LTD"  # raw keeps the no-break space
    assert first["bd_org_acn"] == ACN
    assert first["bd_org_end_dt"] == "Permanent banning"
    assert second["bd_org_end_dt"] == "01/03/2026"  # parsed in staging
    assert second["bd_org_acn"] is None


AFS_HEADER = (
    "REGISTER_NAME,AFS_LIC_NUM,AFS_LIC_NAME,AFS_LIC_ABN_ACN,AFS_LIC_START_DT,AFS_LIC_PRE_FSR,"
    "AFS_LIC_ADD_LOCAL,AFS_LIC_ADD_STATE,AFS_LIC_ADD_PCODE,AFS_LIC_ADD_COUNTRY,AFS_LIC_LAT,"
    "AFS_LIC_LNG,AFS_LIC_CONDITION"
)


def test_afs_licensees_fields_span_lines_and_abn_or_acn(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "afs_lic.csv",
        [
            AFS_HEADER,
            f'"AFS Licensee","000001","ACME PTY LTD","{ABN}","01/03/2004","Y","SYDNEY","NSW",'
            '"2000","AUSTRALIA","-33.86","151.20","Condition 1: provide advice',
            'Condition 2: deal in ""products"""',
            f'"AFS Licensee","000002","BETA PTY LTD","{ACN}","10/10/2010","N","","","","","","",""',
            '"AFS Licensee","000003","GAMMA PTY LTD","12345678901","10/10/2010","N","","","","",'
            '"","",""',
        ],
    )
    batch = parse("asic_afs_licensees", file)
    first, second, third = rows(batch)
    assert first["afs_lic_condition"] == (
        'Condition 1: provide advice\nCondition 2: deal in "products"'
    )
    assert first["afs_lic_abn_acn"] == ABN and second["afs_lic_abn_acn"] == ACN
    assert second["source_line"] == 4  # the first record spanned lines 2 and 3
    # neither a valid ABN nor ACN: kept as listed (docs/decisions/19-a-records-own-identifier.md), not quarantined
    assert third["afs_lic_abn_acn"] == "12345678901" and batch.quarantine == []


def test_credit_licensees_read_by_header_name(tmp_path: Path) -> None:
    columns = [
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
    ]
    values = [
        "Credit Licensee",
        "380000",
        "LENDER PTY LTD",
        "01/07/2010",
        "",
        "Current",
        ABN_2,
        "",
        "",
        "MELBOURNE",
        "VIC",
        "3000",
        "",
        "",
        "AFCA",
        "",
        "Credit provider",
    ]
    file = write(
        tmp_path,
        "cred_lic.csv",
        [",".join(columns), ",".join(f'"{v}"' for v in values)],
    )
    batch = parse("asic_credit_licensees", file)
    (row,) = rows(batch)
    assert row["cred_lic_num"] == "380000"
    assert row["cred_lic_abn_acn"] == ABN_2
    assert row["cred_lic_start_dt"] == dt.date(2010, 7, 1)
    assert row["cred_lic_end_dt"] is None


def test_liquidators_delimiter_read_from_header(tmp_path: Path) -> None:
    columns = [
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
    ]
    row_values = [
        "Registered Liquidator",
        "123",
        "SMITH, JOHN",
        "",
        "01/01/2001",
        "",
        "Registered",
        "",
        "SYDNEY",
        "NSW",
        "2000",
        "AUSTRALIA",
        "SMITH & CO",
    ]
    for delimiter in (",", "\t"):
        file = write(
            tmp_path,
            "liq.csv",
            [delimiter.join(columns), delimiter.join(f'"{v}"' for v in row_values)],
        )
        (row,) = rows(parse("asic_liquidators", file))
        assert row["liq_num"] == "123" and row["liq_name"] == "SMITH, JOHN"
        assert row["liq_firm"] == "SMITH & CO"


ADV_COLUMNS = [
    "REGISTER_NAME",
    "ADV_NAME",
    "ADV_NUMBER",
    "ADV_ROLE",
    "ADV_SUB_TYPE",
    "ADV_ROLE_STATUS",
    "ADV_ABN",
    "ADV_FIRST_PROVIDED_ADVICE",
    "LICENCE_NAME",
    "LICENCE_NUMBER",
    "LICENCE_ABN",
    "LICENCE_CONTROLLED_BY",
    "REP_APPOINTED_BY",
    "ADV_START_DT",
    "ADV_END_DT",
    "ADV_ADD_LOCAL",
    "OVERALL_REGISTRATION_STATUS",
    "QUALIFICATIONS_AND_TRAINING",
]


def adviser(number: str, role: str, training: str = "Diploma") -> str:
    values = dict.fromkeys(ADV_COLUMNS, "")
    values |= {
        "REGISTER_NAME": "FIN ADV",
        "ADV_NAME": "Jane Citizen",
        "ADV_NUMBER": number,
        "ADV_ROLE": role,
        "ADV_ROLE_STATUS": "Current",
        "ADV_ABN": ABN_2,
        "LICENCE_NAME": "ACME PTY LTD",
        "LICENCE_NUMBER": "000001",
        "LICENCE_ABN": ABN,
        "ADV_START_DT": "01/01/2019",
        "OVERALL_REGISTRATION_STATUS": "Registered",
        "QUALIFICATIONS_AND_TRAINING": training,
    }
    return "\t".join(values[c] for c in ADV_COLUMNS)


def test_financial_advisers_extra_columns_ignored_tab_in_text_quarantined(
    tmp_path: Path,
) -> None:
    file = write(
        tmp_path,
        "fa.csv",
        [
            "\t".join(ADV_COLUMNS),
            adviser("1000001", "Financial Adviser"),
            adviser("1000001", "Authorised Representative"),  # same adviser, another role
            adviser("1000002", "Financial Adviser", training="Diploma\tof Financial Planning"),
            adviser("1000003", "Financial Adviser"),
        ],
    )
    batch = parse("asic_financial_advisers", file)
    assert [(r["adv_number"], r["source_line"]) for r in rows(batch)] == [
        ("1000001", 2),
        ("1000001", 3),
        ("1000003", 5),
    ]
    (bad,) = batch.quarantine
    assert bad.line == 4 and "expected 18 fields, found 19" in bad.reason
    first = rows(batch)[0]
    assert (first["adv_abn"], first["licence_abn"]) == (ABN_2, ABN)
    assert "qualifications_and_training" not in batch.tables["financial_advisers"].column_names


def test_acnc_charities_read_by_name_among_many_columns(tmp_path: Path) -> None:
    columns = [
        "ABN",
        "Charity_Legal_Name",
        "Other_Organisation_Names",
        "Address_Type",
        "Address_Line_1",
        "Address_Line_2",
        "Address_Line_3",
        "Town_City",
        "State",
        "Postcode",
        "Country",
        "Charity_Website",
        "Registration_Date",
        "Date_Organisation_Established",
        "Charity_Size",
        "Number_of_Responsible_Persons",
        "Operates_in_ACT",
    ]
    values = [
        ABN,
        "HELPING HANDS LTD",
        "Helping Hands, HH Foundation",
        "Business Address",
        "1 Main St",
        "",
        "",
        "BRISBANE",
        "QLD",
        "4000",
        "AUSTRALIA",
        "",
        "03/12/2012",
        "",
        "Large",
        "5",
        "Y",
    ]
    file = write(
        tmp_path,
        "datadotgov_main.csv",
        [",".join(columns), ",".join(f'"{v}"' for v in values)],
    )
    (row,) = rows(parse("acnc_charities", file))
    assert row["abn"] == ABN
    assert row["other_organisation_names"] == "Helping Hands, HH Foundation"
    assert row["registration_date"] == "03/12/2012"  # parsed in staging
    assert row["town_city"] == "BRISBANE" and row["charity_size"] == "Large"


ASX_LINES = [
    "ASX listed companies as at Wed Apr 01 11:24:19 AEDT 2026",
    "",
    "Company name,ASX code,GICS industry group",
    '"1414 DEGREES LIMITED","14D","Capital Goods"',
    '"A, B & C LIMITED","ABC","Materials"',
    '"NO CODE LIMITED","","Materials"',
]


def test_asx_list_skips_title_and_blank_line_and_dates_the_file(tmp_path: Path) -> None:
    file = write(tmp_path, "ASXListedCompanies.csv", ASX_LINES)
    batch = parse("asx_listed", file)
    assert [(r["asx_code"], r["company_name"], r["source_line"]) for r in rows(batch)] == [
        ("14D", "1414 DEGREES LIMITED", 4),
        ("ABC", "A, B & C LIMITED", 5),
    ]
    assert [q.line for q in batch.quarantine] == [6]  # empty key
    assert SOURCES["asx_listed"].file_info(file).extract_date == dt.date(2026, 4, 1)
    assert asx_date("something else") is None


def test_only_the_newest_register_file_is_read(tmp_path: Path) -> None:
    source = SOURCES["asic_banned_persons"]
    for name in ("bd_per.csv", "bd_per_20240101.csv", "bd_per_20250101.csv"):
        (tmp_path / name).write_text("x")
    (chosen,) = discover(tmp_path, source.patterns, source.snapshot_key)
    assert chosen.name == "bd_per_20250101.csv"
