"""The landing files of the registers beyond the three core ones, as LANDING.md lays them out.

Each output file is a :class:`Target`: its landing folder, file name, header, delimiter,
quoting, line end and preamble. Rows are formatted here too, so the background generator
(:mod:`bvs_sample.registers`) and the planted cases (:mod:`bvs_sample.cases`)
write identical layouts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pipelines.ingest import tables as T

CRLF = "\r\n"
NBSP = "\u00a0"

# -- column lists: each file's header, from the source's declaration (pipelines.ingest.tables) --

OFFICEHOLDERS = T.DIRECTORS_OFFICEHOLDERS.header
ADVERSE = T.ADVERSE_RECORDS.header
GAZETTE = T.GAZETTE_NOTICES.header
LICENCES = T.LICENCES_LICENCES.header
PPSR = T.PPSR_REGISTRATIONS.header
INDUSTRY = T.INDUSTRY_ABN_INDUSTRY.header
REGISTERS = T.REGISTERS_RECORDS.header

BANNED_PERSONS = T.ASIC_BANNED_PERSONS.header
BANNED_ORGANISATIONS = T.ASIC_BANNED_ORGANISATIONS.header
AFS_LICENSEES = T.ASIC_AFS_LICENSEES.header
CREDIT_LICENSEES = T.ASIC_CREDIT_LICENSEES.header
LIQUIDATORS = T.ASIC_LIQUIDATORS.header
ADVISERS = T.ASIC_FINANCIAL_ADVISERS.header  # 76 columns; the parser reads twelve
CHARITIES = T.ACNC_CHARITIES.header  # 65 columns; the parser reads fifteen
ASX = T.ASX_LISTED_COMPANIES.header

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
