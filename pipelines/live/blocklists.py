"""DNS blocklists for domains (SPEC 3.3, e-mail and trust rows).

``<domain>.<zone>`` resolving to an address means listed; NXDOMAIN means not listed. The
answers in 127.255.255.0/24 are the zone's own codes for "rate limited", "query refused
through a public resolver" or "bad query": they are filtered out and never count as a
listing (SPEC 3.3); the zone is then unknown for that domain until ``RATE_LIMIT_RETRY``
has passed.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass, field
from typing import Any

from pipelines.live.dns_client import DnsClient

RATE_LIMIT_NETWORK = ipaddress.ip_network("127.255.255.0/24")
# How long a zone's rate-limit answer stands before the domain is asked again (decided).
RATE_LIMIT_RETRY = dt.timedelta(hours=1)


@dataclass
class BlocklistFindings:
    listed: dict[str, list[str]] = field(default_factory=dict)  # zone -> return codes
    clean: list[str] = field(default_factory=list)
    rate_limited: dict[str, str] = field(default_factory=dict)  # zone -> retry_at (ISO)
    failed: dict[str, str] = field(default_factory=dict)  # zone -> reason

    def to_json(self) -> dict[str, Any]:
        return {
            "listed": self.listed,
            "clean": self.clean,
            "rate_limited": self.rate_limited,
            "failed": self.failed,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> BlocklistFindings:
        return cls(**value)

    def retry_at(self) -> str | None:
        return min(self.rate_limited.values()) if self.rate_limited else None


def classify(answers: list[str]) -> tuple[list[str], list[str]]:
    """(listing codes, rate-limit/error codes) of a zone's A answers."""
    listing, filtered = [], []
    for address in answers:
        if ipaddress.ip_address(address) in RATE_LIMIT_NETWORK:
            filtered.append(address)
        else:
            listing.append(address)
    return listing, filtered


def check(
    client: DnsClient, domain: str, zones: tuple[str, ...], now: dt.datetime | None = None
) -> BlocklistFindings:
    from pipelines.live.throttle import Transient

    now = now or dt.datetime.now(dt.UTC)
    found = BlocklistFindings()
    answers = client.ask_each([(f"{domain}.{zone}", "A") for zone in zones])  # at once
    for zone, records in zip(zones, answers, strict=True):
        if isinstance(records, Transient):
            found.failed[zone] = str(records)
            continue
        if not records:
            found.clean.append(zone)
            continue
        listing, filtered = classify(list(records))
        if listing:
            found.listed[zone] = listing
        elif filtered:
            found.rate_limited[zone] = (now + RATE_LIMIT_RETRY).isoformat()
    return found
