"""DNS blocklists for domains (docs/rules.md, e-mail and trust rows).

``<domain>.<zone>`` resolving to an address in 127.0.0.0/8 means listed (RFC 5782 2.1);
NXDOMAIN, or no address, means not listed. The answers in 127.255.255.0/24 are the zone's
own codes for "rate limited", "query refused through a public resolver" or "bad query":
they are filtered out and never count as a listing (docs/rules.md). An address outside
127.0.0.0/8 is no blocklist's code (a resolver that rewrites NXDOMAIN to a page of its own
answers so), nor is it a listing. A zone that gave no usable answer (a rate-limit code, an
address outside 127.0.0.0/8, SERVFAIL, REFUSED, a timeout, a malformed answer) is not
checked: unknown, neither listed nor clean (docs/decisions/18-a-check-that-did-not-run-is-unknown.md), and asked again after
``RATE_LIMIT_RETRY``.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass, field
from typing import Any

from pipelines.live.dns_client import DnsClient

RATE_LIMIT_NETWORK = ipaddress.ip_network("127.255.255.0/24")
RETURN_CODES = ipaddress.ip_network("127.0.0.0/8")  # RFC 5782 2.1
# How long a zone's rate-limit answer, or its failure to answer, stands before the domain is
# asked again (decided).
RATE_LIMIT_RETRY = dt.timedelta(hours=1)


@dataclass
class BlocklistFindings:
    listed: dict[str, list[str]] = field(default_factory=dict)  # zone -> return codes
    clean: list[str] = field(default_factory=list)
    rate_limited: dict[str, str] = field(default_factory=dict)  # zone -> retry_at (ISO)
    failed: dict[str, str] = field(default_factory=dict)  # zone -> reason
    failed_retry_at: str | None = None  # when the failed zones are asked again (ISO)

    def to_json(self) -> dict[str, Any]:
        return {
            "listed": self.listed,
            "clean": self.clean,
            "rate_limited": self.rate_limited,
            "failed": self.failed,
            "failed_retry_at": self.failed_retry_at,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> BlocklistFindings:
        return cls(**value)

    def retry_at(self) -> str | None:
        """When the first rate-limited zone may be asked again (the tile's countdown)."""
        return min(self.rate_limited.values()) if self.rate_limited else None

    def recheck_at(self) -> str | None:
        """When the first zone that gave no usable answer is asked again."""
        times = [t for t in (self.retry_at(), self.failed_retry_at) if t]
        return min(times) if times else None

    def checked(self) -> list[str]:
        """The zones that gave a usable answer: listed or clean."""
        return [*self.listed, *self.clean]

    def not_checked(self) -> dict[str, str]:
        """zone -> why it gave no usable answer."""
        out = {zone: f"rate limited until {at}" for zone, at in self.rate_limited.items()}
        out.update(self.failed)
        return out

    def unknown(self) -> str | None:
        """Why "clean on all blocklists" cannot be said without a listing: a zone that gave
        no usable answer, or no zone at all; None when every zone answered."""
        if self.not_checked():
            whys = "; ".join(f"{zone}: {why}" for zone, why in self.not_checked().items())
            return f"a blocklist rate limited us or did not answer ({whys})"
        if not self.checked():
            return "no blocklist zones configured (BVS_LIVE_BLOCKLIST_ZONES)"
        return None

    def none_checked(self) -> str | None:
        """Why "not blocklisted" cannot be said without a listing: no zone gave a usable
        answer (or none is configured); None when at least one did."""
        if self.checked():
            return None
        if self.not_checked():
            whys = "; ".join(f"{zone}: {why}" for zone, why in self.not_checked().items())
            return f"no blocklist gave a usable answer ({whys})"
        return "no blocklist zones configured (BVS_LIVE_BLOCKLIST_ZONES)"


def classify(answers: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(listing codes, rate-limit/error codes, addresses that are no blocklist's code) of a
    zone's A answers."""
    listing, filtered, foreign = [], [], []
    for address in answers:
        code = ipaddress.ip_address(address)
        if code in RATE_LIMIT_NETWORK:
            filtered.append(address)
        elif code in RETURN_CODES:
            listing.append(address)
        else:
            foreign.append(address)
    return listing, filtered, foreign


def check(
    client: DnsClient, domain: str, zones: tuple[str, ...], now: dt.datetime | None = None
) -> BlocklistFindings:
    now = now or dt.datetime.now(dt.UTC)
    found = BlocklistFindings()
    answers = client.ask_each([(f"{domain}.{zone}", "A") for zone in zones])  # at once
    for zone, records in zip(zones, answers, strict=True):
        if isinstance(records, Exception):  # Transient (no answer), ValueError (too long)
            found.failed[zone] = str(records)
            continue
        if not records:
            found.clean.append(zone)
            continue
        listing, filtered, foreign = classify(list(records))
        if listing:
            found.listed[zone] = listing
        elif filtered:
            found.rate_limited[zone] = (now + RATE_LIMIT_RETRY).isoformat()
        else:
            found.failed[zone] = (
                f"answered {', '.join(foreign)}, which is no blocklist return code"
                " (RFC 5782: 127.0.0.0/8)"
            )
    if found.failed:
        found.failed_retry_at = (now + RATE_LIMIT_RETRY).isoformat()
    return found
