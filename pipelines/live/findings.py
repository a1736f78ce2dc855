"""What the live checks know of an entity and what the clients found for it.

``EntityFacts`` is what the checks are given (from the warehouse or a ledger row);
``Findings`` is what ``checker`` fills in as the clients answer and what the outcome rules
(``tiles``) read. A module of its own so that the rules and the checker each depend on it
and not on each other.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pipelines.live.blocklists import BlocklistFindings
from pipelines.live.ct import CtFindings
from pipelines.live.dns_client import DnsFindings
from pipelines.live.providers import ReviewAnswer
from pipelines.live.rdap import RdapFindings
from pipelines.live.web import SiteFindings


@dataclass
class EntityFacts:
    """What the live checks need to know of an ABN (from the warehouse or a ledger row)."""

    abn: str
    legal_names: list[str] = field(default_factory=list)
    trading_names: list[str] = field(default_factory=list)
    is_individual: bool = False
    abn_registered: dt.date | None = None
    email: str | None = None
    domain: str | None = None
    domain_source: str | None = None  # "override" | "ledger"
    phone: str | None = None
    address: str | None = None


@dataclass
class Findings:
    facts: EntityFacts
    off: str | None = None  # the whole batch did not run: why
    domain: str | None = None
    domain_source: str | None = None  # override | ledger | web_presence
    candidates: list[str] = field(default_factory=list)
    web_not_run: str | None = None
    refused: str | None = None
    site: SiteFindings | None = None
    parked_sites: list[SiteFindings] = field(default_factory=list)
    dns: DnsFindings | None = None
    dns_error: str | None = None
    blocklists: BlocklistFindings | None = None
    blocklist_error: str | None = None
    rdap: RdapFindings | None = None
    rdap_error: str | None = None
    rdap_retry_at: str | None = None
    ct: CtFindings | None = None
    ct_error: str | None = None
    email_dns: DnsFindings | None = None
    email_dns_error: str | None = None
    email_blocklists: BlocklistFindings | None = None
    email_blocklist_error: str | None = None
    scam: dict[str, Any] | None = None
    scam_error: str | None = None
    scam_retry_at: str | None = None
    unseen: list[SiteFindings] = field(default_factory=list)  # candidates not seen (timeouts)
    reviews: list[ReviewAnswer] | None = None
    premium: dict[str, dict[str, Any]] = field(default_factory=dict)
    premium_errors: dict[str, str] = field(default_factory=dict)
    premium_retry: dict[str, str] = field(default_factory=dict)
