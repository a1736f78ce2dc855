"""Certificate transparency: total certificates, earliest, subdomain certificates.

Into the domain tile's detail; it corroborates the domain's age (docs/rules.md). The search
service answers a crt.sh-style JSON list (``id``, ``not_before``, ``name_value`` with the
certificate's names one per line, ``serial_number`` and ``issuer_ca_id``). Certificates are
counted once each: a precertificate and its certificate (the same issuer and serial number)
are one. An answer of any other shape is a ValueError with the reason (shape.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.live import shape
from pipelines.live.guard import Guard
from pipelines.live.http import get_json


@dataclass
class CtFindings:
    domain: str
    certificates: int
    earliest: str | None
    subdomain_certificates: int
    subdomains: list[str]

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))  # flat fields: dataclasses.asdict's deep copy is slow

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> CtFindings:
        return cls(**value)


def _certificate(entry: dict[str, Any], i: int) -> tuple[Any, ...]:
    """What identifies a certificate: its issuer and serial number. A precertificate and
    the certificate issued from it are two log entries (two ids) of one certificate."""
    serial = shape.text(entry.get("serial_number"), f"entry {i}'s serial_number")
    if serial:
        issuer = entry.get("issuer_ca_id")
        if issuer is None:
            issuer = shape.text(entry.get("issuer_name"), f"entry {i}'s issuer_name")
        return ("serial", str(issuer), serial.lower().lstrip("0"))
    if entry.get("id") is not None:
        return ("id", str(entry["id"]))
    return ("entry", i)


def summarise(domain: str, entries: Any) -> CtFindings:
    """The certificates of ``entries`` (the search's answer, its shape checked: a list of
    objects whose ``not_before`` and ``name_value`` are strings)."""
    own = {domain, f"www.{domain}", f"*.{domain}"}
    seen: set[tuple[Any, ...]] = set()
    earliest: str | None = None
    sub_certs = 0
    subdomains: set[str] = set()
    for i, entry in enumerate(shape.objects(entries, "the certificate search's answer")):
        key = _certificate(entry, i)
        not_before = (shape.text(entry.get("not_before"), f"entry {i}'s not_before") or "")[:10]
        names_text = shape.text(entry.get("name_value"), f"entry {i}'s name_value") or ""
        if key in seen:
            continue
        seen.add(key)
        if not_before and (earliest is None or not_before < earliest):
            earliest = not_before
        names = {n.strip().lower() for n in names_text.splitlines()}
        others = {n for n in names if n.endswith("." + domain) and n not in own}
        if others:
            sub_certs += 1
            subdomains.update(others)
    return CtFindings(domain, len(seen), earliest, sub_certs, sorted(subdomains)[:20])


def lookup(domain: str, *, url_template: str, timeout: float, deadline: float | None = None,
           guard: Guard | None = None, ca_bundle: Path | None = None) -> CtFindings:  # fmt: skip
    answer = get_json("ct", url_template.replace("{domain}", domain), timeout=timeout,
                      deadline=deadline, guard=guard, ca_bundle=ca_bundle)  # fmt: skip
    return summarise(domain, [] if answer is None else answer)  # 404: no certificates
