"""Response bodies of the read API: each route's ``response_model``, the OpenAPI document.

The handlers build plain dicts in ``pipelines.serving`` (the same JSON the ``bvs`` commands
print) and send them rendered; these models are exactly those bodies. Every member a body
always carries is required (nullable where it can be null); a member only some bodies carry
is optional; no body carries a member not declared here (``extra="forbid"``:
``additionalProperties: false``), so a client generated from ``/openapi.json`` reads every
answer. tests/e2e/test_api_conformance.py holds every endpoint's real answers to this.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(Strict):
    message: str = Field(examples=["the ABN 53004085616 was not found in the register"])


class Source(Strict):
    register_name: str = Field(
        alias="register", description="the register's name as the tile shows it"
    )
    source: str
    as_of: str | None = Field(description="the extract date of the data used; null: not loaded")
    stale: bool | None = Field(
        description="older than the source's refresh cadence (docs/decisions/10-stale-data-is-reported.md); null when"
        " not loaded or the cadence is not known"
    )


Status = Literal["PASS", "WARN", "FAIL", "N/A", "HIGH", "MED", "LOW"]


class RateLimited(Strict):
    retry_at: str = Field(description="when the premium check's monthly quota resets (UTC)")


class Tile(Strict):
    status: Status
    reason: str | None = Field(description="the rule row that decided the status (docs/rules.md)")
    detail: Any = Field(description="the evidence: an object, or null")
    sources: list[Source]
    weight: int
    rate_limited: RateLimited | None = Field(
        default=None, description="present when the plan's premium quota is used up (docs/api.md)"
    )
    checked_live_at: str | None = Field(
        default=None,
        description="when the live check ran for this answer (UTC): present on a live tile of a"
        " `cache=false` answer with the live checks on (docs/live-checks.md)",
        examples=["2026-11-22T03:15:00Z"],
    )


IDENTITY_FAILURES = (
    "the decisive identity checks that FAIL (abn_status, company_status, insolvency, gst):"
    " any of them puts the risk at least high (docs/decisions/21-decisive-identity-failure.md)"
)


class WarnCluster(Strict):
    """Why WARN_CLUSTER fired when the live tiles were checked again (``cache=false``)."""

    warn_count: int
    no_domain: bool
    no_web_presence: bool


class Risk(Strict):
    score: float
    level: Literal["low", "medium", "high", "critical"]
    flags: list[str]
    identity_failures: list[str] = Field(description=IDENTITY_FAILURES)
    warn_cluster: WarnCluster | None = Field(
        default=None,
        description="present on a `cache=false` answer with the live checks on when the"
        " rechecked tiles make WARN_CLUSTER fire: its evidence",
    )


class Attacked(Strict):
    attacked: bool


class Registrations(Strict):
    registrations: int


class Found(Strict):
    found: bool


class VerifyResponse(Strict):
    abn: str = Field(examples=["53004085616"])
    entity: str | None
    status: str = Field(examples=["Active"])
    generated_at: str = Field(examples=["2026-11-22T03:15:00Z"])
    as_of: str = Field(examples=["2026-11-20"])
    assurance_score: float | None = Field(examples=[88.5])
    risk: Risk
    viper: Attacked
    ppsr: Registrations
    insolvency: Found
    asic: Tile | None = Field(description="the company_status tile; null when not asked for")
    conduct: Tile | None
    domain: Tile | None
    email: Tile | None
    address: Tile | None
    phone: Tile | None
    street_view: Tile | None
    risk_score: float
    checks: dict[str, Tile]
    notice: str = Field(
        description="decision support, not legal advice, certification or investment advice"
        " (docs/decisions/26-words-the-spec-requires.md)"
    )
    snapshot_id: str
    cached: bool


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
Market = Literal["asx", "crypto", "forex"]
TIER_DOC = "extreme (above 85), high (70-85), medium (40-69), low (below 40); null without a score"


class Signals(Strict):
    """Each signal's part of the score, 0-100; null when its data is missing."""

    short_interest: float | None
    days_to_cover: float | None
    momentum: float | None
    volume_ratio: float | None


class SqueezeTicker(Strict):
    ticker: str = Field(examples=["PLS"])
    market: Market
    score: float | None
    signal_tier: SignalTier | None = Field(description=TIER_DOC)
    short_interest: float | None = Field(description=SHORT_INTEREST_DOC)
    short_interest_unit: ShortInterestUnit
    days_to_cover: float | None
    momentum: float | None
    volume_ratio: float | None
    signals: Signals
    missing_signals: list[str] = Field(
        description="each signal without data and why, as `<signal>: <reason>`",
        examples=[["days_to_cover: no short position size for this market"]],
    )
    signals_used: list[SignalName] = Field(
        description="the signals the score is made of; the others are in missing_signals",
    )
    score_ceiling: float | None = Field(
        description="the highest score those signals can claim: 100 with all four; 85, 69.9"
        " and 39.9 with three, two and one (not the tier four could not reach)",
    )
    short_interest_as_of: str | None = Field(description="the date of the short position")
    updated_at: str | None
    notice: str = Field(
        description="the score describes current conditions and is not predictive (docs/market.md)"
    )


class SqueezeSignal(Strict):
    ticker: str
    market: Market
    squeeze_score: float | None
    signal_tier: SignalTier | None = Field(description=TIER_DOC)
    short_interest: float | None = Field(description=SHORT_INTEREST_DOC)
    short_interest_unit: ShortInterestUnit
    days_to_cover: float | None
    momentum: float | None
    volume_ratio: float | None
    signals_used: list[SignalName] = Field(description="the signals the score is made of")
    updated_at: str | None


class SqueezeList(Strict):
    signals: list[SqueezeSignal]
    notice: str


class IntegrityComponents(Strict):
    accuracy_rate: float | None = Field(
        description="SUBSTANTIATED 1, PARTLY 0.5, REFUTED 0 over decided campaigns"
    )
    decided_campaigns: int
    settlement_rate: float | None = Field(
        description="share of campaigns with a known settlement that settled"
    )
    settlement_known_campaigns: int
    campaigns_per_year: float | None
    frequency_score: float | None = Field(description="campaigns a year / 4, at most 1")


class ActivistEntity(Strict):
    activist_id: str = Field(examples=["viceroy-research"])
    activist: str
    profile: str = Field(description="path of the entity profile, /api/robot/activists/{id}")
    is_tracked: bool = Field(description="two or more documented campaigns (docs/market.md)")
    campaign_count: int
    live_campaign_count: int
    first_report_date: str | None
    latest_report_date: str | None
    integrity_index: float | None = Field(
        description="100 x (0.6 accuracy + 0.25 settlement + 0.15 frequency); a part without"
        " data is left out and the others' weights used in proportion",
    )
    integrity_components: IntegrityComponents
    regulatory_status: None = Field(description="always null: no register of it is loaded")
    regulatory_status_note: str


class PatternElement(Strict):
    model_config = ConfigDict(extra="allow")  # each element's own evidence members
    present: bool


class Campaign(Strict):
    campaign_id: str
    activist_id: str
    activist: str
    activist_profile: str
    target_name: str | None
    target_ticker: str | None
    target_abn: str | None
    report_date: str | None
    report_title: str | None
    allegation_type: str | None
    report_url: str | None
    outcome: str | None
    settled: bool | None
    is_live: bool
    pattern_match_score: float | None = Field(
        description="25 per pattern element present; live campaigns only"
    )
    pattern_match_reason: str | None = Field(
        description="why pattern_match_score is null; null when it is not"
    )
    pattern_elements_present: int | None
    pattern_evidence: dict[str, PatternElement] | None
    viper: str | None = Field(
        default=None, description="path of the target's viper answer, when it has a ticker"
    )


class NameMatched(Strict):
    name: str
    similarity: float


class OtherNameMatch(NameMatched):
    ticker: str


class ViperResponse(Strict):
    query: str
    ticker: str | None
    target_name: str | None = Field(default=None, description="present when a target is found")
    abn: str | None = Field(default=None, description="present when a target is found")
    current_risk_score: float | None
    active_campaigns: bool
    active_campaign_count: int | None
    historical_campaign_count: int | None
    pattern_match_score: float | None
    pattern_match_reason: str | None = Field(
        description="why pattern_match_score is null; null when it is not"
    )
    report_author: str | None = Field(default=None, description="present when a target is found")
    report_date: str | None = Field(default=None, description="present when a target is found")
    allegation_type: str | None = Field(default=None, description="present when a target is found")
    campaigns: list[Campaign]
    activists: list[ActivistEntity]
    name_match: NameMatched | None = Field(
        default=None,
        description="by name: the target's company name that matched, and its similarity"
        " (at least 0.65 after normalisation, docs/decisions/20-names-given-are-matched.md)",
    )
    other_name_matches: list[OtherNameMatch] | None = Field(
        default=None, description="by name: the other targets that met the threshold, best first"
    )
    notice: str


class ActivistResponse(ActivistEntity):
    campaigns: list[Campaign]
    notice: str


class SearchResult(Strict):
    abn: str
    label: str | None = Field(description="the matching trading name, else the legal name")
    legal_name: str | None = Field(description="shown beneath a trading-name label")
    matched_name: str | None
    name_kind: str | None
    name_status: str | None
    tier: Literal["T1", "T2", "T3a", "T3b", "T4", "T5"] = Field(
        description="search tier (docs/search.md); a name typed in full is T1 (legal) or T3a with exact true"
    )
    exact: bool
    score: float = Field(description="pg_trgm similarity of the query and the matched name")
    abn_status: str | None
    active: bool
    state: str | None
    postcode: str | None


class SearchResponse(Strict):
    query: str
    normalised_query: str
    count: int
    results: list[SearchResult]
    snapshot_id: str


class NetworkEntity(Strict):
    abn: str
    entity: str | None
    status: str | None
    acn: str | None
    state: str | None
    postcode: str | None
    officeholder_count: int


class Office(Strict):
    abn: str
    person_name: str
    birth_date: str | None
    role: str | None
    is_current: bool
    appointed_date: str | None
    ceased_date: str | None


class SharedDirector(Strict):
    person_name: str
    birth_date: str | None
    abns: list[str]
    is_current: bool
    links: list[Office]


class SharedAddress(Strict):
    state: str
    postcode: str
    precision: Literal["postcode"]
    abns: list[str]


class PhoenixLink(Strict):
    abn: str
    person_name: str
    birth_date: str | None
    deregistered_acn: str
    deregistered_company_name: str | None
    deregistration_date: str | None
    officeholder_role: str | None
    within_request: bool
    within_request_reasons: list[str]
    deregistered_company_abns: list[str]


class NetworkResponse(Strict):
    abns: list[str]
    as_of: str
    entities: list[NetworkEntity]
    not_found: list[str] = Field(description="requested ABNs the register does not hold")
    shared_directors: list[SharedDirector]
    shared_addresses: list[SharedAddress]
    phoenix_links: list[PhoenixLink]
    snapshot_id: str


class Alert(Strict):
    alert_id: int
    watch_id: int
    kind: Literal["squeeze", "activist"]
    ticker: str | None
    triggered_on: str
    detail: dict[str, Any]
    created_at: str


class LedgerAlert(Strict):
    alert_id: int
    ledger: str
    run_id: str
    run_date: str
    supplier_ref: str | None
    abn: str | None
    kind: str
    subject: str | None
    before: str | None
    after: str | None
    created_at: str


class AlertsResponse(Strict):
    alerts: list[Alert]
    next_cursor: int = Field(description="pass as `since` to get only newer alerts")
    ledger_alerts: list[LedgerAlert] = Field(
        description="supplier-ledger alerts of the key's customer (Enterprise keys bound to one)",
    )
    next_ledger_cursor: int = Field(
        description="pass as `ledger_since` to get only newer ledger alerts"
    )


class LedgerRun(Strict):
    run_id: str
    run_date: str
    suppliers: int
    by_resolution: dict[str, int]
    by_risk_level: dict[str, int] = Field(
        description="suppliers by risk level; `unverified`: no ABN to verify (they need review),"
        " so the levels add up to `suppliers`"
    )
    changes: int
    alerts: int
    snapshot_id: str
    snapshot_as_of: str


class LedgerSummary(Strict):
    ledger: str
    latest_run: LedgerRun | None


class LedgerList(Strict):
    customer: str
    ledgers: list[LedgerSummary]


class LedgerRow(Strict):
    """What the ledger row itself says of the supplier (null: not given)."""

    domain: str | None
    email: str | None
    phone: str | None
    state: str | None
    postcode: str | None
    annual_spend_aud: float | None
    gst_charged: bool | None


class LedgerRisk(Strict):
    score: float | None
    level: Literal["low", "medium", "high", "critical"] | None
    flags: list[str]
    identity_failures: list[str] = Field(description=IDENTITY_FAILURES)


class LedgerSupplier(Strict):
    supplier_ref: str | None
    abn: str | None
    supplier_name: str | None
    line: int = Field(description="the supplier's line in the ledger file")
    ledger_row: LedgerRow
    resolution: Literal["verified", "resolved_by_name", "needs_review"]
    review_reason: str | None
    user_supplied: list[str] = Field(description="the members a user's override set")
    candidates: list[dict[str, Any]] = Field(description="ABNs the name resolution considered")
    entity: str | None
    assurance_score: float | None
    risk: LedgerRisk
    checks: dict[str, Tile] = Field(description="every tile; empty when no ABN was resolved")


class LedgerPage(Strict):
    customer: str
    ledger: str
    run: LedgerRun
    total: int
    order: Literal["risk", "line"] = Field(
        description="risk: highest risk first (the report's act-first order); line: file order"
    )
    offset: int
    limit: int
    next_offset: int | None
    suppliers: list[LedgerSupplier]


class LedgerChange(Strict):
    run_date: str
    run_id: str
    ledger: str
    supplier_ref: str | None
    abn: str | None
    kind: str
    subject: str | None
    before: str | None
    after: str | None
    alert: bool


class LedgerChanges(Strict):
    customer: str
    ledger: str
    since: str | None
    total: int
    offset: int
    limit: int
    next_offset: int | None
    changes: list[LedgerChange]


class Preload(Strict):
    """How much of the snapshot's files this worker read into memory before serving them."""

    bytes: int
    of_bytes: int
    seconds: float
    locked_bytes: int = Field(description="Of those, locked in memory (the verify lookup).")


class SnapshotHealth(Strict):
    snapshot_id: str
    built_at: str
    as_of: str
    age_seconds: float
    preload: Preload | None = Field(
        description="Null while the worker is still reading the snapshot into memory"
        " (BVS_API_PRELOAD_BYTES); a request meanwhile may wait for the disk.",
    )


class FailedSource(Strict):
    source: str
    attempted_at: str | None
    message: str | None


class Health(Strict):
    status: Literal["ok", "unavailable"]
    snapshot: SnapshotHealth | None
    stale_sources: list[str]
    # sources whose newest files failed to load: served with their last good data
    failed_sources: list[FailedSource]
