"""Runs the clients for a domain or an entity and turns what they found into tiles.

``LiveChecker`` holds one of each client, the per-provider limits and the cache. Every
lookup goes through ``_cached``: a result under the TTL (24 h, docs/api.md) is used again, and
``fresh=True`` (verify with ``cache=false``) skips cached results. A provider's rate-limit
answer holds the endpoint that gave it (throttle.py) and is kept in the cache under
``rate_limit`` until its ``retry_at`` (at most an hour), never in a result's entry: a
restarted run, or ``fresh``, still honours it, and once it has passed every lookup asks
afresh. A deadline (``time.monotonic``) bounds an entity's whole check: no lookup starts
after it and every request ends at it (``bvs verify --live``'s 12 s).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pipelines.live import blocklists, ct, rdap, web
from pipelines.live.blocklists import BlocklistFindings
from pipelines.live.cache import Cache
from pipelines.live.config import LiveConfig
from pipelines.live.ct import CtFindings
from pipelines.live.dns_client import DnsClient, DnsFindings
from pipelines.live.findings import EntityFacts, Findings
from pipelines.live.http import get_json, origin
from pipelines.live.providers import PARSERS, ask, reviews
from pipelines.live.rdap import RdapFindings
from pipelines.live.throttle import Provider, RateLimited, Transient, Unavailable
from pipelines.live.tiles import LIVE_CHECKS, Tile, email_domain, live_tiles, not_run
from pipelines.live.web import SiteFindings

log = logging.getLogger(__name__)
T = TypeVar("T")
PROBE_SECONDS = 60.0  # how long a connectivity probe's answer stands
RATE_LIMITS = "rate_limit"  # the cache's provider name for standing rate limits
OUT_OF_TIME = "not asked: the time for live checks ran out"


class Failed(Exception):
    """A lookup that did not give an answer: ``why`` (the provider's words), ``reason``
    (``provider: why``, the provider named once); ``retry_at`` when rate limited."""

    def __init__(self, provider: str, why: str, retry_at: str | None = None) -> None:
        super().__init__(f"{provider}: {why}")
        self.provider = provider
        self.why = why
        self.reason = f"{provider}: {why}"
        self.retry_at = retry_at


def clean_domain(value: str) -> str:
    """A user's or ledger's domain as a bare host name: no scheme, path, port or www."""
    text = value.strip().lower()
    host = urlsplit(text if "//" in text else f"//{text}").hostname or ""
    host = host.rstrip(".")
    if host.startswith("www."):
        host = host[4:]
    if "." not in host or any(not part for part in host.split(".")):
        raise ValueError(f"not a domain name: {value!r}")
    return host.encode("idna").decode("ascii")


class LiveChecker:
    def __init__(self, config: LiveConfig) -> None:
        self.config = config
        self.dns = DnsClient(config.resolvers, config.dns_timeout)
        self.cache = Cache(config.cache_path, config.cache_ttl_seconds)
        self.providers = {name: Provider(name, limits) for name, limits in config.limits.items()}
        self._probed: tuple[float, str | None] | None = None  # (when, why offline)
        self._rdap_services: tuple[float, dict[str, str]] | None = None
        self._kept_limits: dict[str, str] = {}
        for key, value in self.cache.entries(RATE_LIMITS):  # limits standing from before
            name, _, endpoint = key.partition(" ")
            try:
                retry_at = dt.datetime.fromisoformat(str(value["retry_at"]))
            except (KeyError, TypeError, ValueError):
                continue
            if name in self.providers and retry_at.tzinfo is not None:
                self.providers[name].block(endpoint or None, retry_at)
                self._kept_limits[key] = value["retry_at"]

    # --- plumbing -----------------------------------------------------------------------

    def offline(self) -> str | None:
        """Why no live check can run now (turned off, no network), else None. The probe is
        one DNS query, asked again after PROBE_SECONDS (a long-lived checker, the API's,
        sees the network come back): offline, every tile is N/A at once instead of each
        lookup waiting for its timeout."""
        if not self.config.enabled:
            return "live checks are off (BVS_LIVE_CHECKS=false)"
        now = time.monotonic()
        if self._probed is None or now - self._probed[0] > PROBE_SECONDS:
            reason = None
            if self.config.probe_name:
                reason = self.dns.probe(self.config.probe_name)
                if reason is not None:
                    reason = f"no network: {reason}"
            self._probed = (now, reason)
        return self._probed[1]

    def _keep_limit(self, provider: str, limited: RateLimited) -> str:
        """Keep a rate limit in the cache (apart from any result) until its time; its
        ``retry_at`` as ISO text."""
        retry_at = _iso(limited.retry_at)
        key = f"{provider} {limited.endpoint or ''}"
        if self._kept_limits.get(key) != retry_at:
            self._kept_limits[key] = retry_at
            self.cache.put(RATE_LIMITS, key, {"retry_at": limited.retry_at.isoformat()},
                           expires_at=limited.retry_at.timestamp())  # fmt: skip
        return retry_at

    def _cached(
        self,
        provider: str,
        key: str,
        fetch: Callable[[], T],
        dump: Callable[[T], Any],
        load: Callable[[Any], T],
        *,
        fresh: bool = False,
        endpoint: str | None = None,
        deadline: float | None = None,
        expires_at: Callable[[T], float | None] | None = None,
    ) -> T:
        """``key``'s answer from ``provider``: cached, or fetched (``fetch``) and kept for
        the TTL or until ``expires_at`` of it (a time already past: not kept)."""
        cached = self.cache.get(provider, key) if not fresh else None
        if isinstance(cached, dict) and "value" in cached:
            try:
                return load(cached["value"])
            except (KeyError, TypeError, ValueError):
                pass  # an entry of another shape (an older version's): asked again
        if deadline is not None and time.monotonic() >= deadline:
            raise Failed(provider, OUT_OF_TIME)
        try:
            value = self.providers[provider].call(fetch, endpoint=endpoint, deadline=deadline)
        except RateLimited as limited:
            raise Failed(provider, "rate limited", self._keep_limit(provider, limited)) from limited
        except Unavailable as error:
            raise Failed(provider, error.reason) from error
        except (Transient, ValueError, OSError) as error:
            raise Failed(provider, str(error) or type(error).__name__) from error
        until = expires_at(value) if expires_at else None
        if until is None or until > time.time():
            self.cache.put(provider, key, {"value": dump(value)}, expires_at=until)
        return value

    # --- one lookup per provider kind ---------------------------------------------------

    def dns_lookup(self, domain: str, fresh: bool = False, deadline: float | None = None) -> DnsFindings:  # fmt: skip
        return self._cached("dns", domain, lambda: self.dns.lookup(domain), DnsFindings.to_json,
                            DnsFindings.from_json, fresh=fresh, deadline=deadline)  # fmt: skip

    def blocklist(self, domain: str, fresh: bool = False, deadline: float | None = None) -> BlocklistFindings:  # fmt: skip
        def expires(found: BlocklistFindings) -> float | None:
            retry = found.recheck_at()  # a zone that did not answer is asked again then
            return dt.datetime.fromisoformat(retry).timestamp() if retry else None

        return self._cached(
            "blocklist", domain,
            lambda: blocklists.check(self.dns, domain, self.config.blocklist_zones),
            BlocklistFindings.to_json, BlocklistFindings.from_json, fresh=fresh,
            deadline=deadline, expires_at=expires,
        )  # fmt: skip

    def _rdap_base(self, domain: str, deadline: float | None) -> str:
        """The RDAP service for ``domain``: .au's configured one, else the IANA bootstrap's
        (fetched once a TTL, its shape checked: rdap.services)."""
        au_url = self.config.rdap_au_url
        if domain.endswith(".au"):
            return au_url
        known = self._rdap_services
        if known is None or time.monotonic() - known[0] > self.config.cache_ttl_seconds:
            url = self.config.rdap_bootstrap_url
            services = self._cached(
                "rdap", f"services {url}",
                lambda: rdap.services(get_json("rdap", url, timeout=self.config.http_timeout,
                                               deadline=deadline, guard=self.config.guard,
                                               ca_bundle=self.config.ca_bundle)),
                lambda v: v, rdap.services_from_json, endpoint=origin(url), deadline=deadline,
            )  # fmt: skip
            self._rdap_services = known = (time.monotonic(), services)
        base = rdap.base_url(known[1], domain, au_url)
        if base is None:
            raise Failed("rdap", f"no RDAP service for {domain} in the IANA bootstrap")
        return base

    def rdap_lookup(self, domain: str, fresh: bool = False, deadline: float | None = None) -> RdapFindings:  # fmt: skip
        c = self.config
        cached = None if fresh else self.cache.get("rdap", domain)
        if isinstance(cached, dict) and "value" in cached:  # no bootstrap needed
            try:
                return RdapFindings.from_json(cached["value"])
            except (KeyError, TypeError, ValueError):
                pass
        base = self._rdap_base(domain, deadline)
        return self._cached(
            "rdap", domain,
            lambda: rdap.lookup(domain, base, timeout=c.http_timeout, deadline=deadline,
                                guard=c.guard, ca_bundle=c.ca_bundle),
            RdapFindings.to_json, RdapFindings.from_json, fresh=True, endpoint=origin(base),
            deadline=deadline,
        )  # fmt: skip

    def ct_lookup(self, domain: str, fresh: bool = False, deadline: float | None = None) -> CtFindings:  # fmt: skip
        c = self.config
        url = c.ct_url.replace("{domain}", domain)
        return self._cached(
            "ct", domain,
            lambda: ct.lookup(domain, url_template=c.ct_url, timeout=c.http_timeout,
                              deadline=deadline, guard=c.guard, ca_bundle=c.ca_bundle),
            CtFindings.to_json, CtFindings.from_json, fresh=fresh, endpoint=origin(url),
            deadline=deadline,
        )  # fmt: skip

    def _resolve(self, host: str, deadline: float | None = None) -> list[str] | None:
        try:
            return self.providers["dns"].call(lambda: self.dns.addresses(host), deadline=deadline)
        except (Unavailable, RateLimited):
            return None

    def site(self, domain: str, found: DnsFindings | None, fresh: bool = False,
             deadline: float | None = None) -> SiteFindings:  # fmt: skip
        """The site at ``domain``; ``found`` (its DNS lookup) gives the addresses and name
        servers, so only a redirect to another host is resolved again. A site not seen for
        a reason that may pass (``temporary``) is not kept: the next check asks again."""
        c = self.config

        def resolve(host: str) -> list[str] | None:
            if found is not None and host == domain:
                return found.addresses if found.exists else None
            return self._resolve(host, deadline)

        return self._cached(
            "web", domain,
            lambda: web.fetch(domain, resolve, nameservers=found.ns if found else [],
                              timeout=c.http_timeout, guard=c.guard, deadline=deadline,
                              https_port=c.https_port, http_port=c.http_port,
                              ca_bundle=c.ca_bundle),
            SiteFindings.to_json, SiteFindings.from_json, fresh=fresh, deadline=deadline,
            expires_at=lambda s: 0.0 if s.temporary else None,
        )  # fmt: skip

    def keyed(self, kind: str, query: dict[str, str], fresh: bool = False,
              deadline: float | None = None) -> dict[str, Any]:  # fmt: skip
        endpoint = {"scam_rating": self.config.scam_rating, "phone": self.config.phone,
                    "street_view": self.config.street_view}[kind]  # fmt: skip
        assert endpoint is not None
        key = "&".join(f"{k}={v}" for k, v in sorted(query.items()))
        parse = PARSERS[kind]
        return self._cached(
            kind, key,
            lambda: parse(ask(endpoint, query, timeout=self.config.http_timeout,
                              deadline=deadline, guard=self.config.guard,
                              ca_bundle=self.config.ca_bundle)),
            lambda v: v, parse, fresh=fresh, endpoint=origin(endpoint.url), deadline=deadline,
        )  # fmt: skip

    # --- a domain, an entity --------------------------------------------------------------

    def check_domain(self, domain: str, fresh: bool = False) -> dict[str, Any]:
        """Every client's answer for one domain (``bvs live-check``; the bench)."""
        domain = clean_domain(domain)
        out: dict[str, Any] = {"domain": domain}
        why = self.offline()
        if why:
            out["not_run"] = why
            return out
        steps: list[tuple[str, Callable[[], Any]]] = [
            ("dns", lambda: self.dns_lookup(domain, fresh).to_json()),
            ("blocklists", lambda: self.blocklist(domain, fresh).to_json()),
            ("rdap", lambda: self.rdap_lookup(domain, fresh).to_json()),
            ("certificate_transparency", lambda: self.ct_lookup(domain, fresh).to_json()),
        ]
        for name, step in steps:
            out[name] = _step(step)
        dns_found = DnsFindings.from_json(out["dns"]) if "not_run" not in out["dns"] else None
        out["web"] = _step(lambda: self.site(domain, dns_found, fresh).to_json())
        return out

    def _find_site(self, f: Findings, fresh: bool, deadline: float | None = None) -> None:
        facts = f.facts
        if facts.domain:
            try:
                f.domain = clean_domain(facts.domain)
            except ValueError as error:
                f.web_not_run = str(error)
                return
            f.domain_source = facts.domain_source or "ledger"
            f.candidates = [f.domain]
            try:
                f.dns = self.dns_lookup(f.domain, fresh, deadline)
                f.site = self.site(f.domain, f.dns, fresh, deadline)
            except Failed as failed:
                f.web_not_run = f"web lookup of {f.domain} failed ({failed.reason})"
                return
            if f.site.refused:
                f.refused = f.site.refused
            return
        f.candidates = web.candidates(facts.trading_names, facts.legal_names)
        for candidate in f.candidates:
            if deadline is not None and time.monotonic() > deadline:
                f.web_not_run = f"the time for live checks ran out before {candidate} (of {len(f.candidates)} candidates)"
                return
            try:
                found = self.dns_lookup(candidate, fresh, deadline)
                if not found.exists:
                    continue
                site = self.site(candidate, found, fresh, deadline)
            except Failed as failed:
                f.web_not_run = f"web lookup of {candidate} failed ({failed.reason})"
                return
            if site.refused:
                continue  # a candidate pointing at a private address is not the entity's site
            if site.usable:
                f.domain, f.domain_source, f.site, f.dns = candidate, "web_presence", site, found
                return
            if site.live:
                f.parked_sites.append(site)
            elif site.temporary or site.refused_redirect:
                f.unseen.append(site)
        if f.unseen:  # no live site among those seen; the others may be the entity's
            unseen = "; ".join(f"{s.domain}: {s.error}" for s in f.unseen)
            f.web_not_run = f"no live site among the candidates seen, and {len(f.unseen)} could not be seen ({unseen})"

    def check_entity(
        self,
        facts: EntityFacts,
        *,
        fresh: bool = False,
        deadline: float | None = None,
    ) -> Findings:
        f = Findings(facts)
        f.off = self.offline()
        if f.off is None and deadline is not None and time.monotonic() > deadline:
            f.off = "the run's live-check budget ran out (BVS_LIVE_BUDGET_SECONDS); checked on the next run"
        if f.off:
            return f
        self._find_site(f, fresh, deadline)
        if f.domain and not f.refused:
            try:
                f.dns = f.dns or self.dns_lookup(f.domain, fresh, deadline)
            except Failed as failed:
                f.dns_error = failed.why
            try:
                f.blocklists = self.blocklist(f.domain, fresh, deadline)
            except Failed as failed:
                f.blocklist_error = failed.why
            try:
                f.rdap = self.rdap_lookup(f.domain, fresh, deadline)
            except Failed as failed:
                f.rdap_error, f.rdap_retry_at = failed.why, failed.retry_at
            try:
                f.ct = self.ct_lookup(f.domain, fresh, deadline)
            except Failed as failed:
                f.ct_error = failed.why
            if self.config.scam_rating is not None:
                try:
                    f.scam = self.keyed("scam_rating", {"domain": f.domain}, fresh, deadline)
                except Failed as failed:
                    f.scam_error, f.scam_retry_at = failed.why, failed.retry_at
        self._check_email(f, fresh, deadline)
        if self.config.review_platforms:
            query = {
                "abn": facts.abn,
                "name": (facts.trading_names or facts.legal_names or [""])[0],
            }
            if f.domain:
                query["domain"] = f.domain
            f.reviews = reviews(self.config.review_platforms, query, self.providers["reviews"],
                                timeout=self.config.review_timeout, deadline=deadline,
                                guard=self.config.guard, ca_bundle=self.config.ca_bundle)  # fmt: skip
        for kind, value in (("phone", facts.phone), ("street_view", facts.address)):
            if getattr(self.config, kind) is None:
                continue
            if not value:
                f.premium_errors[kind] = f"no {kind.replace('_', ' ')} input for the ABN"
                continue
            try:
                f.premium[kind] = self.keyed(
                    kind, {"abn": facts.abn, "value": value}, fresh, deadline
                )
            except Failed as failed:
                f.premium_errors[kind] = failed.reason
                if failed.retry_at:
                    f.premium_retry[kind] = failed.retry_at
        return f

    def _check_email(self, f: Findings, fresh: bool, deadline: float | None = None) -> None:
        domain = email_domain(f.facts.email)
        if domain is None or domain == f.domain:
            f.email_dns, f.email_blocklists = f.dns, f.blocklists
            f.email_dns_error, f.email_blocklist_error = f.dns_error, f.blocklist_error
            return
        # DNS questions only: nothing connects to the e-mail domain's addresses
        try:
            f.email_dns = self.dns_lookup(domain, fresh, deadline)
        except Failed as failed:
            f.email_dns_error = failed.why
        try:
            f.email_blocklists = self.blocklist(domain, fresh, deadline)
        except Failed as failed:
            f.email_blocklist_error = failed.why

    def tiles(self, facts: EntityFacts, as_of: dt.date, **kwargs: Any) -> dict[str, Tile]:
        return entity_tiles(self, facts, as_of, **kwargs)


def entity_tiles(checker: LiveChecker, facts: EntityFacts, as_of: dt.date, **kwargs: Any) -> dict[str, Tile]:  # fmt: skip
    """``facts``' live tiles. A check that fails in a way nothing above foresaw gives every
    live tile N/A with the error, logged with its traceback: one entity never stops a
    pipeline run or a verify."""
    try:
        return live_tiles(checker.check_entity(facts, **kwargs), as_of)
    except Exception as error:
        log.exception("live check of ABN %s failed", facts.abn)
        why = f"the live check failed ({type(error).__name__}: {error})"
        return {check: not_run(why) for check in LIVE_CHECKS}


def _step(step: Callable[[], Any]) -> dict[str, Any]:
    """One client's answer for ``bvs live-check``, or why there is none."""
    try:
        return dict(step())
    except Failed as failed:
        return {"not_run": failed.reason, "retry_at": failed.retry_at}
    except Exception as error:  # shown to the person debugging, not raised at them
        log.exception("live-check step failed")
        return {"not_run": f"the lookup failed ({type(error).__name__}: {error})"}


def _iso(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
