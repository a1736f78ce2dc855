"""Every landing source, declared once: folder, file patterns, parser, area, raw tables
(their columns declared in ``tables.py``), checks.

Adding a source is one entry in ``SOURCES`` (plus its layout, its parser or spec, and one
dbt source and staging model); the loader, the Dagster assets, their checks and tags (and so
the jobs' selections), ``bvs status`` and the snapshot's source list are all driven from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass

import pyarrow as pa

from pipelines.ingest import (
    abr,
    asic_business_names,
    asic_companies,
    project_csv,
    public_registers,
)
from pipelines.ingest import market as market_files
from pipelines.ingest import tables as t
from pipelines.ingest.base import Batch, FileInfo, LandingFile, PartSink
from pipelines.ingest.delimited import DelimitedSpec
from pipelines.ingest.files import SnapshotKey, dated_name_key, every_file_key, latest_file_key
from pipelines.ingest.public_registers import (
    AFS_LICENSEES,
    ASX_LISTED,
    BANNED_ORGANISATIONS,
    BANNED_PERSONS,
    CHARITIES,
    CREDIT_LICENSEES,
    FINANCIAL_ADVISERS,
    LIQUIDATORS,
)
from pipelines.ingest.tables import Layout
from pipelines.warehouse.quality import TableChecks

# A parser reads the files of one snapshot in order, yielding (file, batch) pairs. Parsers
# that parse in worker processes may write rows straight to the PartSink they are given.
Parser = Callable[
    [list[LandingFile], Executor | None, PartSink | None], Iterator[tuple[LandingFile, Batch]]
]


def each_file(parse_one: Callable[[LandingFile], Iterator[Batch]]) -> Parser:
    """A parser for sources whose files are read one after another in this process."""

    def parse(
        files: list[LandingFile], pool: Executor | None, sink: PartSink | None
    ) -> Iterator[tuple[LandingFile, Batch]]:
        for file in files:
            for batch in parse_one(file):
                yield file, batch

    return parse


@dataclass(frozen=True)
class RawTable:
    name: str  # table in schema ``raw``; the Dagster asset key is ["raw", name]
    layout: Layout  # its columns as the landing file lays them out (tables.py)
    checks: TableChecks
    description: str

    @property
    def schema(self) -> pa.Schema:
        return self.layout.schema


# The area of a source: the job that loads it (the tag AREA_TAG of its raw tables).
REGISTERS = "registers"  # the weekly register refresh (bvs_everything)
MARKET = "market"  # also the daily market refresh (bvs_market_daily) and what it rebuilds
AREA_TAG = "bvs/area"


@dataclass(frozen=True)
class Source:
    name: str
    folder: str  # under the landing folder
    patterns: tuple[str, ...]  # file names (plain, or members of a landed zip), case-insensitive
    tables: dict[str, RawTable]  # parser's table key -> raw table
    parse: Parser
    file_info: Callable[[LandingFile], FileInfo]
    snapshot_key: Callable[[str], SnapshotKey] = dated_name_key
    parallel: bool = False  # parse chunks in worker processes
    init_worker: Callable[[], None] | None = None  # run once in each parse worker process
    refresh_days: int = 7  # older than this is reported stale
    description: str = ""
    # Daily files that accumulate (one per day, never rewritten): a load parses only the
    # files the previous load did not read and carries the rest over (warehouse.loader).
    incremental: bool = False
    area: str = REGISTERS  # REGISTERS | MARKET: its raw tables' tag AREA_TAG

    @property
    def tags(self) -> dict[str, str]:
        """Tags of the source's raw-table assets (the jobs select by them)."""
        return {AREA_TAG: self.area}


# docs/rules.md refreshes the financial advisers and the banned and disqualified registers
# weekly: a week old is stale, as the weekly ABR extract is.
WEEKLY_REGISTER_REFRESH_DAYS = 7

# ASIC names its company and business-name extracts by month (`company_YYYYMM.csv`), so
# their extract date is the first of that month: this month's file, refreshed weekly, is
# current until next month's arrives. Stale once the month after it is a week old, rather
# than from the 8th of every month on.
MONTH_NAMED_REFRESH_DAYS = 31 + 7


def raw_table(
    name: str,
    layout: Layout,
    description: str,
    *,
    key: tuple[str, ...],
    key_filter: str | None = None,
    accumulates: bool = False,
) -> RawTable:
    """A raw table and its checks; its key ABN and ACN columns (kinds abn, acn: the record's
    own identity) are checked for check digits. An identifier a record only lists is kept as
    listed, check digits or not (docs/decisions/19-a-records-own-identifier.md): the matching decides what it names."""
    checks = TableChecks(
        table=f"raw.{name}",
        key=key,
        abn_columns=tuple(c.name for c in layout.loaded if c.kind == "abn" and c.key),
        acn_columns=tuple(c.name for c in layout.loaded if c.kind == "acn" and c.key),
        key_filter=key_filter,
        accumulates=accumulates,
    )
    return RawTable(name, layout, checks, description)


def _register(
    name: str,
    layout: Layout,
    spec: DelimitedSpec,
    table: str,
    table_description: str,
    *,
    key: tuple[str, ...],
    description: str,
    patterns: tuple[str, ...] = ("*.csv",),
    file_info: Callable[[LandingFile], FileInfo] = public_registers.file_info,
    refresh_days: int = 31,
) -> Source:
    """A public register (LANDING.md A, "Other ASIC and ACNC registers", ASX list).

    Each file is the whole register with no date in its name, so only the newest file of
    the folder is read (``latest_file_key``). Stale after ``refresh_days``: a week for the
    registers docs/rules.md says are weekly (financial advisers, banned and disqualified), a month
    for the rest, whose cadence it does not state.
    """
    return Source(
        name=name,
        folder=name,
        patterns=patterns,
        tables={
            spec.table: raw_table(
                table,
                layout,
                table_description,
                key=key,
            )
        },
        parse=each_file(public_registers.parser(spec)),
        file_info=file_info,
        snapshot_key=latest_file_key,
        refresh_days=refresh_days,
        description=description,
    )


def _project(
    name: str,
    pattern: str,
    key_name: str,
    table: str,
    layout: Layout,
    label: str,
    table_description: str,
    *,
    description: str,
    key: tuple[str, ...],
    folder: str | None = None,
    incremental: bool = False,
    area: str = REGISTERS,
) -> Source:
    """A project-format source (LANDING.md B): files accumulate (every file is read)."""
    return Source(
        name=name,
        folder=folder or name,
        patterns=(pattern,),
        tables={
            key_name: raw_table(
                table,
                layout,
                table_description,
                key=key,
            )
        },
        parse=each_file(project_csv.parser(label, key_name, layout)),
        file_info=project_csv.file_info,
        snapshot_key=every_file_key,
        description=description,
        incremental=incremental,
        area=area,
    )


def _prices(market: str, what: str) -> Source:
    """End-of-day prices of one market (LANDING.md A): one headerless file per day."""
    return Source(
        name=f"prices_{market}",
        folder=f"prices/{market}",
        patterns=(market_files.PRICES_PATTERN,),
        tables={
            "daily": raw_table(
                f"prices__{market}",
                t.PRICES_DAILY,
                f"End-of-day prices of {what}: one row per ticker and trading day.",
                key=("ticker", "trade_date"),
                accumulates=True,
            )
        },
        parse=each_file(market_files.parse_prices),
        file_info=market_files.prices_info,
        snapshot_key=every_file_key,
        incremental=True,
        refresh_days=4,  # a long weekend
        area=MARKET,
        description=f"End-of-day prices, {what} (daily files, accumulating)",
    )


SOURCES: dict[str, Source] = {
    source.name: source
    for source in [
        Source(
            name="abr",
            folder="abr",
            patterns=("*public??.xml",),
            tables={
                "abns": raw_table(
                    "abr__abns",
                    t.ABR_ABNS,
                    "ABR ABN Bulk Extract: one row per ABN (entity, status, GST, address, ACN).",
                    key=("abn",),
                ),
                "other_names": raw_table(
                    "abr__other_names",
                    t.ABR_OTHER_NAMES,
                    "ABR ABN Bulk Extract: trading (TRD), business (BN), other (OTN) and DGR names.",
                    key=(),
                ),
            },
            parse=abr.parse_files,
            init_worker=abr.init_worker,
            file_info=abr.file_info,
            parallel=True,
            description="ABR ABN Bulk Extract (XML, 20 files, weekly)",
        ),
        Source(
            name="asic_companies",
            folder="asic_companies",
            patterns=("company_??????.csv",),
            tables={
                "companies": raw_table(
                    "asic__companies",
                    t.ASIC_COMPANIES,
                    "ASIC Company Dataset: every name row (current and former) of every company.",
                    key=("acn",),
                    key_filter="current_name_indicator = 'Y'",
                ),
            },
            parse=each_file(asic_companies.parse),
            file_info=asic_companies.file_info,
            refresh_days=MONTH_NAMED_REFRESH_DAYS,
            description="ASIC Company Dataset (tab-separated, weekly)",
        ),
        Source(
            name="asic_business_names",
            folder="asic_business_names",
            patterns=("business_names_??????*.csv",),
            tables={
                "business_names": raw_table(
                    "asic__business_names",
                    t.ASIC_BUSINESS_NAMES,
                    "ASIC Business Names Dataset: one row per registered, cancelled or deregistered name.",
                    key=(),
                ),
            },
            parse=each_file(asic_business_names.parse),
            file_info=asic_business_names.file_info,
            refresh_days=MONTH_NAMED_REFRESH_DAYS,
            description="ASIC Business Names Dataset (tab-separated, weekly)",
        ),
        # --- project formats (LANDING.md B): quoted UTF-8 CSV, ISO dates, read by
        # project_csv. The folders accumulate files (adverse/ACCC.csv and adverse/QBCC.csv
        # are both read), so every matching file is one part of a single snapshot.
        _project(
            "directors",
            "officeholders*.csv",
            "officeholders",
            "directors__officeholders",
            t.DIRECTORS_OFFICEHOLDERS,
            "officeholders",
            "Company officeholders (directors, secretaries) by ACN, current and ceased.",
            description="Company officeholders (project CSV, accumulating)",
            # No key: extracts accumulate, so one appointment recurs in each extract
            # that lists it (told apart only by extracted_date), and a person's name
            # is not an identifier. Staging keeps the latest extract of each.
            key=(),
        ),
        _project(
            "adverse",
            "*.csv",  # <regulator>*.csv
            "records",
            "adverse__records",
            t.ADVERSE_RECORDS,
            "adverse records",
            "Regulators' enforcement and compliance actions (ACCC, QBCC, FWO, ...).",
            description="Regulators' adverse records (project CSV, one file per regulator)",
            key=("regulator", "record_id"),
        ),
        _project(
            "gazette",
            "notices*.csv",
            "notices",
            "gazette__notices",
            t.GAZETTE_NOTICES,
            "gazette notices",
            "Insolvency and deregistration notices published about companies.",
            description="Published notices (project CSV, accumulating)",
            key=("notice_id",),
        ),
        _project(
            "licences",
            "*.csv",  # <register>*.csv
            "licences",
            "licences__licences",
            t.LICENCES_LICENCES,
            "licences",
            "Trade licences (QBCC, NSW Fair Trading, VBA, SA CBS) and their status.",
            description="Trade licence registers (project CSV, one file per register)",
            key=("register", "licence_number"),
        ),
        _project(
            "industry",
            "abn_industry*.csv",
            "abn_industry",
            "industry__abn_industry",
            t.INDUSTRY_ABN_INDUSTRY,
            "ABN industry",
            "ANZSIC industry classification by ABN.",
            description="ANZSIC industry by ABN (project CSV)",
            key=("abn",),
        ),
        _project(
            "ppsr",
            "registrations*.csv",
            "registrations",
            "ppsr__registrations",
            t.PPSR_REGISTRATIONS,
            "PPSR registrations",
            "PPSR security interests registered against a grantor (ABN/ACN).",
            description="PPSR registrations by grantor (project CSV, accumulating)",
            key=("registration_number",),
        ),
        _project(
            "registers",
            "*.csv",  # <register>*.csv
            "records",
            "registers__records",
            t.REGISTERS_RECORDS,
            "register records",
            "Other public registers (tax practitioners, APRA, tax debt, WGEA, ...).",
            description="Other public registers (project CSV, one file per register)",
            key=("register", "record_id"),
        ),
        # --- other ASIC and ACNC registers, ASX list (LANDING.md A): each file is a whole
        # register with no date in its name, so only the newest file is read.
        _register(
            "asic_banned_persons",
            t.ASIC_BANNED_PERSONS,
            BANNED_PERSONS,
            "asic__banned_persons",
            "ASIC Banned and Disqualified Persons: one row per banning or disqualification.",
            # No key: a person can be banned more than once, and a name is no identifier.
            key=(),
            description="ASIC Banned and Disqualified Persons (quoted CSV, snapshot)",
            refresh_days=WEEKLY_REGISTER_REFRESH_DAYS,  # docs/rules.md: weekly
        ),
        _register(
            "asic_banned_organisations",
            t.ASIC_BANNED_ORGANISATIONS,
            BANNED_ORGANISATIONS,
            "asic__banned_organisations",
            "ASIC Banned and Disqualified Organisations: one row per banning.",
            key=(),  # an organisation can be banned more than once
            description="ASIC Banned and Disqualified Organisations (tab-separated, snapshot)",
            refresh_days=WEEKLY_REGISTER_REFRESH_DAYS,  # docs/rules.md: weekly
        ),
        _register(
            "asic_afs_licensees",
            t.ASIC_AFS_LICENSEES,
            AFS_LICENSEES,
            "asic__afs_licensees",
            "ASIC AFS Licensee dataset: one row per Australian financial services licence.",
            # afs_lic_abn_acn holds an ABN or an ACN: the parser checks it as either.
            key=("afs_lic_num",),
            description="ASIC AFS Licensee dataset (quoted CSV, snapshot)",
        ),
        _register(
            "asic_credit_licensees",
            t.ASIC_CREDIT_LICENSEES,
            CREDIT_LICENSEES,
            "asic__credit_licensees",
            "ASIC Credit Licensee dataset: one row per Australian credit licence.",
            key=("cred_lic_num",),  # cred_lic_abn_acn: ABN or ACN, checked by the parser
            description="ASIC Credit Licensee dataset (quoted CSV, snapshot)",
        ),
        _register(
            "asic_liquidators",
            t.ASIC_LIQUIDATORS,
            LIQUIDATORS,
            "asic__liquidators",
            "ASIC Registered Liquidators: one row per registered liquidator (no ABN).",
            key=("liq_num",),
            description="ASIC Registered Liquidators (snapshot)",
        ),
        _register(
            "asic_financial_advisers",
            t.ASIC_FINANCIAL_ADVISERS,
            FINANCIAL_ADVISERS,
            "asic__financial_advisers",
            "ASIC Financial Advisers register: one row per adviser role and licensee.",
            # No key: one adviser (ADV_NUMBER) appears once per role, licensee and period,
            # and LANDING.md documents no unique column set.
            key=(),
            description="ASIC Financial Advisers register (tab-separated, snapshot)",
            refresh_days=WEEKLY_REGISTER_REFRESH_DAYS,  # docs/rules.md: weekly
        ),
        _register(
            "acnc_charities",
            t.ACNC_CHARITIES,
            CHARITIES,
            "acnc__charities",
            "ACNC Charity Register: one row per registered charity.",
            key=("abn",),
            patterns=("datadotgov_main.csv",),
            description="ACNC Charity Register (quoted CSV, snapshot)",
        ),
        _register(
            "asx_listed",
            t.ASX_LISTED_COMPANIES,
            ASX_LISTED,
            "asx__listed_companies",
            "ASX listed companies: ticker, company name and GICS industry group.",
            key=("asx_code",),
            patterns=("ASXListedCompanies.csv",),
            file_info=public_registers.asx_file_info,
            description="ASX list of listed companies (quoted CSV after a title, snapshot)",
        ),
        # --- market data: daily files that accumulate; a load reads only the new days.
        Source(
            name="asic_short_positions",
            folder="asic_short_positions",
            patterns=(market_files.SHORT_POSITIONS_PATTERN,),
            tables={
                "positions": raw_table(
                    "asic__short_positions",
                    t.ASIC_SHORT_POSITIONS,
                    "ASIC daily aggregated short positions: one row per product, position date"
                    " and file version (staging keeps the newest version of a day).",
                    key=("position_date", "version", "product_code"),
                    accumulates=True,
                )
            },
            parse=each_file(market_files.parse_short_positions),
            file_info=market_files.short_positions_info,
            snapshot_key=every_file_key,
            incremental=True,
            refresh_days=7,  # published about four business days after the position date
            area=MARKET,
            description="ASIC daily aggregated short positions (UTF-16 tab or UTF-8 comma, daily)",
        ),
        _prices("asx", "ASX products"),
        _prices("crypto", "crypto pairs in AUD"),
        _prices("forex", "AUD forex pairs"),
        _project(
            "positioning",
            "*.csv",  # <market>*.csv
            "short_interest",
            "positioning__short_interest",
            t.POSITIONING_SHORT_INTEREST,
            "positioning",
            "Crypto and forex short-interest proxies: one row per symbol and date.",
            description="Crypto and forex positioning (project CSV, accumulating)",
            key=("symbol", "date"),
            area=MARKET,
        ),
        _project(
            "activist_campaigns",
            "campaigns*.csv",
            "campaigns",
            "activist__campaigns",
            t.ACTIVIST_CAMPAIGNS,
            "activist campaigns",
            "Documented activist short-seller campaigns: one row per campaign.",
            description="Activist short-seller campaigns (project CSV)",
            key=("campaign_id",),
            folder="activist",
            area=MARKET,
        ),
        _project(
            "activist_amplification",
            "amplification*.csv",
            "amplification",
            "activist__amplification",
            t.ACTIVIST_AMPLIFICATION,
            "activist amplification",
            "Mentions of a campaign per day and channel (its coordinated amplification).",
            description="Activist campaign amplification (project CSV)",
            key=("campaign_id", "date", "channel"),
            folder="activist",
            area=MARKET,
        ),
    ]
}
