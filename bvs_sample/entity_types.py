"""ABR entity types the sample draws from: code, the register's wording, share, name style.

Shares are relative weights (about percent of ABNs), close to the real extract: half the
ABNs are individuals, a sixth private companies, then trusts, partnerships and super funds.
The two ``X``/``Z`` codes are not ABR codes: they stand for the new codes the ABR adds from
time to time, which a parser must keep (they are not malformed rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NameStyle = Literal[
    "individual",
    "private_company",
    "public_company",
    "trust",
    "super_fund",
    "partnership",
    "cooperative",
    "incorporated",
    "unincorporated",
    "strata",
    "estate",
    "government_state",
    "government_local",
    "government_commonwealth",
    "other",
]


@dataclass(frozen=True)
class EntityType:
    code: str
    text: str
    weight: float
    style: NameStyle


ENTITY_TYPES: tuple[EntityType, ...] = (
    EntityType("IND", "Individual/Sole Trader", 50.0, "individual"),
    EntityType("PRV", "Australian Private Company", 16.5, "private_company"),
    EntityType("PUB", "Australian Public Company", 0.30, "public_company"),
    EntityType("DTT", "Discretionary Trading Trust", 6.2, "trust"),
    EntityType("DIT", "Discretionary Investment Trust", 1.6, "trust"),
    EntityType("DST", "Discretionary Services Management Trust", 0.3, "trust"),
    EntityType("FXT", "Fixed Trust", 0.4, "trust"),
    EntityType("FUT", "Fixed Unit Trust", 1.2, "trust"),
    EntityType("HYT", "Hybrid Trust", 0.15, "trust"),
    EntityType("TRT", "Other trust", 0.9, "trust"),
    EntityType("PQT", "Unlisted Public Unit Trust", 0.05, "trust"),
    EntityType("PUT", "Listed Public Unit Trust", 0.02, "trust"),
    EntityType("PTT", "Public Trading trust", 0.01, "trust"),
    EntityType("CUT", "Corporate Unit Trust", 0.02, "trust"),
    EntityType("CMT", "Cash Management Trust", 0.005, "trust"),
    EntityType("PTR", "Other Partnership", 6.5, "partnership"),
    EntityType("FPT", "Family Partnership", 4.3, "partnership"),
    EntityType("LPT", "Limited Partnership", 0.03, "partnership"),
    EntityType("SMF", "ATO Regulated Self-Managed Superannuation Fund", 5.0, "super_fund"),
    EntityType("SUP", "Super fund", 0.05, "super_fund"),
    EntityType("NRF", "Non-Regulated Superannuation Fund", 0.08, "super_fund"),
    EntityType("POF", "APRA Regulated Public Offer Fund", 0.01, "super_fund"),
    EntityType("NPF", "APRA Regulated Non-Public Offer Fund", 0.02, "super_fund"),
    EntityType("SAF", "Small APRA Fund", 0.03, "super_fund"),
    EntityType("PST", "Pooled Superannuation Trust", 0.005, "super_fund"),
    EntityType("ADF", "Approved Deposit Fund", 0.005, "super_fund"),
    EntityType("COP", "Co-operative", 0.10, "cooperative"),
    EntityType("OIE", "Other Incorporated Entity", 1.4, "incorporated"),
    EntityType("UIE", "Other Unincorporated Entity", 1.4, "unincorporated"),
    EntityType("STR", "Strata-title", 1.3, "strata"),
    EntityType("DES", "Deceased Estate", 0.4, "estate"),
    EntityType("DIP", "Diplomatic/Consulate Body or High Commissioner", 0.003, "other"),
    EntityType("PDF", "Pooled Development Fund", 0.002, "other"),
    EntityType("SGE", "State Government Entity", 0.03, "government_state"),
    EntityType("SGA", "State Government Statutory Authority", 0.02, "government_state"),
    EntityType("SGT", "State Government Trust", 0.003, "government_state"),
    EntityType("SCB", "State Government Public Company", 0.002, "government_state"),
    EntityType("TGE", "Territory Government Entity", 0.004, "government_state"),
    EntityType("TGA", "Territory Government Statutory Authority", 0.002, "government_state"),
    EntityType("LGE", "Local Government Entity", 0.04, "government_local"),
    EntityType("LGA", "Local Government Statutory Authority", 0.003, "government_local"),
    EntityType("LGT", "Local Government Trust", 0.002, "government_local"),
    EntityType("CGE", "Commonwealth Government Entity", 0.01, "government_commonwealth"),
    EntityType(
        "CGA", "Commonwealth Government Statutory Authority", 0.005, "government_commonwealth"
    ),
    EntityType("CGC", "Commonwealth Government Company", 0.002, "government_commonwealth"),
    EntityType("CCB", "Commonwealth Government Public Company", 0.001, "government_commonwealth"),
    # Not ABR codes: stand-ins for codes the ABR introduces later (parsers must keep them).
    EntityType("XBT", "Cross-Border Trust", 0.01, "trust"),
    EntityType("ZNE", "Nominated Entity", 0.005, "other"),
)

UNKNOWN_ENTITY_TYPE_CODES: tuple[str, ...] = ("XBT", "ZNE")
