"""RDAP: a domain's registration date (docs/rules.md "WHOIS and domain age").

The registry's RDAP service comes from the IANA bootstrap file (RFC 9224), except for .au,
whose registry's service is configured (``BVS_LIVE_RDAP_AU_URL``). The registration date is
the ``registration`` event; a record without it, or whose RFC 9537 ``redacted`` list names
it, has an unknown age (WARN, docs/rules.md). The answer's shape is checked before a field is
read (shape.py): an answer that is not an RDAP object, ``events`` that is not a list of
objects, a registration date that is not a date, is a ValueError with that reason.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.live import shape
from pipelines.live.guard import Guard
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


def services(bootstrap: Any) -> dict[str, str]:
    """Label suffix -> RDAP base URL (https preferred) of an IANA bootstrap file, its shape
    checked (RFC 9224: ``services`` of [[suffixes], [URLs]])."""
    what = "the IANA bootstrap file"
    found: dict[str, str] = {}
    entries = shape.array(shape.obj(bootstrap, what).get("services"), f"{what}'s 'services'")
    for i, service in enumerate(entries):
        entry = shape.array(service, f"{what}'s services[{i}]")
        if len(entry) < 2:
            raise ValueError(f"{what}'s services[{i}] has no URLs")
        suffixes = shape.array(entry[0], f"{what}'s services[{i}][0]")
        urls = [u for u in shape.array(entry[1], f"{what}'s services[{i}][1]")
                if isinstance(u, str) and u.startswith(("https://", "http://"))]  # fmt: skip
        if not urls:
            continue
        https = [u for u in urls if u.startswith("https://")]
        for suffix in suffixes:
            key = str(shape.text(suffix, f"{what}'s services[{i}][0]")).lower().strip(".")
            found.setdefault(key, (https or urls)[0])
    return found


def services_from_json(value: Any) -> dict[str, str]:
    """``services``' result as the cache keeps it, its shape checked again."""
    known = shape.obj(value, "the kept RDAP services")
    for suffix, url in known.items():
        shape.text(url, f"the RDAP service of {suffix!r}", optional=False)
    return known


def base_url(known: dict[str, str], domain: str, au_url: str) -> str | None:
    """The RDAP base URL serving ``domain``: the longest matching label suffix of ``known``
    (``services``) wins; .au is the .au registry's."""
    labels = domain.lower().rstrip(".").split(".")
    if labels[-1] == "au":
        return au_url
    for i in range(len(labels)):
        found = known.get(".".join(labels[i:]))
        if found is not None:
            return found
    return None


def url(base: str, domain: str) -> str:
    return base.rstrip("/") + "/domain/" + domain


_DATE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})")


def _date(value: str) -> str:
    """The calendar date an RDAP ``eventDate`` (RFC 3339) starts with, as ISO text."""
    found = _DATE.match(value)
    try:
        if found is None:
            raise ValueError
        return dt.date(*(int(g) for g in found.groups())).isoformat()
    except ValueError:
        raise ValueError(f"the registration date {value[:40]!r} is not a date") from None


def _redacts_registration(record: dict[str, Any]) -> bool:
    items = record.get("redacted")
    for i, item in enumerate(shape.objects([] if items is None else items, "'redacted'")):
        name = shape.obj(item.get("name") or {}, f"'redacted'[{i}].name")
        words = (name.get("type"), name.get("description"), item.get("path"))
        text = " ".join(str(shape.text(w, f"'redacted'[{i}]") or "") for w in words).lower()
        if "registration" in text and ("date" in text or "event" in text):
            return True
    return False


def _registrar(record: dict[str, Any]) -> str | None:
    """The registrar's name (informative only: a jCard of any other shape gives None)."""
    entities = record.get("entities")
    for entity in entities if isinstance(entities, list) else []:
        if not isinstance(entity, dict) or "registrar" not in (entity.get("roles") or []):
            continue
        vcard = entity.get("vcardArray")
        if isinstance(vcard, list) and len(vcard) > 1 and isinstance(vcard[1], list):
            for item in vcard[1]:
                if (
                    isinstance(item, list)
                    and len(item) > 3
                    and item[0] == "fn"
                    and isinstance(item[3], str)
                ):
                    return item[3]
    return None


def parse(domain: str, record: Any, source: str) -> RdapFindings:
    """What an RDAP domain answer says; ValueError when it is not the shape RFC 9083 gives."""
    record = shape.obj(record, "the RDAP answer")
    events = record.get("events")
    registered = None
    for i, event in enumerate(shape.objects([] if events is None else events, "'events'")):
        action = shape.text(event.get("eventAction"), f"'events'[{i}].eventAction")
        when = shape.text(event.get("eventDate"), f"'events'[{i}].eventDate")
        if (action or "").lower() == "registration" and when:
            registered = _date(when)
            break
    redacted = registered is None or _redacts_registration(record)
    return RdapFindings(domain, True, None if redacted else registered, redacted,
                        _registrar(record), source)  # fmt: skip


def lookup(
    domain: str,
    base: str,
    *,
    timeout: float,
    deadline: float | None = None,
    guard: Guard | None = None,
    ca_bundle: Path | None = None,
) -> RdapFindings:
    """``domain``'s record at the RDAP service ``base`` (``base_url``)."""
    source = url(base, domain)
    record = get_json("rdap", source, timeout=timeout, deadline=deadline, guard=guard,
                      ca_bundle=ca_bundle, headers={"Accept": "application/rdap+json"})  # fmt: skip
    if record is None:
        return RdapFindings(domain, found=False, source=source)
    return parse(domain, record, source)
