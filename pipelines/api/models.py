"""Response schemas of the read API, for the OpenAPI document (client generators, fuzzing).

The handlers build plain dicts in ``pipelines.serving`` (the same JSON the ``bvs`` commands
print); these models describe them. Objects allow members beyond those listed, so a new
member is not a breaking change for generated clients.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(examples=["the ABN 53004085616 was not found in the register"])


class Source(Open):
    source: str | None = None
    as_of: str | None = None
    stale: bool | None = None


class Tile(Open):
    status: Literal["PASS", "WARN", "FAIL", "N/A", "HIGH", "MED", "LOW"]
    reason: str | None = None
    detail: Any = None
    sources: list[Source]
    weight: int
    rate_limited: dict[str, str] | None = None


class Risk(Open):
    score: float
    level: Literal["low", "medium", "high", "critical"]
    flags: list[str]


class Attacked(Open):
    attacked: bool


class Registrations(Open):
    registrations: int


class Found(Open):
    found: bool


class VerifyResponse(Open):
    abn: str = Field(examples=["53004085616"])
    entity: str | None = None
    status: str = Field(examples=["Active"])
    generated_at: str = Field(examples=["2026-11-22T03:15:00Z"])
    as_of: str = Field(examples=["2026-11-20"])
    assurance_score: float | None = Field(default=None, examples=[88.5])
    risk: Risk
    viper: Attacked
    ppsr: Registrations
    insolvency: Found
    asic: Tile | None = None
    conduct: Tile | None = None
    domain: Tile | None = None
    email: Tile | None = None
    address: Tile | None = None
    phone: Tile | None = None
    street_view: Tile | None = None
    risk_score: float
    checks: dict[str, Tile]
    notice: str = Field(
        description="decision support, not legal advice, certification or investment advice"
        " (SPEC 1.8)"
    )
    cached: bool
    snapshot_id: str


SignalName = Literal["short_interest", "days_to_cover", "momentum", "volume_ratio"]
SignalTier = Literal["extreme", "high", "medium", "low"]
SHORT_INTEREST_DOC = (
    "a percent (1.92 = 1.92 %); of what, short_interest_unit says: percent_of_shares_on_issue"
    " (ASX, ASIC short positions), percent_of_open_interest (crypto),"
    " percent_of_open_interest_non_commercial (forex)"
)
ShortInterestUnit = Literal[
    "percent_of_shares_on_issue",
    "percent_of_open_interest",
    "percent_of_open_interest_non_commercial",
]
TIER_DOC = "extreme (above 85), high (70-85), medium (40-69), low (below 40); null without a score"


class SqueezeTicker(Open):
    ticker: str = Field(examples=["PLS"])
    market: str
    score: float | None = None
    signal_tier: SignalTier | None = Field(default=None, description=TIER_DOC)
    short_interest: float | None = Field(default=None, description=SHORT_INTEREST_DOC)
    short_interest_unit: ShortInterestUnit
    days_to_cover: float | None = None
    momentum: float | None = None
    volume_ratio: float | None = None
    signals_used: list[SignalName] = Field(
        default_factory=list,
        description="the signals the score is made of; the others are in missing_signals",
    )
    score_ceiling: float | None = Field(
        None,
        description="the highest score those signals can claim: 100 with all four; 85, 69.9"
        " and 39.9 with three, two and one (not the tier four could not reach)",
    )
    updated_at: str | None = None
    notice: str = Field(
        description="the score describes current conditions and is not predictive (SPEC 2.6)"
    )


class SqueezeSignal(Open):
    ticker: str
    market: str
    squeeze_score: float | None = None
    signal_tier: SignalTier | None = Field(default=None, description=TIER_DOC)
    short_interest: float | None = Field(default=None, description=SHORT_INTEREST_DOC)
    short_interest_unit: ShortInterestUnit
    signals_used: list[SignalName] = Field(
        default_factory=list, description="the signals the score is made of"
    )
    updated_at: str | None = None


class SqueezeList(Open):
    signals: list[SqueezeSignal]
    notice: str


class IntegrityComponents(Open):
    accuracy_rate: float | None = Field(
        default=None, description="SUBSTANTIATED 1, PARTLY 0.5, REFUTED 0 over decided campaigns"
    )
    decided_campaigns: int
    settlement_rate: float | None = Field(
        default=None, description="share of campaigns with a known settlement that settled"
    )
    settlement_known_campaigns: int
    campaigns_per_year: float | None = None
    frequency_score: float | None = Field(
        default=None, description="campaigns a year / 4, at most 1"
    )


class ActivistEntity(Open):
    activist_id: str = Field(examples=["viceroy-research"])
    activist: str
    profile: str = Field(description="path of the entity profile, /api/robot/activists/{id}")
    is_tracked: bool = Field(description="two or more documented campaigns (SPEC 2.7)")
    campaign_count: int
    integrity_index: float | None = Field(
        default=None,
        description="100 x (0.6 accuracy + 0.25 settlement + 0.15 frequency); a part without"
        " data is left out and the others' weights used in proportion",
    )
    integrity_components: IntegrityComponents
    regulatory_status: None = Field(
        default=None, description="always null: no register of it is loaded"
    )
    regulatory_status_note: str


class Campaign(Open):
    campaign_id: str
    activist_id: str
    activist: str
    activist_profile: str
    report_date: str | None = None
    allegation_type: str | None = None
    is_live: bool
    pattern_match_score: float | None = Field(
        default=None, description="25 per pattern element present; live campaigns only"
    )
    pattern_match_reason: str | None = Field(
        default=None, description="why pattern_match_score is null; null when it is not"
    )
    pattern_elements_present: int | None = None
    pattern_evidence: dict[str, Any] | None = None


class ViperResponse(Open):
    query: str
    current_risk_score: float | None = None
    active_campaigns: bool
    active_campaign_count: int | None = None
    historical_campaign_count: int | None = None
    pattern_match_score: float | None = None
    pattern_match_reason: str | None = Field(
        default=None, description="why pattern_match_score is null; null when it is not"
    )
    campaigns: list[Campaign]
    activists: list[ActivistEntity]
    notice: str


class ActivistResponse(ActivistEntity):
    live_campaign_count: int
    first_report_date: str | None = None
    latest_report_date: str | None = None
    campaigns: list[Campaign]
    notice: str


class SearchResult(Open):
    abn: str
    label: str | None = Field(None, description="the matching trading name, else the legal name")
    legal_name: str | None = Field(None, description="shown beneath a trading-name label")
    matched_name: str | None = None
    name_kind: str | None = None
    name_status: str | None = None
    tier: Literal["T1", "T2", "T3a", "T3b", "T4", "T5"] = Field(
        description="SPEC 4.4 tier; a name typed in full is T1 (legal) or T3a with exact true"
    )
    exact: bool
    score: float = Field(description="pg_trgm similarity of the query and the matched name")
    abn_status: str | None = None
    active: bool
    state: str | None = None
    postcode: str | None = None


class SearchResponse(Open):
    query: str
    normalised_query: str
    count: int
    results: list[SearchResult]


class NetworkResponse(Open):
    abns: list[str]
    as_of: str
    entities: list[dict[str, Any]]
    not_found: list[str] = Field(description="requested ABNs the register does not hold")
    shared_directors: list[dict[str, Any]]
    shared_addresses: list[dict[str, Any]]
    phoenix_links: list[dict[str, Any]]


class Alert(Open):
    alert_id: int
    kind: str
    ticker: str | None = None
    triggered_on: str
    detail: dict[str, Any]
    created_at: str


class LedgerAlert(Open):
    alert_id: int
    ledger: str
    run_id: str
    run_date: str
    supplier_ref: str | None = None
    abn: str | None = None
    kind: str
    subject: str
    before: str | None = None
    after: str | None = None
    created_at: str


class AlertsResponse(Open):
    alerts: list[Alert]
    next_cursor: int = Field(description="pass as `since` to get only newer alerts")
    ledger_alerts: list[LedgerAlert] = Field(
        default_factory=list,
        description="supplier-ledger alerts of the key's customer (Enterprise keys bound to one)",
    )
    next_ledger_cursor: int = Field(
        default=0, description="pass as `ledger_since` to get only newer ledger alerts"
    )


class LedgerRun(Open):
    run_id: str
    run_date: str
    suppliers: int
    by_resolution: dict[str, int]
    by_risk_level: dict[str, int]
    changes: int
    alerts: int
    snapshot_id: str
    snapshot_as_of: str


class LedgerSummary(Open):
    ledger: str
    latest_run: LedgerRun | None


class LedgerList(Open):
    customer: str
    ledgers: list[LedgerSummary]


class LedgerSupplier(Open):
    supplier_ref: str | None
    abn: str | None
    supplier_name: str | None
    resolution: str
    assurance_score: float | None
    risk: dict[str, Any]
    checks: dict[str, Any]


class LedgerPage(Open):
    customer: str
    ledger: str
    run: LedgerRun
    total: int
    offset: int
    limit: int
    next_offset: int | None
    suppliers: list[LedgerSupplier]


class LedgerChange(Open):
    run_date: str
    ledger: str
    supplier_ref: str | None
    abn: str | None
    kind: str
    subject: str | None
    before: str | None
    after: str | None
    alert: bool


class LedgerChanges(Open):
    customer: str
    ledger: str
    since: str | None
    total: int
    offset: int
    limit: int
    next_offset: int | None
    changes: list[LedgerChange]


class Preload(Open):
    """How much of the snapshot's files this worker read into memory before serving them."""

    bytes: int
    of_bytes: int
    seconds: float
    locked_bytes: int = Field(description="Of those, locked in memory (the verify lookup).")


class SnapshotHealth(Open):
    snapshot_id: str
    built_at: str
    as_of: str
    age_seconds: float
    preload: Preload | None = Field(
        default=None,
        description="Null while the worker is still reading the snapshot into memory"
        " (BVS_API_PRELOAD_BYTES); a request meanwhile may wait for the disk.",
    )


class FailedSource(Open):
    source: str
    attempted_at: str | None = None
    message: str | None = None


class Health(Open):
    status: Literal["ok", "unavailable"]
    snapshot: SnapshotHealth | None = None
    stale_sources: list[str] = []
    # sources whose newest files failed to load: served with their last good data
    failed_sources: list[FailedSource] = []
