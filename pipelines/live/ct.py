"""Certificate transparency: total certificates, earliest, subdomain certificates.

Into the domain tile's detail; it corroborates the domain's age (SPEC 3.3). The search
service answers a crt.sh-style JSON list (``id``, ``not_before``, ``name_value`` with the
certificate's names one per line).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def summarise(domain: str, entries: list[dict[str, Any]]) -> CtFindings:
    own = {domain, f"www.{domain}", f"*.{domain}"}
    seen: set[Any] = set()
    earliest: str | None = None
    sub_certs = 0
    subdomains: set[str] = set()
    for entry in entries:
        key = entry.get("id") or entry.get("serial_number") or id(entry)
        if key in seen:
            continue
        seen.add(key)
        not_before = str(entry.get("not_before") or "")[:10] or None
        if not_before and (earliest is None or not_before < earliest):
            earliest = not_before
        names = {n.strip().lower() for n in str(entry.get("name_value") or "").splitlines()}
        others = {n for n in names if n.endswith("." + domain) and n not in own}
        if others:
            sub_certs += 1
            subdomains.update(others)
    return CtFindings(domain, len(seen), earliest, sub_certs, sorted(subdomains)[:20])


def lookup(domain: str, *, url_template: str, timeout: float, ca_bundle: Path | None) -> CtFindings:
    answer = get_json("ct", url_template.replace("{domain}", domain), timeout=timeout,
                      ca_bundle=ca_bundle)  # fmt: skip
    entries = answer if isinstance(answer, list) else []
    return summarise(domain, entries)
