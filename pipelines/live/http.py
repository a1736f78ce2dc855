"""HTTP(S) with urllib3 for every client: provider JSON calls and pinned site fetches.

``get_json`` maps a provider's answers: 429 (or 503 with Retry-After) is ``RateLimited``
with the time it gives, 5xx, timeouts and refused connections are ``Transient``, 404 is
None. ``pinned_pool`` lets the web check connect to the address it resolved and checked
(guard.py) while TLS still verifies the certificate for the domain's own name, so a name
cannot be re-resolved to a private address between the check and the connection.

urllib3 directly, not ``requests`` on top of it: requests' per-request work (preparing,
merging settings, its adapter) cost more CPU than the request itself (docs/live-checks.md,
"Measured"). No proxy or netrc from the environment is used (urllib3 reads none).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import ssl
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import certifi
import urllib3
from urllib3.util.ssl_ import create_urllib3_context

from pipelines.live.throttle import RateLimited, Transient

USER_AGENT = "bvs-live-check/1 (business verification)"
MAX_JSON_BYTES = 32 * 1024 * 1024
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_PROVIDER_REDIRECTS = 10

_contexts: dict[str | None, ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def tls_context(bundle: str | None) -> ssl.SSLContext:
    """A verifying TLS context trusting ``bundle`` (default: certifi's), made once: loading
    the bundle for every new connection costs more CPU than the TLS handshake."""
    with _contexts_lock:
        context = _contexts.get(bundle)
        if context is None:
            context = create_urllib3_context()
            context.verify_mode = ssl.CERT_REQUIRED
            if bundle and Path(bundle).is_dir():
                context.load_verify_locations(capath=bundle)
            else:
                context.load_verify_locations(cafile=bundle or certifi.where())
            _contexts[bundle] = context
        return context


_managers: dict[str | None, urllib3.PoolManager] = {}


# Idle connections kept per provider host: as many as calls may be in flight to it (its
# concurrency limit, at most this). Fewer, and every call above that many opened a new TLS
# connection and threw it away after one request (urllib3's non-blocking pool).
MAX_KEPT_CONNECTIONS = 256


def manager(ca_bundle: Path | None) -> urllib3.PoolManager:
    """One pool manager per trust bundle (thread-safe), keeping the connections to each
    provider's host for the next call."""
    bundle = str(ca_bundle) if ca_bundle else None
    with _contexts_lock:
        found = _managers.get(bundle)
    if found is None:
        found = urllib3.PoolManager(
            num_pools=32, maxsize=MAX_KEPT_CONNECTIONS, block=False, retries=False, cert_reqs="CERT_REQUIRED",
            ssl_context=tls_context(bundle), headers={"User-Agent": USER_AGENT},
        )  # fmt: skip
        with _contexts_lock:
            found = _managers.setdefault(bundle, found)
    return found


def pinned_pool(scheme: str, address: str, port: int, host: str, *, timeout: float,
                ca_bundle: Path | None) -> urllib3.HTTPConnectionPool:  # fmt: skip
    """A pool connecting to ``address`` whose TLS (SNI and the certificate check) is for
    ``host``: the web check's connection to the address it checked."""
    kwargs: dict[str, Any] = {
        "port": port, "maxsize": 1, "block": False, "retries": False,
        "timeout": urllib3.Timeout(connect=timeout, read=timeout),
        "headers": {"User-Agent": USER_AGENT},
    }  # fmt: skip
    if scheme == "https":
        return urllib3.HTTPSConnectionPool(
            address, server_hostname=host, assert_hostname=host, cert_reqs="CERT_REQUIRED",
            ssl_context=tls_context(str(ca_bundle) if ca_bundle else None), **kwargs,
        )  # fmt: skip
    return urllib3.HTTPConnectionPool(address, **kwargs)


def error_name(error: BaseException) -> str:
    """What failed, in the words the tiles have always used (requests' names)."""
    if isinstance(error, urllib3.exceptions.NewConnectionError):  # refused (a "timeout" subclass)
        return "ConnectionError"
    if isinstance(error, urllib3.exceptions.ConnectTimeoutError):
        return "ConnectTimeout"
    if isinstance(error, urllib3.exceptions.ReadTimeoutError):
        return "ReadTimeout"
    if isinstance(error, urllib3.exceptions.SSLError | ssl.SSLError):
        return "SSLError"
    if isinstance(error, urllib3.exceptions.HTTPError | ConnectionError):
        return "ConnectionError"
    return type(error).__name__


def retry_after(headers: Any, default: dt.timedelta) -> dt.datetime:
    """When a rate-limit answer (its ``headers``) says to ask again."""
    now = dt.datetime.now(dt.UTC)
    value = headers.get("Retry-After")
    if value:
        if value.strip().isdigit():
            return now + dt.timedelta(seconds=int(value.strip()))
        try:
            when = email.utils.parsedate_to_datetime(value)
            return when.astimezone(dt.UTC)
        except (TypeError, ValueError):
            pass
    return now + default


def get_json(
    provider: str,
    url: str,
    *,
    timeout: float,
    ca_bundle: Path | None = None,
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
) -> Any | None:
    """The JSON answer of ``url``; None on 404."""
    if params:
        url = f"{url}{'&' if '?' in url else '?'}{urlencode(params)}"
    for hop in range(MAX_PROVIDER_REDIRECTS + 1):
        try:
            response = manager(ca_bundle).request(
                "GET", url, headers={"User-Agent": USER_AGENT, **(headers or {})},
                timeout=urllib3.Timeout(connect=timeout, read=timeout), redirect=False,
                preload_content=False,
            )  # fmt: skip
        except (urllib3.exceptions.HTTPError, OSError) as error:
            if error_name(error) in ("ConnectTimeout", "ReadTimeout"):
                raise Transient(f"{provider}: no answer within {timeout:g} s") from error
            raise Transient(f"{provider}: {error_name(error)}") from error
        location = response.headers.get("Location")
        if response.status not in REDIRECT_STATUSES or not location:
            break
        response.drain_conn()
        response.release_conn()
        url = urljoin(url, location)
        if urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"{provider}: redirect to {location!r}")
        if hop == MAX_PROVIDER_REDIRECTS:
            raise ValueError(f"{provider}: more than {MAX_PROVIDER_REDIRECTS} redirects")
    try:
        if response.status == 429 or (response.status == 503 and "Retry-After" in response.headers):
            raise RateLimited(provider, retry_after(response.headers, dt.timedelta(minutes=15)))
        if response.status == 404:
            return None
        if response.status >= 500:
            raise Transient(f"{provider}: HTTP {response.status}")
        if response.status >= 400:
            raise ValueError(f"{provider}: HTTP {response.status}")
        try:
            body = response.read(MAX_JSON_BYTES + 1, decode_content=True)
        except urllib3.exceptions.TimeoutError as error:
            raise Transient(f"{provider}: no answer within {timeout:g} s") from error
        except urllib3.exceptions.HTTPError as error:
            raise Transient(f"{provider}: {error_name(error)}") from error
        if len(body) > MAX_JSON_BYTES:
            raise ValueError(f"{provider}: answer larger than {MAX_JSON_BYTES} bytes")
    finally:
        response.release_conn()
    try:
        return json.loads(body)
    except ValueError as error:
        raise ValueError(f"{provider}: the answer is not JSON") from error
