"""Web presence (docs/rules.md): candidate domains, the site's HTTPS and status, parked pages.

Candidates come from the trading names, then the legal name, with legal suffixes and place
words removed, joined (and hyphenated when the name has several words) under .com.au,
.com, .au and .net.au, at most 16 (docs/live-checks.md). Each site is fetched over HTTPS, then HTTP,
from the address the DNS check resolved (public addresses only, guard.py), following at
most ``MAX_REDIRECTS`` redirects, each re-resolved and checked: a redirect to a non-public
address is refused and the site is not seen (``refused_redirect``), the domain itself is
checked as usual. Each scheme's attempt, its redirects and every read of them, ends
``timeout`` seconds after it starts and at the caller's deadline, however slowly the site
sends. A site not seen for a reason that may pass (a timeout, a dropped connection, a 5xx
answer) is ``temporary``: the tile is N/A with the reason, not "no site".

A page is parked when the domain's name servers are a known parking service's or the page
reads like a parking or domain-sale page; a placeholder when its title or main heading says
"coming soon" and the like or begins with a server's default page's name, or when a thin
page (under ``THIN_TEXT_CHARS`` of text) says so anywhere: a business page that mentions a
showroom "coming soon" is no placeholder. The first live non-parked candidate is the
entity's site.
"""

from __future__ import annotations

import email.message
import http.client
import re
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import urllib3

from pipelines.live.guard import Guard, RefusedAddress
from pipelines.live.http import (
    REDIRECT_STATUSES,
    USER_AGENT,
    error_name,
    is_timeout,
    pinned_pool,
    request_deadline,
)

TLDS = (".com.au", ".com", ".au", ".net.au")
MAX_CANDIDATES = 16
MAX_REDIRECTS = 5
MAX_BODY = 512 * 1024
# Visible text below this many characters is "thin content" (decided).
THIN_TEXT_CHARS = 400

LEGAL_SUFFIXES = {
    "pty", "ltd", "limited", "proprietary", "inc", "incorporated", "co", "company", "corp",
    "corporation", "plc", "llc", "nl", "trust", "trustee", "trustees", "the", "for", "as",
    "atf", "unit", "family", "partnership", "partners",
}  # fmt: skip
PLACE_WORDS = {
    "australia", "australian", "aust", "aus", "au", "qld", "nsw", "vic", "tas", "act", "nt",
    "wa", "sa", "queensland", "victoria", "tasmania", "new", "south", "wales", "western",
    "northern", "territory", "sydney", "melbourne", "brisbane", "perth", "adelaide", "hobart",
    "darwin", "canberra", "gold", "coast", "sunshine", "newcastle", "wollongong", "geelong",
    "townsville", "cairns", "toowoomba", "ballarat", "bendigo", "launceston", "mackay",
}  # fmt: skip

PARKING_NAMESERVERS = (
    "sedoparking.com", "parkingcrew.net", "bodis.com", "above.com", "parklogic.com",
    "dan.com", "afternic.com", "namebrightdns.com",
    "parking.reg.ru", "ztomy.com", "dsredirection.com", "fastpark.net", "voodoo.com",
    "uniregistrymarket.link", "park.do",
)  # fmt: skip
PARKED_SIGNATURES = (
    "this domain is for sale", "buy this domain", "domain is for sale", "domain may be for sale",
    "this domain is parked", "parked free", "parked domain", "domain parking", "sedoparking",
    "parkingcrew", "bodis", "make an offer on this domain", "the domain name is for sale",
    "related searches", "hugedomains", "get this domain", "purchase this domain",
    "own this domain", "acquire this domain", "lease this domain", "this domain is available",
    "domain name is available", "inquire about this domain", "interested in this domain",
)  # fmt: skip
# A placeholder's words: in the title or main heading, or anywhere on a thin page.
PLACEHOLDER_PHRASES = (
    "coming soon", "under construction", "launching soon", "future home of",
    "this site is currently unavailable", "account suspended", "web hosting control panel",
)  # fmt: skip
# A server's default page: its name begins the title, the main heading or a thin page's text.
DEFAULT_PAGES = (
    "welcome to nginx", "apache2 ubuntu default page", "apache2 debian default page",
    "it works!", "iis windows server", "default web site page", "index of /",
    "test page for the apache http server",
)  # fmt: skip
# A thin page naming a domain and a price: a domain-sale lander ("Get this domain ... $2,495").
_PRICE = re.compile(r"(?:[$€£]|\b(?:usd|aud|eur)\b)\s?\d[\d,.]*")
_HEADING = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.S | re.I)

_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]+>", re.S | re.I)
_SPACE = re.compile(r"\s+")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.S | re.I)


def _words(name: str) -> list[str]:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    text = text.replace("&", " and ").replace("'", "")
    text = re.sub(r"\(.*?\)", " ", text)  # "(QLD)", "(The Trustee for ...)"
    words = re.findall(r"[a-z0-9]+", text)
    return [w for w in words if w not in LEGAL_SUFFIXES and w not in PLACE_WORDS]


def candidates(trading_names: Iterable[str], legal_names: Iterable[str]) -> list[str]:
    """Up to 16 candidate domains, trading names first (docs/rules.md, docs/live-checks.md)."""
    labels: list[str] = []
    names = [*trading_names, *legal_names]
    for name in names:
        words = _words(name)
        if not words:
            continue
        labels.append("".join(words))
    for name in names:
        words = _words(name)
        if len(words) > 1:
            labels.append("-".join(words))
    out: list[str] = []
    for label in dict.fromkeys(labels):
        if len(label) > 63:
            continue
        for tld in TLDS:
            domain = label + tld
            if domain not in out:
                out.append(domain)
    return out[:MAX_CANDIDATES]


def visible_text(html: str) -> str:
    return _SPACE.sub(" ", _TAGS.sub(" ", html)).strip()


def _says(segment: str, phrase: str) -> bool:
    """``phrase`` in ``segment`` as whole words."""
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", segment) is not None


def _begins(segment: str, name: str) -> bool:
    return segment.lstrip(" \t-–—|:*#>").startswith(name)


def classify_page(html: str, nameservers: Iterable[str]) -> dict[str, Any]:
    text = visible_text(html).lower()
    title_match = _TITLE.search(html)
    title = _SPACE.sub(" ", title_match.group(1)).strip()[:200] if title_match else None
    heading_match = _HEADING.search(html)
    heading = visible_text(heading_match.group(1)).lower()[:200] if heading_match else ""
    thin = len(text) < THIN_TEXT_CHARS
    signals = [
        ns
        for ns in nameservers
        if any(ns == p or ns.endswith("." + p) for p in PARKING_NAMESERVERS)
    ]
    signals += [s for s in PARKED_SIGNATURES if s in text]
    if not signals and thin and "domain" in text and _PRICE.search(text):
        signals.append("a domain and a price")
    leads = [(title or "").lower(), heading]  # the page's title and main heading
    placeholder = [p for p in PLACEHOLDER_PHRASES
                   if any(_says(lead, p) for lead in leads) or (thin and _says(text, p))]  # fmt: skip
    placeholder += [p for p in DEFAULT_PAGES
                    if any(_begins(lead, p) for lead in (*leads, text if thin else ""))]  # fmt: skip
    return {
        "title": title,
        "text_chars": len(text),
        "parked": bool(signals),
        "placeholder": bool(placeholder) and not signals,
        "signals": signals + placeholder,
    }


@dataclass
class SiteFindings:
    domain: str
    live: bool = False
    https: bool = False
    status: int | None = None
    final_url: str | None = None
    redirects: int = 0
    title: str | None = None
    text_chars: int = 0
    parked: bool = False
    placeholder: bool = False
    signals: list[str] = field(default_factory=list)
    refused: str | None = None  # the domain's own address is not public: nothing connected
    refused_redirect: str | None = None  # a redirect to a non-public address, not followed
    temporary: bool = False  # not seen for a reason that may pass (timeout, 5xx)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))  # flat fields: dataclasses.asdict's deep copy is slow

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> SiteFindings:
        return cls(**value)

    @property
    def usable(self) -> bool:
        """Live (2xx) and neither parked nor a placeholder: the entity's site."""
        return self.live and not self.parked and not self.placeholder


Resolve = Callable[[str], list[str] | None]


Pools = dict[tuple[str, str, int, str], urllib3.HTTPConnectionPool]


def _get(url: str, host: str, address: str, port: int, scheme: str, until: float, guard: Guard,
         ca_bundle: Path | None, pools: Pools) -> urllib3.BaseHTTPResponse:  # fmt: skip
    key = (scheme, address, port, host)
    pool = pools.get(key)
    left = until - time.monotonic()
    if pool is None:
        pool = pools[key] = pinned_pool(scheme, address, port, host, timeout=max(left, 0.001),
                                        guard=guard, ca_bundle=ca_bundle)  # fmt: skip
    if left <= 0:
        raise urllib3.exceptions.ReadTimeoutError(pool, url, "the site's time ran out")
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default = 443 if scheme == "https" else 80
    host_header = host if port == default else f"{host}:{port}"
    return pool.urlopen(
        "GET", path,
        # one request per site: no connection kept open (memory stays flat over many sites)
        headers={"Host": host_header, "Connection": "close", "User-Agent": USER_AGENT},
        redirect=False, retries=False, preload_content=False, assert_same_host=False,
        timeout=urllib3.Timeout(connect=left, read=left),
    )  # fmt: skip


def charset(content_type: str | None) -> str:
    """The body's encoding from its Content-Type: its charset, else ISO-8859-1 for text/*
    (HTTP/1.1's default, as requests reads it), else UTF-8."""
    if not content_type:
        return "utf-8"
    message = email.message.Message()
    message["Content-Type"] = content_type
    found = message.get_content_charset()
    if found:
        return found.strip("'\"")
    return "ISO-8859-1" if message.get_content_maintype() == "text" else "utf-8"


def _dropped(error: urllib3.exceptions.HTTPError) -> bool:
    """The server closed the connection before answering: what a pooled connection gives
    when the server closed it after its last answer without saying ``Connection: close``."""
    cause = error.args[1] if isinstance(error, urllib3.exceptions.ProtocolError) and len(error.args) > 1 else None  # fmt: skip
    return isinstance(
        cause, http.client.RemoteDisconnected | ConnectionResetError | BrokenPipeError
    )


def _get_again_if_dropped(url: str, host: str, address: str, port: int, scheme: str,
                          until: float, guard: Guard, ca_bundle: Path | None,
                          pools: Pools) -> urllib3.BaseHTTPResponse:  # fmt: skip
    """``_get``, sent once more on a new connection if the first was dropped unanswered.

    Sites are asked for ``Connection: close``, but urllib3 pools a connection whose answer
    did not say so (Python's own http.server is one such server), and the next hop of a
    redirect chain to the same host is then written to a connection the server has closed.
    A GET is safe to send again, as browsers do in this case."""
    try:
        return _get(url, host, address, port, scheme, until, guard, ca_bundle, pools)
    except urllib3.exceptions.ProtocolError as error:
        if not _dropped(error):
            raise
    return _get(url, host, address, port, scheme, until, guard, ca_bundle, pools)


def _temporary(error: BaseException) -> bool:
    """A failure that may pass: a timeout, or a connection dropped before the answer."""
    return is_timeout(error) or isinstance(error, urllib3.exceptions.ProtocolError)


def fetch(
    domain: str,
    resolve: Resolve,
    *,
    nameservers: Iterable[str] = (),
    timeout: float,
    guard: Guard,
    deadline: float | None = None,
    https_port: int = 443,
    http_port: int = 80,
    ca_bundle: Path | None = None,
) -> SiteFindings:
    """The site at ``domain``: HTTPS first, then HTTP; redirects followed within the bound.
    Each scheme has ``timeout`` seconds; nothing runs past ``deadline`` (``time.monotonic``)."""
    found = SiteFindings(domain)
    addresses = resolve(domain)
    if not addresses:
        found.error = "the domain does not resolve"
        return found
    try:
        guard.check(domain, addresses)
    except RefusedAddress as refused:
        found.refused = str(refused)
        return found
    pools: Pools = {}
    try:
        return _fetch(domain, addresses, resolve, nameservers, found, pools, timeout=timeout,
                      guard=guard, deadline=deadline, https_port=https_port,
                      http_port=http_port, ca_bundle=ca_bundle)  # fmt: skip
    finally:
        for pool in pools.values():
            pool.close()


def _fetch(domain: str, addresses: list[str], resolve: Resolve, nameservers: Iterable[str],
           found: SiteFindings, pools: Pools, *, timeout: float, guard: Guard,
           deadline: float | None, https_port: int, http_port: int,
           ca_bundle: Path | None) -> SiteFindings:  # fmt: skip
    errors: list[str] = []
    first: SiteFindings | None = None
    temporary = False
    refused_redirect: str | None = None
    for scheme, port in (("https", https_port), ("http", http_port)):
        if first is not None and first.live:
            break
        started = time.monotonic()
        until = started + timeout if deadline is None else min(started + timeout, deadline)
        if until <= started:
            errors.append(f"{scheme}: not tried, the time for live checks ran out")
            temporary = True
            continue
        host, url, hops = domain, f"{scheme}://{domain}/", 0
        address = addresses[0]
        try:
            with request_deadline(until):
                while True:
                    response = _get_again_if_dropped(url, host, address, port, scheme, until,
                                                     guard, ca_bundle, pools)  # fmt: skip
                    try:
                        location = response.headers.get("Location")
                        if (
                            response.status in REDIRECT_STATUSES
                            and location
                            and hops < MAX_REDIRECTS
                        ):
                            hops += 1
                            nxt = urlsplit(urljoin(url, location))
                            if nxt.scheme not in ("http", "https") or not nxt.hostname:
                                raise ValueError(f"redirect to {location!r}")
                            if nxt.scheme != scheme:
                                scheme = nxt.scheme
                                port = https_port if scheme == "https" else http_port
                            if nxt.hostname != host:
                                host = nxt.hostname
                                new = resolve(host)
                                if not new:
                                    raise ValueError(f"redirect to {host}, which does not resolve")
                                guard.check(host, new)
                                address = new[0]
                            url = nxt.geturl()
                            continue
                        body = response.read(MAX_BODY, decode_content=True)
                        encoding = charset(response.headers.get("Content-Type"))
                        try:
                            html = body.decode(encoding, "replace")
                        except LookupError:  # a charset Python does not know
                            html = body.decode("utf-8", "replace")
                        answer = SiteFindings(domain, status=response.status, final_url=url,
                                              redirects=hops, https=scheme == "https")  # fmt: skip
                        answer.live = 200 <= response.status < 300
                        if answer.live:
                            answer.__dict__.update(classify_page(html, nameservers))
                        elif response.status >= 500:
                            temporary = True
                        # HTTPS that does not answer 2xx: the HTTP site may still be live
                        if first is None or answer.live:
                            first = answer
                        break
                    finally:
                        response.close()
                        response.release_conn()
        except RefusedAddress as refused:
            refused_redirect = f"the redirect to {refused.address} ({refused.domain}) was refused: a non-public address"  # fmt: skip
            errors.append(f"{scheme}: {refused_redirect}")
        except (urllib3.exceptions.HTTPError, ValueError, OSError) as error:
            after = f" after {hops} redirect(s)" if hops else ""
            errors.append(f"{scheme}: {error_name(error)}{after}")
            temporary = temporary or _temporary(error)
    out = first if first is not None else found
    if not out.live:
        out.temporary, out.refused_redirect = temporary, refused_redirect
        if errors:
            out.error = "; ".join(errors)
    return out
