"""HTTP(S) with ``requests`` for every client: provider JSON calls and pinned site fetches.

``get_json`` maps a provider's answers: 429 (or 503 with Retry-After) is ``RateLimited``
with the time it gives, 5xx, timeouts and refused connections are ``Transient``, 404 is
None. ``PinnedAdapter`` lets the web check connect to the address it resolved and checked
(guard.py) while TLS still verifies the certificate for the domain's own name, so a name
cannot be re-resolved to a private address between the check and the connection.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import ssl
import threading
from pathlib import Path
from typing import Any

import certifi
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.ssl_ import create_urllib3_context

from pipelines.live.throttle import RateLimited, Transient

USER_AGENT = "bvs-live-check/1 (business verification)"
MAX_JSON_BYTES = 32 * 1024 * 1024


class PinnedAdapter(HTTPAdapter):
    """Send to the URL's address, but verify TLS (and SNI) for the ``Host`` header's name."""

    def build_connection_pool_key_attributes(  # type: ignore[override]
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        name = str(request.headers.get("Host") or "").rsplit(":", 1)[0]
        if host_params["scheme"] == "https":
            if name:
                pool_kwargs["server_hostname"] = name
                pool_kwargs["assert_hostname"] = name
            if verify is not False:
                # one context per trust bundle: loading the bundle for every new connection
                # (urllib3's way with ``ca_certs``) costs more CPU than the TLS handshake
                bundle = pool_kwargs.pop("ca_certs", None) or pool_kwargs.pop("ca_cert_dir", None)
                pool_kwargs["ssl_context"] = tls_context(bundle)
        return host_params, pool_kwargs

    def cert_verify(self, conn: Any, url: str, verify: bool | str, cert: Any) -> None:
        """Verification stays on, from the pool's shared context: requests would also set
        the bundle on the pool, which urllib3 then loads into that context on every new
        connection."""
        super().cert_verify(conn, url, verify, cert)
        if url.lower().startswith("https") and verify is not False:
            conn.cert_reqs = "CERT_REQUIRED"
            conn.ca_certs = None
            conn.ca_cert_dir = None


_contexts: dict[str | None, ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def tls_context(bundle: str | None) -> ssl.SSLContext:
    """A verifying TLS context trusting ``bundle`` (default: certifi's), made once."""
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


_local = threading.local()


def session() -> requests.Session:
    """One session per thread (requests sessions are not promised thread-safe), keeping
    connections to a few hosts (the providers'); sites are fetched with Connection: close."""
    s = getattr(_local, "session", None)
    if s is None:
        s = requests.Session()
        adapter = PinnedAdapter(pool_connections=8, pool_maxsize=2, max_retries=0)
        s.mount("https://", adapter)
        s.mount("http://", adapter)
        s.headers["User-Agent"] = USER_AGENT
        s.trust_env = False  # no proxies or netrc from the environment
        _local.session = s
    return s


def verify_arg(ca_bundle: Path | None) -> bool | str:
    return str(ca_bundle) if ca_bundle else True


def retry_after(response: requests.Response, default: dt.timedelta) -> dt.datetime:
    now = dt.datetime.now(dt.UTC)
    value = response.headers.get("Retry-After")
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
    try:
        response = session().get(
            url,
            timeout=(timeout, timeout),
            headers=headers,
            params=params,
            verify=verify_arg(ca_bundle),
            stream=True,
        )
    except requests.Timeout as error:
        raise Transient(f"{provider}: no answer within {timeout:g} s") from error
    except requests.ConnectionError as error:
        raise Transient(f"{provider}: {type(error).__name__}") from error
    with response:
        if response.status_code == 429 or (
            response.status_code == 503 and "Retry-After" in response.headers
        ):
            raise RateLimited(provider, retry_after(response, dt.timedelta(minutes=15)))
        if response.status_code == 404:
            return None
        if response.status_code >= 500:
            raise Transient(f"{provider}: HTTP {response.status_code}")
        if response.status_code >= 400:
            raise ValueError(f"{provider}: HTTP {response.status_code}")
        body = response.raw.read(MAX_JSON_BYTES + 1, decode_content=True)
        if len(body) > MAX_JSON_BYTES:
            raise ValueError(f"{provider}: answer larger than {MAX_JSON_BYTES} bytes")
    try:
        import json

        return json.loads(body)
    except ValueError as error:
        raise ValueError(f"{provider}: the answer is not JSON") from error
