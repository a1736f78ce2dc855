"""RDAP: a domain's registration date (SPEC 3.3 "WHOIS and domain age").

The registry's RDAP service comes from the IANA bootstrap file (RFC 9224), except for .au,
whose registry's service is configured (``BVS_LIVE_RDAP_AU_URL``). The registration date is
the ``registration`` event; a record without it, or whose RFC 9537 ``redacted`` list names
it, has an unknown age (WARN, SPEC 3.3).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.live.http import get_json


@dataclass
class RdapFindings:
    domain: str
    found: bool
    registered: str | None = None  # ISO date
    redacted: bool = False
    registrar: str | None = None
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))  # flat fields: dataclasses.asdict's deep copy is slow

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> RdapFindings:
        return cls(**value)


def base_url(bootstrap: dict[str, Any], domain: str, au_url: str) -> str | None:
    """The RDAP base URL serving ``domain``: the longest matching label suffix wins."""
    labels = domain.lower().rstrip(".").split(".")
    if labels[-1] == "au":
        return au_url
    best: tuple[int, str] | None = None
    for suffixes, urls in bootstrap.get("services", []):
        for suffix in suffixes:
            parts = suffix.lower().split(".")
            if labels[-len(parts) :] == parts and urls and (best is None or len(parts) > best[0]):
                https = [u for u in urls if u.startswith("https://")]
                best = (len(parts), (https or urls)[0])
    return None if best is None else best[1]


def _redacts_registration(record: dict[str, Any]) -> bool:
    for item in record.get("redacted") or []:
        name = item.get("name") or {}
        text = (
            f"{name.get('type', '')} {name.get('description', '')} {item.get('path', '')}".lower()
        )
        if "registration" in text and ("date" in text or "event" in text):
            return True
    return False


def parse(domain: str, record: dict[str, Any], source: str) -> RdapFindings:
    registered = None
    for event in record.get("events") or []:
        if str(event.get("eventAction", "")).lower() == "registration" and event.get("eventDate"):
            text = str(event["eventDate"]).strip()
            try:
                registered = (
                    dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
                )
            except ValueError:
                registered = None
            break
    registrar = None
    for entity in record.get("entities") or []:
        if "registrar" in (entity.get("roles") or []):
            vcard = entity.get("vcardArray") or [None, []]
            registrar = next((v[3] for v in vcard[1] if v and v[0] == "fn"), None)
    redacted = registered is None or _redacts_registration(record)
    return RdapFindings(domain, True, None if redacted else registered, redacted, registrar, source)


def lookup(
    domain: str,
    *,
    bootstrap: dict[str, Any],
    au_url: str,
    timeout: float,
    ca_bundle: Path | None,
) -> RdapFindings:
    base = base_url(bootstrap, domain, au_url)
    if base is None:
        raise ValueError(f"no RDAP service for {domain} in the IANA bootstrap")
    url = base.rstrip("/") + "/domain/" + domain
    record = get_json("rdap", url, timeout=timeout, ca_bundle=ca_bundle,
                      headers={"Accept": "application/rdap+json"})  # fmt: skip
    if record is None:
        return RdapFindings(domain, found=False, source=url)
    return parse(domain, record, url)
