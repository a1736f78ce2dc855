"""The landing files of the registers beyond the three core ones, as LANDING.md lays them out.

Each output file is a :class:`Target`: its landing folder, file name, header, delimiter,
quoting, line end and preamble. Rows are formatted here too, so the background generator
(:mod:`bvs_sample.registers`) and the planted cases (:mod:`bvs_sample.cases`)
write identical layouts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

CRLF = "\r\n"
NBSP = "\u00a0"

# -- column lists ---------------------------------------------------------------------------

OFFICEHOLDERS = (
    "acn", "person_name", "role", "appointed_date", "ceased_date", "birth_date", "extracted_date",
)  # fmt: skip
ADVERSE = (
    "regulator", "record_id", "abn", "entity_name", "action_type", "severity", "status",
    "action_date", "resolved_date", "summary", "url",
)  # fmt: skip
GAZETTE = (
    "notice_id", "published_date", "notice_type", "company_name", "acn", "abn", "summary", "url",
)  # fmt: skip
LICENCES = (
    "register", "licence_number", "licensee_name", "abn", "acn", "licence_class", "trade",
    "status", "granted_date", "expiry_date",
)  # fmt: skip
PPSR = (
    "registration_number", "grantor_abn", "grantor_acn", "grantor_name", "collateral_class",
    "start_date", "end_date",
)  # fmt: skip
INDUSTRY = ("abn", "anzsic_code", "anzsic_description")
REGISTERS = (
    "register", "record_id", "abn", "acn", "entity_name", "person_name", "status",
    "status_date", "detail",
)  # fmt: skip

BANNED_PERSONS = (
    "REGISTER_NAME", "BD_PER_NAME", "BD_PER_TYPE", "BD_PER_DOC_NUM", "BD_PER_START_DT",
    "BD_PER_END_DT", "BD_PER_ADD_LOCAL", "BD_PER_ADD_STATE", "BD_PER_ADD_PCODE",
    "BD_PER_ADD_COUNTRY", "BD_PER_COMMENTS",
)  # fmt: skip
BANNED_ORGANISATIONS = (
    "REGISTER_NAME", "BD_ORG_NAME", "BD_ORG_ACN", "BD_ORG_TYPE", "BD_ORG_START_DT",
    "BD_ORG_END_DT", "BD_ORG_COMMENT",
)  # fmt: skip
AFS_LICENSEES = (
    "REGISTER_NAME", "AFS_LIC_NUM", "AFS_LIC_NAME", "AFS_LIC_ABN_ACN", "AFS_LIC_START_DT",
    "AFS_LIC_PRE_FSR", "AFS_LIC_ADD_LOCAL", "AFS_LIC_ADD_STATE", "AFS_LIC_ADD_PCODE",
    "AFS_LIC_ADD_COUNTRY", "AFS_LIC_LAT", "AFS_LIC_LNG", "AFS_LIC_CONDITION",
)  # fmt: skip
CREDIT_LICENSEES = (
    "REGISTER_NAME", "CRED_LIC_NUM", "CRED_LIC_NAME", "CRED_LIC_START_DT", "CRED_LIC_END_DT",
    "CRED_LIC_STATUS", "CRED_LIC_ABN_ACN", "CRED_LIC_AFSL_NUM", "CRED_LIC_STATUS_HISTORY",
    "CRED_LIC_LOCALITY", "CRED_LIC_STATE", "CRED_LIC_PCODE", "CRED_LIC_LAT", "CRED_LIC_LNG",
    "CRED_LIC_EDRS", "CRED_LIC_BN", "CRED_LIC_AUTHORISATIONS",
)  # fmt: skip
LIQUIDATORS = (
    "REGISTER_NAME", "LIQ_NUM", "LIQ_NAME", "OFF_LIQ_NUM", "LIQ_START_DT", "OFF_LIQ_START_DT",
    "LIQ_STATUS", "LIQ_SUSP_DT", "LIQ_ADD_LOCAL", "LIQ_ADD_STATE", "LIQ_ADD_PCODE",
    "LIQ_ADD_COUNTRY", "LIQ_FIRM",
)  # fmt: skip
# The advisers file has 76 columns; the parser reads the twelve LANDING.md names.
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
ADVISERS = (
    "REGISTER_NAME", "ADV_NAME", "ADV_NUMBER", "ADV_ROLE", "ADV_SUB_TYPE", "ADV_ROLE_STATUS",
    "ADV_ABN", "ADV_FIRST_PROVIDED_ADVICE", "LICENCE_NAME", "LICENCE_NUMBER", "LICENCE_ABN",
    "LICENCE_CONTROLLED_BY", "REP_APPOINTED_BY", "REP_APPOINTED_NUM", "REP_APPOINTED_ABN",
    "ADV_START_DT", "ADV_END_DT", "ADV_DA_START_DT", "ADV_DA_END_DT", "ADV_DA_TYPE",
    "ADV_DA_DESCRIPTION", "OVERALL_REGISTRATION_STATUS", "REGISTRATION_STATUS_UNDER_AFSL",
    "REGISTRATION_START_DATE_UNDER_AFSL", "REGISTRATION_END_DATE_UNDER_AFSL", "ADV_ADD_LOCAL",
    "ADV_ADD_STATE", "ADV_ADD_PCODE", "ADV_ADD_COUNTRY", "QUALIFICATIONS_AND_TRAINING",
    "MEMBERSHIPS", "FURTHER_RESTRICTIONS", "ADV_CPD_FAILURE_YEAR", "EXPERIENCE_YEARS",
    "QUALIFIED_TAX_RELEVANT_PROVIDER", "PREVIOUS_LICENSEES", "OTHER_NAMES", "LAST_UPDATED_DT",
    "SOURCE_OF_DATA", "ADV_BIO", *_ADVISER_AUTHORISATIONS, "PROVIDES_FINANCIAL_ADVICE",
    "AUTHORISED_REPRESENTATIVE", "ADV_EMAIL", "ADV_PHONE",
)  # fmt: skip
assert len(ADVISERS) == 76, len(ADVISERS)
CHARITIES = (
    "ABN", "Charity_Legal_Name", "Other_Organisation_Names", "Address_Type", "Address_Line_1",
    "Address_Line_2", "Address_Line_3", "Town_City", "State", "Postcode", "Country",
    "Charity_Website", "Registration_Date", "Date_Organisation_Established", "Charity_Size",
    "Number_of_Responsible_Persons", "Financial_Year_End", "Operates_in_ACT", "Operates_in_NSW",
    "Operates_in_NT", "Operates_in_QLD", "Operates_in_SA", "Operates_in_TAS", "Operates_in_VIC",
    "Operates_in_WA", "Operating_Countries", "PBI", "HPC", "Preventing_or_relieving_suffering_of_animals",
    "Advancing_Culture", "Advancing_Education", "Advancing_Health", "Promote_or_oppose_a_change_to_law__government_poll_or_prac",
    "Advancing_natual_environment", "Promoting_or_protecting_human_rights", "Purposes_beneficial_to_ther_general_public_and_other_analogous",
    "Promoting_reconciliation__mutual_respect_and_tolerance", "Advancing_Religion",
    "Advancing_social_or_public_welfare", "Advancing_security_or_safety_of_Australia_or_Australian_public",
    "Another_purpose_beneficial_to_the_community", "Aboriginal_or_TSI", "Adults", "Aged_Persons",
    "Children", "Communities_Overseas", "Early_Childhood", "Ethnic_Groups", "Families",
    "Females", "Financially_Disadvantaged", "Gay_Lesbian_Bisexual", "General_Community_in_Australia",
    "Males", "Migrants_Refugees_or_Asylum_Seekers", "Other_Beneficiaries", "Other_Charities",
    "People_at_risk_of_homelessness", "People_with_Chronic_Illness", "People_with_Disabilities",
    "Pre_Post_Release_Offenders", "Rural_Regional_Remote_Communities", "Unemployed_Person",
    "Veterans_or_their_families", "Victims_of_crime",
)  # fmt: skip
ASX = ("Company name", "ASX code", "GICS industry group")

ADVERSE_REGULATORS = (
    "ACCC", "QBCC", "NSW_FAIR_TRADING", "VBA_BPC", "QLD_OFT", "FWO", "NDIS_COMMISSION",
)  # fmt: skip
LICENCE_REGISTERS = ("QBCC", "NSW_FAIR_TRADING", "VBA", "SA_CBS")
REGISTER_WORDS = (
    "TAX_PRACTITIONERS", "APRA_ENTITIES", "SUPER_FUNDS", "TAX_DEBT", "RD_INCENTIVE",
    "MODERN_SLAVERY", "WGEA", "GOV_CONTRACTS", "BCORP",
)  # fmt: skip


@dataclass(frozen=True)
class Target:
    """One landing file beyond the core three."""

    key: str  # short id used for part files and rows: "adverse/ACCC"
    source: str  # landing folder = source name in pipelines.ingest.sources
    name: str  # file name
    columns: tuple[str, ...]
    delimiter: str = ","
    quote_all: bool = False  # the ASIC quoted files quote every field
    bom: bool = False
    line_end: str = "\n"
    date_format: str = "iso"  # iso | dmy
    title: str | None = None  # the ASX list's title line (followed by a blank line)

    @property
    def rel(self) -> str:
        return f"{self.source}/{self.name}"

    def head(self) -> bytes:
        text = ""
        if self.title is not None:
            text = self.title + self.line_end + self.line_end
        text += self.line(list(self.columns))
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")

    def line(self, values: list[str]) -> str:
        if self.delimiter == "\t":
            return "\t".join(values) + self.line_end
        if self.quote_all:
            return ",".join('"' + v.replace('"', '""') + '"' for v in values) + self.line_end
        return ",".join(_quote(v) for v in values) + self.line_end

    def date(self, day: dt.date | None) -> str:
        if day is None:
            return ""
        return day.isoformat() if self.date_format == "iso" else day.strftime("%d/%m/%Y")


def _quote(value: str) -> str:
    if any(c in value for c in ',"\n\r') or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


def targets(extract_date: dt.date) -> dict[str, Target]:
    """Every file written beyond the core three, by key, in writing order."""
    stamp = extract_date.strftime("%Y%m%d")
    month = extract_date.strftime("%Y%m")
    out: list[Target] = [
        Target("directors", "directors", f"officeholders_{stamp}.csv", OFFICEHOLDERS),
        *(
            Target(f"adverse/{r}", "adverse", f"{r}_{stamp}.csv", ADVERSE)
            for r in ADVERSE_REGULATORS
        ),
        Target("gazette", "gazette", f"notices_{stamp}.csv", GAZETTE, bom=True),
        *(
            Target(f"licences/{r}", "licences", f"{r}_{stamp}.csv", LICENCES)
            for r in LICENCE_REGISTERS
        ),
        Target("industry", "industry", f"abn_industry_{stamp}.csv", INDUSTRY),
        Target("ppsr", "ppsr", f"registrations_{stamp}.csv", PPSR),
        *(
            Target(f"registers/{r}", "registers", f"{r}_{stamp}.csv", REGISTERS)
            for r in REGISTER_WORDS
        ),
        Target(
            "banned_persons",
            "asic_banned_persons",
            f"bd_per_{month}.csv",
            BANNED_PERSONS,
            quote_all=True,
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "banned_organisations",
            "asic_banned_organisations",
            f"bd_org_{month}.csv",
            BANNED_ORGANISATIONS,
            delimiter="\t",
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "advisers",
            "asic_financial_advisers",
            f"fa_{month}.csv",
            ADVISERS,
            delimiter="\t",
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "afs",
            "asic_afs_licensees",
            f"afs_lic_{month}.csv",
            AFS_LICENSEES,
            quote_all=True,
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "credit",
            "asic_credit_licensees",
            f"credit_lic_{month}.csv",
            CREDIT_LICENSEES,
            quote_all=True,
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "liquidators",
            "asic_liquidators",
            f"liquidators_{month}.csv",
            LIQUIDATORS,
            quote_all=True,
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "charities",
            "acnc_charities",
            "datadotgov_main.csv",
            CHARITIES,
            quote_all=True,
            bom=True,
            line_end=CRLF,
            date_format="dmy",
        ),  # fmt: skip
        Target(
            "asx",
            "asx_listed",
            "ASXListedCompanies.csv",
            ASX,
            quote_all=True,
            line_end=CRLF,
            title=f"ASX listed companies as at {asx_stamp(extract_date)}",
        ),  # fmt: skip
    ]
    return {t.key: t for t in out}


def asx_stamp(day: dt.date) -> str:
    """``Wed Nov 18 09:14:02 AEDT 2026`` for the extract date."""
    return day.strftime("%a %b %d") + f" 09:14:02 AEDT {day.year}"


# -- ANZSIC classes used by the industry file (code, description, trade or "") ----------------

ANZSIC: tuple[tuple[str, str, str], ...] = (
    ("3011", "House Construction", "building"),
    ("3019", "Other Residential Building Construction", "building"),
    ("3020", "Non-Residential Building Construction", "building"),
    ("3101", "Road and Bridge Construction", "building"),
    ("3211", "Land Development and Subdivision", "building"),
    ("3221", "Concreting Services", "building"),
    ("3222", "Bricklaying Services", "building"),
    ("3223", "Roofing Services", "building"),
    ("3224", "Structural Steel Erection Services", "building"),
    ("3231", "Plumbing Services", "plumbing"),
    ("3232", "Electrical Services", "electrical"),
    ("3233", "Air Conditioning and Heating Services", "building"),
    ("3234", "Fire and Security Alarm Installation Services", "building"),
    ("3241", "Plastering and Ceiling Services", "building"),
    ("3242", "Carpentry Services", "building"),
    ("3243", "Tiling and Carpeting Services", "building"),
    ("3244", "Painting and Decorating Services", "building"),
    ("3245", "Glazing Services", "building"),
    ("3291", "Landscape Construction Services", "building"),
    ("0141", "Sheep Farming (Specialised)", ""),
    ("0142", "Beef Cattle Farming (Specialised)", ""),
    ("1174", "Bakery Product Manufacturing (Non-factory based)", ""),
    ("3739", "Other Goods Wholesaling n.e.c.", ""),
    ("4110", "Supermarket and Grocery Stores", ""),
    ("4251", "Clothing Retailing", ""),
    ("4400", "Accommodation", ""),
    ("4511", "Cafes and Restaurants", ""),
    ("4512", "Takeaway Food Services", ""),
    ("4610", "Road Freight Transport", ""),
    ("4623", "Taxi and Other Road Transport", ""),
    ("5420", "Software Publishing", ""),
    ("6240", "Financial Asset Investing", ""),
    ("6419", "Other Auxiliary Finance and Investment Services", ""),
    ("6711", "Residential Property Operators", ""),
    ("6720", "Real Estate Services", ""),
    ("6931", "Legal Services", ""),
    ("6932", "Accounting Services", ""),
    ("6962", "Management Advice and Related Consulting Services", ""),
    ("7000", "Computer System Design and Related Services", ""),
    ("7311", "Cleaning Services", ""),
    ("8010", "Preschool Education", ""),
    ("8512", "Specialist Medical Services", ""),
    ("8531", "Dental Services", ""),
    ("8533", "Physiotherapy Services", ""),
    ("8601", "Aged Care Residential Services", ""),
    ("8790", "Other Social Assistance Services", ""),
    ("9111", "Health and Fitness Centres and Gymnasia Operation", ""),
    ("9419", "Other Automotive Repair and Maintenance", ""),
    ("9511", "Hairdressing and Beauty Services", ""),
)
TRADE_CODES = tuple(i for i, (_, _, trade) in enumerate(ANZSIC) if trade)
OTHER_CODES = tuple(i for i, (_, _, trade) in enumerate(ANZSIC) if not trade)
ANZSIC_BY_CODE = {code: (code, text, trade) for code, text, trade in ANZSIC}
