"""DNS with dnspython: MX, SPF (TXT), DMARC (``_dmarc`` TXT), A/AAAA and NS.

Resolvers are configurable (``BVS_LIVE_RESOLVERS``, "ip[:port]" each); the default is the
system's. NXDOMAIN and "no answer" are answers (nothing there); a timeout or SERVFAIL is
``Transient`` (retried by the provider, then the check did not run).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

import dns.exception
import dns.nameserver
import dns.rdatatype
import dns.resolver

from pipelines.live.throttle import Transient


@dataclass
class DnsFindings:
    domain: str
    exists: bool = True
    addresses: list[str] = field(default_factory=list)
    mx: list[str] = field(default_factory=list)
    spf: str | None = None
    dmarc: str | None = None
    ns: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> DnsFindings:
        return cls(**value)


class DnsClient:
    def __init__(self, resolvers: tuple[tuple[str, int], ...], timeout: float) -> None:
        self.resolvers = resolvers
        self.timeout = timeout
        self._local = threading.local()

    def _resolver(self) -> dns.resolver.Resolver:
        resolver = getattr(self._local, "resolver", None)
        if resolver is None:
            if self.resolvers:
                resolver = dns.resolver.Resolver(configure=False)
                resolver.nameservers = [
                    dns.nameserver.Do53Nameserver(host, port) for host, port in self.resolvers
                ]
            else:
                resolver = dns.resolver.Resolver()
            resolver.lifetime = self.timeout
            resolver.timeout = self.timeout
            resolver.retry_servfail = False
            self._local.resolver = resolver
        return resolver

    def query(self, name: str, rdtype: str) -> list[Any] | None:
        """The answer's records; [] for no answer; None for NXDOMAIN."""
        try:
            answer = self._resolver().resolve(name, rdtype, search=False, raise_on_no_answer=False)
        except dns.resolver.NXDOMAIN:
            return None
        except dns.resolver.NoNameservers as error:
            raise Transient(f"DNS {rdtype} {name}: no resolver answered (SERVFAIL)") from error
        except dns.exception.Timeout as error:
            raise Transient(f"DNS {rdtype} {name}: timed out") from error
        except dns.resolver.YXDOMAIN:
            return None
        return list(answer.rrset or [])

    def addresses(self, name: str) -> list[str] | None:
        """A and AAAA addresses; None when the name does not exist."""
        a = self.query(name, "A")
        if a is None:
            return None
        aaaa = self.query(name, "AAAA") or []
        return [r.address for r in a] + [r.address for r in aaaa]

    def txt(self, name: str) -> list[str]:
        records = self.query(name, "TXT") or []
        return [b"".join(r.strings).decode("utf-8", "replace") for r in records]

    def lookup(self, domain: str) -> DnsFindings:
        """Everything the e-mail, domain and web checks read about one domain."""
        addresses = self.addresses(domain)
        mx_records = self.query(domain, "MX")
        if addresses is None and mx_records is None:
            return DnsFindings(domain, exists=False)
        # RFC 7505 "null MX" (a single "." exchange) says the domain takes no mail.
        mx = sorted(
            (r.preference, r.exchange.to_text(omit_final_dot=True))
            for r in (mx_records or [])
            if r.exchange.to_text() != "."
        )
        spf = next((t for t in self.txt(domain) if t.lower().startswith("v=spf1")), None)
        dmarc = next(
            (t for t in self.txt(f"_dmarc.{domain}") if t.lower().startswith("v=dmarc1")), None
        )
        ns = [r.target.to_text(omit_final_dot=True).lower() for r in self.query(domain, "NS") or []]
        return DnsFindings(
            domain, True, addresses or [], [host for _, host in mx], spf, dmarc, sorted(ns)
        )

    def probe(self, name: str) -> str | None:
        """None when ``name`` resolves (the network answers), else why not."""
        try:
            found = self.query(name, "A")
        except Transient as error:
            return str(error)
        if not found:
            return f"the connectivity probe {name} did not resolve"
        return None
