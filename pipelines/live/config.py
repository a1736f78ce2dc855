"""The live checks' settings, read once from ``Settings`` (``BVS_LIVE_*``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from pipelines.live.guard import Guard
from pipelines.live.throttle import DEFAULT_LIMITS, Limits
from pipelines.settings import Settings


class Secret:
    """A provider key: never shown by ``repr``/``str`` (logs), only sent to the provider."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__


@dataclass(frozen=True)
class Endpoint:
    """A keyed provider: where it answers and the key it wants (Bearer)."""

    name: str
    url: str
    key: Secret | None = None


@dataclass(frozen=True)
class LiveConfig:
    enabled: bool = True
    resolvers: tuple[tuple[str, int], ...] = ()  # empty: the system's
    dns_timeout: float = 2.0
    blocklist_zones: tuple[str, ...] = ()
    rdap_bootstrap_url: str = "https://data.iana.org/rdap/dns.json"
    rdap_au_url: str = "https://rdap.cctld.au/rdap/"
    ct_url: str = "https://crt.sh/?q=%25.{domain}&output=json"
    scam_rating: Endpoint | None = None
    review_platforms: tuple[Endpoint, ...] = ()
    phone: Endpoint | None = None
    street_view: Endpoint | None = None
    http_timeout: float = 5.0
    review_timeout: float = 6.0
    cache_path: Path | None = None
    cache_ttl_seconds: float = 86_400.0
    workers: int = 64
    processes: int = 1  # worker processes a pipeline run's checks are shared among
    limits: dict[str, Limits] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    probe_name: str = "iana.org"
    budget_seconds: float = 600.0
    allow_private: bool = False
    allow_networks: tuple[str, ...] = ()  # tests: networks the guard lets through
    https_port: int = 443
    http_port: int = 80
    ca_bundle: Path | None = None

    @property
    def guard(self) -> Guard:
        """Which addresses the checks may connect to (public ones; tests lift this)."""
        return Guard(self.allow_private, self.allow_networks)

    def with_(self, **changes: Any) -> LiveConfig:
        return replace(self, **changes)


def _endpoint(name: str, text: str | None) -> Endpoint | None:
    if not text:
        return None
    value = json.loads(text)
    if not isinstance(value, dict) or not value.get("url"):
        raise ValueError(f"BVS_LIVE_{name.upper()} must be a JSON object with a url")
    key = value.get("key")
    return Endpoint(str(value.get("name") or name), str(value["url"]), Secret(key) if key else None)


def parse_resolvers(text: str | None) -> tuple[tuple[str, int], ...]:
    out = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("["):  # [v6]:port
            host, _, port = item[1:].partition("]:")
            out.append((host.rstrip("]"), int(port or 53)))
        elif item.count(":") == 1:
            host, port = item.split(":")
            out.append((host, int(port)))
        else:
            out.append((item, 53))
    return tuple(out)


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None else None


def from_settings(settings: Settings) -> LiveConfig:
    limits = dict(DEFAULT_LIMITS)
    for name, given in json.loads(settings.live_provider_limits or "{}").items():
        limits[name] = replace(limits.get(name, Limits()), **given)
    reviews = json.loads(_secret(settings.live_review_platforms) or "[]")
    if not isinstance(reviews, list):
        raise ValueError("BVS_LIVE_REVIEW_PLATFORMS must be a JSON list of {name, url, key}")
    return LiveConfig(
        enabled=settings.live_checks,
        resolvers=parse_resolvers(settings.live_resolvers),
        dns_timeout=settings.live_dns_timeout,
        blocklist_zones=tuple(
            z.strip() for z in settings.live_blocklist_zones.split(",") if z.strip()
        ),
        rdap_bootstrap_url=settings.live_rdap_bootstrap_url,
        rdap_au_url=settings.live_rdap_au_url,
        ct_url=settings.live_ct_url,
        scam_rating=_endpoint("scam_rating", _secret(settings.live_scam_rating)),
        review_platforms=tuple(
            e for i, r in enumerate(reviews) if (e := _endpoint(f"review_{i}", json.dumps(r)))
        ),
        phone=_endpoint("phone_provider", _secret(settings.live_phone_provider)),
        street_view=_endpoint("street_view_provider", _secret(settings.live_street_view_provider)),
        http_timeout=settings.live_http_timeout,
        review_timeout=settings.live_review_timeout,
        cache_path=settings.live_cache,
        cache_ttl_seconds=settings.live_cache_ttl_hours * 3600.0,
        workers=settings.live_workers,
        processes=settings.live_processes,
        limits=limits,
        probe_name=settings.live_probe_name,
        budget_seconds=settings.live_budget_seconds,
        allow_private=settings.live_allow_private,
        https_port=settings.live_https_port,
        http_port=settings.live_http_port,
        ca_bundle=settings.live_ca_bundle,
    )
