"""Planted cases: one dedicated ABR entity per outcome of every register check and risk flag.

For each row of docs/rules.md the warehouse can decide, and each trigger of docs/rules.md#risk-flags (but
WARN_CLUSTER, which needs live checks), :func:`build_cases` makes an entity with a
distinctive name (coined four-syllable words, which the background generator never draws,
so no background record matches it by accident), its ABR record, ASIC company rows,
officeholders and industry code as the case needs, and the register rows that give the
expected outcome; next to most, the neighbour that must not (a deregistration 37 months
back instead of 35, two adverse records instead of three, a name just below a similarity
threshold, a same-name director born on another day, a licence expired 13 months ago...).

All dates count back from one as-of date (the extract date + 2 days). The cases are extra
ABR records appended to the last ABR file, present at every scale; their identifiers come
from index ranges the background never uses (ACN and ABN indexes from 2 * scale up, register
ids with a ``P`` marker). Each case is listed in ``_sample/planted.json`` under ``cases``
(schema in data/README.md). Name pairs are checked with :mod:`pipelines.matching` as they are
built: matches above the register's threshold, decoys below it.
"""

from __future__ import annotations

import datetime as dt

from bvs_sample.cases.abr import plant_abn_status, plant_gst, plant_identity_risk
from bvs_sample.cases.asic import plant_business_names, plant_company_status, plant_phoenix
from bvs_sample.cases.builder import Builder, CasePlan
from bvs_sample.cases.enforcement import (
    plant_adverse_pattern,
    plant_competition,
    plant_conduct,
    plant_disability,
    plant_workplace,
    plant_workplace_record_kinds,
)
from bvs_sample.cases.financial_services import plant_financial_services
from bvs_sample.cases.identifiers import plant_listed_identifiers
from bvs_sample.cases.insolvency import plant_gazette, plant_insolvency
from bvs_sample.cases.licences import plant_licence
from bvs_sample.cases.persons import plant_persons
from bvs_sample.cases.registers import (
    plant_government_contracts_window,
    plant_matches_only,
    plant_registers,
)
from bvs_sample.ledgers import plant_ledger_cases


def build_cases(*, scale: int, seed: int, extract_date: dt.date) -> CasePlan:
    """Every planted case, in a fixed order (one RNG: the order is part of the bytes)."""
    b = Builder(scale, seed, extract_date)
    plant_abn_status(b)
    plant_gst(b)
    plant_company_status(b)
    plant_business_names(b)
    plant_insolvency(b)
    plant_gazette(b)
    plant_conduct(b)
    plant_adverse_pattern(b)
    plant_competition(b)
    plant_workplace(b)
    plant_disability(b)
    plant_licence(b)
    plant_phoenix(b)
    plant_persons(b)
    plant_financial_services(b)
    plant_registers(b)
    plant_matches_only(b)
    plant_ledger_cases(b)
    plant_identity_risk(b)
    plant_listed_identifiers(b)
    plant_government_contracts_window(b)
    plant_workplace_record_kinds(b)
    return b.plan
