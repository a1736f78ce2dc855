"""The live checks' outcome rules: one case per docs/rules.md row, in the SPEC's words.

Each function takes what the clients found (``findings.Findings``) and returns a ``Tile``:
status, the rule row that decided ("condition => STATUS", as the dbt rules write them),
the evidence, and ``rate_limited`` when a provider's rate-limit answer kept the check from
running (docs/ledgers.md: the tile shows a countdown to ``retry_at``; N/A leaves the score).
The first row that holds decides, as in ``check_rule`` (dbt). A check that did not run
(turned off, provider not configured, failed) is N/A with a reason starting "Not run"
(docs/decisions/18-a-check-that-did-not-run-is-unknown.md). Rows marked "(decided)" settle a case docs/rules.md leaves open
(docs/live-checks.md).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pipelines.live.findings import Findings
from pipelines.live.web import THIN_TEXT_CHARS

LIVE_CHECKS = (
    "domain", "email", "trust", "web_presence", "social", "customer_reviews", "phone",
    "street_view",
)  # fmt: skip

# Free e-mail providers: an address there is not a business domain (docs/rules.md e-mail rows).
FREE_EMAIL_PROVIDERS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "outlook.com.au", "hotmail.com",
    "hotmail.com.au", "live.com", "live.com.au", "msn.com", "yahoo.com", "yahoo.com.au",
    "ymail.com", "rocketmail.com", "icloud.com", "me.com", "mac.com", "aol.com",
    "bigpond.com", "bigpond.com.au", "bigpond.net.au", "telstra.com", "optusnet.com.au",
    "iinet.net.au", "tpg.com.au", "internode.on.net", "westnet.com.au", "dodo.com.au",
    "adam.com.au", "ozemail.com.au", "protonmail.com", "proton.me", "pm.me", "gmx.com",
    "gmx.net", "mail.com", "zoho.com", "zohomail.com", "fastmail.com", "fastmail.fm",
    "yandex.com", "tutanota.com", "hey.com", "qq.com", "163.com",
})  # fmt: skip


@dataclass
class Tile:
    status: str
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)
    rate_limited: str | None = None  # retry_at, ISO 8601 UTC

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "reason": self.reason, "detail": self.detail}
        if self.rate_limited:
            out["rate_limited"] = {"retry_at": self.rate_limited}
        return out


def tile(row: str, detail: dict[str, Any] | None = None, rate_limited: str | None = None) -> Tile:
    """The tile a rule row decides: its status is the word after "=>"."""
    status = row.rsplit("=>", 1)[1].split()[0]
    assert status in ("PASS", "WARN", "FAIL", "N/A"), row
    return Tile(status, row, detail or {}, rate_limited)


def not_run(why: str, detail: dict[str, Any] | None = None, retry_at: str | None = None) -> Tile:
    return tile(f"Not run: {why} => N/A", detail, retry_at)


def refused_tile(f: Findings) -> Tile:
    """A domain (a user's override included) that resolves to a non-public address: the
    checks do not connect to it (docs/live-checks.md, "Safety"), and the tile says so. The
    detail keeps the domain and where it came from: the next check (``bvs verify --live``)
    checks the same domain, not the name-based candidates."""
    return not_run(f"the domain resolves to a private, loopback or link-local address: refused ({f.refused})",
                   {"domain": f.domain, "domain_source": f.domain_source, "refused": f.refused})  # fmt: skip


def months_before(day: dt.date, months: int) -> dt.date:
    """The calendar date ``months`` months before ``day`` (docs/decisions/09-ages.md)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    month += 1
    for d in (day.day, 30, 29, 28):
        try:
            return dt.date(year, month, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def email_domain(address: str | None) -> str | None:
    if not address or "@" not in address:
        return None
    return address.rsplit("@", 1)[1].strip().lower().rstrip(".") or None


# --- WHOIS and domain age ---------------------------------------------------------------


def domain_tile(f: Findings, as_of: dt.date) -> Tile:
    if f.off:
        return not_run(f.off)
    if f.refused:
        return refused_tile(f)
    if f.domain is None:
        if f.web_not_run:
            return not_run(f.web_not_run)
        if f.facts.is_individual:
            return tile("Sole trader with no domain => N/A", {"candidates": f.candidates})
        return tile("No domain found (no live site among the candidate domains) => N/A (decided)",
                    {"candidates": f.candidates})  # fmt: skip
    detail: dict[str, Any] = {"domain": f.domain, "domain_source": f.domain_source}
    if f.ct is not None:
        detail["certificate_transparency"] = f.ct.to_json()
    elif f.ct_error:
        detail["certificate_transparency"] = {"not_run": f.ct_error}
    if f.blocklists is not None:
        detail["blocklists"] = f.blocklists.to_json()
    if f.dns is not None:
        detail.update(spf=f.dns.spf is not None, dmarc=f.dns.dmarc is not None)
    if f.blocklists is not None and f.blocklists.listed:
        return tile("Domain on a fraud or spam blocklist => FAIL", detail)
    if f.rdap is None:
        if f.rdap_retry_at:
            return not_run(
                "the registry's RDAP service is rate limiting us", detail, f.rdap_retry_at
            )
        return not_run(f"the RDAP lookup failed ({f.rdap_error})", detail)
    detail["rdap"] = f.rdap.to_json()
    if not f.rdap.found:
        return tile("Domain not found in the registry's RDAP => WARN (decided)", detail)
    if f.rdap.redacted or f.rdap.registered is None:
        return tile("Creation date redacted (unknown age) => WARN", detail)
    if f.dns is None:
        return not_run(f"the DNS lookup failed ({f.dns_error})", detail)
    registered = dt.date.fromisoformat(f.rdap.registered)
    abn_registered = f.facts.abn_registered
    detail["registered"] = registered.isoformat()
    detail["abn_registered"] = abn_registered.isoformat() if abn_registered else None
    # docs/rules.md lists the rows by age; "Registered after the ABN registration date => FAIL"
    # is read as the parenthetical of the under-6-months row ("WARN (FAIL if registered after
    # the ABN)"): applied to every age it would fail nearly every business whose website is
    # younger than its ABN (decided, docs/live-checks.md).
    if registered > months_before(as_of, 3):
        return tile("Age under 3 months => FAIL", detail)
    if registered > months_before(as_of, 6):
        if abn_registered is not None and registered > abn_registered:
            return tile(
                "Age under 6 months, registered after the ABN registration date => FAIL", detail
            )
        return tile("Age under 6 months => WARN", detail)
    dmarc, spf = f.dns.dmarc is not None, f.dns.spf is not None
    if registered <= months_before(as_of, 24):
        if dmarc and spf:
            return tile("Age 2 years or more, DMARC present, SPF present => PASS", detail)
        return tile("Age 2 years or more, DMARC or SPF absent => WARN (decided)", detail)
    if dmarc:
        return tile("Age 6 months to 2 years, DMARC present => PASS", detail)
    return tile("Age 6 months to 2 years, DMARC absent => WARN", detail)


# --- E-mail validation ------------------------------------------------------------------


def email_tile(f: Findings) -> Tile:
    if f.off:
        return not_run(f.off)
    if f.refused and not f.facts.email:
        return refused_tile(f)
    domain = email_domain(f.facts.email) or f.domain
    if domain is None:
        if f.web_not_run:
            return not_run(f.web_not_run)
        return tile("No e-mail address or domain to check => N/A (decided)")
    detail: dict[str, Any] = {"domain": domain, "address": f.facts.email}
    if domain in FREE_EMAIL_PROVIDERS:
        return tile("Free e-mail provider => WARN", detail)
    dns_found = f.email_dns
    if dns_found is None:
        return not_run(f"the DNS lookup failed ({f.email_dns_error})", detail)
    detail.update(mx=dns_found.mx, spf=dns_found.spf, dmarc=dns_found.dmarc)
    listed = f.email_blocklists.listed if f.email_blocklists is not None else {}
    if f.email_blocklists is not None:
        detail["blocklists"] = f.email_blocklists.to_json()
        unknown = f.email_blocklists.none_checked()
    elif f.email_blocklist_error:
        unknown = f"blocklist lookups failed ({f.email_blocklist_error})"
    else:  # the domain was not looked up (refused)
        unknown = "blocklists not looked up"
    # "not blocklisted" is unknown: no PASS on it (decided, docs/decisions/18-a-check-that-did-not-run-is-unknown.md)
    if unknown:
        detail["blocklists_not_checked"] = unknown
    if listed:
        return tile("Domain on a spam or phishing blocklist => FAIL", detail)
    if not dns_found.mx:
        return tile("No MX records => FAIL", detail)
    if dns_found.dmarc is None:
        return tile("Business domain, MX valid, DMARC absent => WARN", detail)
    if dns_found.spf is None:
        return tile(
            "Business domain, MX valid, DMARC present, SPF absent => WARN (decided)", detail
        )
    if unknown:
        retry_at = f.email_blocklists.retry_at() if f.email_blocklists is not None else None
        return not_run(f"{unknown}; MX, SPF and DMARC present (PASS needs \"not blocklisted\")",
                       detail, retry_at)  # fmt: skip
    return tile("Business domain, MX valid, SPF and DMARC present, not blocklisted => PASS", detail)


# --- Trust and reputation ---------------------------------------------------------------


def trust_tile(f: Findings) -> Tile:
    if f.off:
        return not_run(f.off)
    if f.refused:
        return refused_tile(f)
    if f.domain is None:
        if f.web_not_run:
            return not_run(f.web_not_run)
        return tile(
            "No domain to check against blocklists and the scam-rating service => N/A (decided)"
        )
    detail: dict[str, Any] = {"domain": f.domain}
    if f.blocklists is None:
        return not_run(f"the blocklist lookups failed ({f.blocklist_error})", detail)
    detail["blocklists"] = f.blocklists.to_json()
    if f.scam is not None:
        detail["scam_rating"] = f.scam
    if f.blocklists.listed:
        return tile("Active blocklist listing => FAIL", detail)
    score = None if f.scam is None else f.scam.get("score")
    if score is not None and float(score) < 30:
        return tile("Scam rating below 30 => FAIL", detail)
    if score is not None and float(score) < 60:
        return tile("One minor flag, or scam rating (scale 1-100) below 60 => WARN", detail)
    flags = len(f.scam.get("flags") or []) if f.scam is not None else 0
    if flags == 1:
        return tile("One minor flag, or scam rating (scale 1-100) below 60 => WARN", detail)
    if flags > 1:
        # more than "one minor flag" is not clean; the FAIL rows are a listing and a rating
        # below 30, which the service gives when its flags are grave (decided)
        return tile("Two or more flags from the scam-rating service => WARN (decided)", detail)
    unknown = f.blocklists.unknown()  # a zone that did not answer, or none configured
    if unknown:
        # rate-limit answers never count as a listing (docs/rules.md), nor as clean
        return not_run(f"{unknown}; no listing found", detail, f.blocklists.retry_at())
    if f.scam is None:
        why = (
            f"the scam rating failed ({f.scam_error})"
            if f.scam_error
            else "scam-rating provider not configured"
        )
        return not_run(f"{why}; clean on all blocklists (PASS needs the scam rating too)",
                       detail, f.scam_retry_at)  # fmt: skip
    return tile("Clean on all blocklists and the scam-rating service => PASS", detail)


# --- Web presence -----------------------------------------------------------------------


def web_presence_tile(f: Findings, as_of: dt.date) -> Tile:
    if f.off:
        return not_run(f.off)
    # the detail keeps a given domain and its source, for the next check to check again
    detail: dict[str, Any] = {"domain": f.domain, "domain_source": f.domain_source,
                              "candidates": f.candidates}  # fmt: skip
    if f.web_not_run:
        return not_run(f.web_not_run, detail)
    if f.refused:
        return refused_tile(f)
    site = f.site
    if site is None or not site.live:
        if f.facts.is_individual and f.domain_source is None:
            return tile("Sole trader with no domain => N/A", detail)
        if f.parked_sites:
            detail["parked"] = [s.to_json() for s in f.parked_sites]
            return tile("Parked or placeholder page => FAIL", detail)
        if site is not None:
            detail["site"] = site.to_json()
            if site.refused_redirect:
                return not_run(
                    f"the site of {site.domain} was not seen: {site.refused_redirect}", detail
                )
            if site.temporary:
                seen = site.error or f"HTTP {site.status}"
                return not_run(f"the site of {site.domain} could not be seen now ({seen})", detail)
        if f.domain_source is not None:  # a given domain, no search
            return tile(
                f"No site at the domain given ({f.domain_source}) => FAIL (decided)", detail
            )
        return tile(
            "No site found across all candidate domains (up to 16 patterns) => FAIL", detail
        )
    detail["site"] = site.to_json()
    if site.parked or site.placeholder:
        return tile("Parked or placeholder page => FAIL", detail)
    new = (
        f.rdap is not None and f.rdap.registered is not None
        and dt.date.fromisoformat(f.rdap.registered) > months_before(as_of, 6)
    )  # fmt: skip
    if not site.https:
        return tile("Live but new, thin content or HTTP only => WARN (HTTP only)", detail)
    if site.text_chars < THIN_TEXT_CHARS:
        return tile("Live but new, thin content or HTTP only => WARN (thin content)", detail)
    if new:
        return tile(
            "Live but new, thin content or HTTP only => WARN (domain under 6 months)", detail
        )
    return tile("Active site, HTTPS, established content (resolves, returns 200) => PASS", detail)


# --- Customer reviews, social, phone, street view -----------------------------------------


def customer_reviews_tile(f: Findings) -> Tile:
    if f.off:
        return not_run(f.off)
    if f.reviews is None:
        return not_run("review platforms not configured (provider not configured)")
    detail = {"platforms": [r.to_json() for r in f.reviews]}
    found = [r for r in f.reviews if r.found]
    if any(r.rating is not None and r.rating >= 4.0 and r.count >= 10 for r in found):
        return tile("Best source at least 4.0 stars with at least 10 reviews => PASS", detail)
    if found:
        return tile("Reviews found but below 4.0 stars or fewer than 10 reviews => WARN", detail)
    answered = [r for r in f.reviews if r.error is None]
    if not answered:
        retry = min((r.retry_at for r in f.reviews if r.retry_at), default=None)
        errors = "; ".join(f"{r.platform}: {r.error}" for r in f.reviews)
        return not_run(f"no review platform answered ({errors})", detail, retry)
    return tile("Not found => N/A", detail)


def social_tile(f: Findings) -> Tile:
    if f.off:
        return not_run(f.off)
    if f.facts.is_individual:
        return tile("Sole trader or micro-business => N/A")
    return not_run("social-profile provider not configured (provider not configured)")


def premium_tile(f: Findings, check_id: str) -> Tile:
    """Phone and street view: N/A "provider not configured" unless a provider answered."""
    if f.off:
        return not_run(f.off)
    answer = f.premium.get(check_id)
    if answer is None:
        why = (
            f.premium_errors.get(check_id)
            or f"{check_id.replace('_', ' ')} provider not configured"
        )
        return not_run(why, retry_at=f.premium_retry.get(check_id))
    if check_id == "phone":
        if not answer.get("connected"):
            return tile("Number not connected => FAIL (decided)", answer)
        if answer.get("business_confirmed"):
            return tile("Number answered, business confirmed => PASS (decided)", answer)
        return tile("Number answered, business not confirmed => WARN (decided)", answer)
    if not answer.get("found"):
        return tile("No building at the address => FAIL (decided)", answer)
    if answer.get("commercial"):
        return tile("Commercial premises at the address => PASS (decided)", answer)
    return tile("Residential or unclear premises at the address => WARN (decided)", answer)


def live_tiles(f: Findings, as_of: dt.date) -> dict[str, Tile]:
    return {
        "domain": domain_tile(f, as_of),
        "email": email_tile(f),
        "trust": trust_tile(f),
        "web_presence": web_presence_tile(f, as_of),
        "social": social_tile(f),
        "customer_reviews": customer_reviews_tile(f),
        "phone": premium_tile(f, "phone"),
        "street_view": premium_tile(f, "street_view"),
    }


# --- WARN_CLUSTER (docs/rules.md#risk-flags): the rule of macros/verification/scoring.sql ------------------


@dataclass(frozen=True)
class WarnClusterRule:
    """WARN_CLUSTER's parameters. Declared once, in dbt_project.yml (var ``warn_cluster``):
    dbt's scoring macros compile from it and ``marts.warn_cluster_rule`` publishes it in the
    snapshot, from where ``pipelines/serving/live.py`` reads it (``from_row``)."""

    min_warns: int
    cascade_checks: frozenset[str]

    @classmethod
    def from_row(cls, min_warns: int, cascade_checks: str) -> WarnClusterRule:
        checks = frozenset(c.strip() for c in cascade_checks.split(",") if c.strip())
        if min_warns < 1 or not checks:
            raise ValueError(f"not a WARN_CLUSTER rule: {min_warns!r}, {cascade_checks!r}")
        return cls(int(min_warns), checks)


def warn_cluster(
    tiles: Mapping[str, tuple[str, str | None]], rule: WarnClusterRule
) -> dict[str, Any] | None:
    """The flag's evidence when it fires, else None, as ``warn_cluster_columns`` and
    ``warn_cluster_fires`` of macros/verification/scoring.sql compute it. ``tiles``: check
    id -> (status, reason).

    ``rule.min_warns`` or more WARN tiles with no domain or no web presence; with no domain
    the WARNs of ``rule.cascade_checks`` are not counted. A check that did not run ("Not
    run") is unknown, not negative (docs/decisions/18-a-check-that-did-not-run-is-unknown.md).
    """

    def ran(check: str) -> bool:
        return not str(tiles.get(check, ("N/A", "Not run"))[1] or "").startswith("Not run")

    status = {c: s for c, (s, _) in tiles.items()}
    no_domain = status.get("domain") == "N/A" and ran("domain")
    no_web = status.get("web_presence") in ("N/A", "FAIL") and ran("web_presence")
    warns = sum(
        1 for c, s in status.items() if s == "WARN" and not (no_domain and c in rule.cascade_checks)
    )
    if (no_domain or no_web) and warns >= rule.min_warns:
        return {"warn_count": warns, "no_domain": no_domain, "no_web_presence": no_web}
    return None
