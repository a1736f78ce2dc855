"""HTTP(S) with urllib3 for every client: provider JSON calls and pinned site fetches.

``get_json`` maps a provider's answers: 429 (or 503 with Retry-After) is ``RateLimited``
with the time it gives (believed for at most ``throttle.MAX_RATE_LIMIT``) and the endpoint
that gave it, 5xx, timeouts and refused connections are ``Transient``, 404 is None, and
anything else (another 4xx, a body that is not JSON or too large, a redirect to another
host) a ``ValueError`` saying what came back. ``pinned_pool`` lets the web check connect
to the address it resolved and checked while TLS still verifies the certificate for the
domain's own name, so a name cannot be re-resolved to a private address between the check
and the connection.

Every request has a deadline (``request_deadline``): its connection is opened within the
time left, and every read of it, the status line, each header and the body, stops when the
deadline passes, however slowly the server sends (a byte a second holds it no longer than
a silent server). The connections check the address they connect to (guard.py): a
provider's host, or a host it redirects to, that resolves to a non-public address is
refused. A provider's redirect is followed only on the same scheme, host and port, so its
key never leaves the host it was configured for.

urllib3 directly, not ``requests`` on top of it: requests' per-request work (preparing,
merging settings, its adapter) cost more CPU than the request itself (docs/live-checks.md,
"Measured"). No proxy or netrc from the environment is used (urllib3 reads none).
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import email.utils
import functools
import http.client
import io
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlencode, urljoin, urlsplit

import certifi
import urllib3
from urllib3.util.ssl_ import create_urllib3_context

from pipelines.live.guard import Guard, RefusedAddress
from pipelines.live.throttle import MAX_RATE_LIMIT, RateLimited, Transient

USER_AGENT = "bvs-live-check/1 (business verification)"
MAX_JSON_BYTES = 32 * 1024 * 1024
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_PROVIDER_REDIRECTS = 5
DEFAULT_RATE_LIMIT = dt.timedelta(minutes=15)  # a 429 without Retry-After

# --- the request's deadline -------------------------------------------------------------

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "bvs_live_request_deadline", default=None
)


@contextlib.contextmanager
def request_deadline(until: float) -> Iterator[float]:
    """Every read of the requests made inside stops at ``until`` (``time.monotonic``), or
    at an enclosing deadline when that comes first; yields the deadline in force."""
    outer = _deadline.get()
    until = until if outer is None else min(until, outer)
    token = _deadline.set(until)
    try:
        yield until
    finally:
        _deadline.reset(token)


class _DeadlineReader(io.RawIOBase):
    """The socket's bytes, each read given only the time left before the deadline: a
    server sending a byte a second cannot hold a read (a header line, the body) past it."""

    def __init__(self, sock: socket.socket, until: float) -> None:
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)
        self._until = until
        self._timeout = sock.gettimeout()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        left = self._until - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's deadline passed")
        self._sock.settimeout(left if self._timeout is None else min(self._timeout, left))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
            with contextlib.suppress(OSError):  # the connection may be kept for the next request
                self._sock.settimeout(self._timeout)
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    """http.client's response, read through ``_DeadlineReader`` inside a request_deadline."""

    def __init__(self, sock: socket.socket, debuglevel: int = 0, method: str | None = None,
                 url: str | None = None) -> None:  # fmt: skip
        super().__init__(sock, debuglevel, method, url)
        until = _deadline.get()
        if until is not None:
            self.fp.close()  # nothing read yet; the socket stays open
            self.fp = io.BufferedReader(_DeadlineReader(sock, until))


class _GuardedConnection(urllib3.connection.HTTPConnection):
    """A connection that connects only to an address its ``guard`` permits (the address
    connected is the one checked) and whose answers are read within the request's deadline."""

    guard: Guard = Guard()
    response_class = _DeadlineResponse

    def _new_conn(self) -> socket.socket:
        host = self.host
        try:
            infos = socket.getaddrinfo(host, self.port, type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            raise urllib3.exceptions.NameResolutionError(host, self, error) from error
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        self.guard.check(host, addresses)
        failure: OSError | None = None
        for address in addresses:
            try:
                return urllib3.util.connection.create_connection(
                    (address, self.port), self.timeout, source_address=self.source_address,
                    socket_options=self.socket_options,
                )  # fmt: skip
            except TimeoutError as error:
                raise urllib3.exceptions.ConnectTimeoutError(
                    self, f"Connection to {host} timed out. (connect timeout={self.timeout})"
                ) from error
            except OSError as error:
                failure = error
        raise urllib3.exceptions.NewConnectionError(
            self, f"Failed to establish a new connection: {failure}"
        )


class _GuardedHTTPSConnection(_GuardedConnection, urllib3.connection.HTTPSConnection):
    pass


@functools.cache
def _pool_classes(
    guard: Guard,
) -> tuple[type[urllib3.HTTPConnectionPool], type[urllib3.HTTPSConnectionPool]]:
    """HTTP and HTTPS pool classes whose connections apply ``guard``."""
    attrs = {"guard": guard}
    http_conn = type("GuardedHTTPConnection", (_GuardedConnection,), attrs)
    https_conn = type("GuardedHTTPSConnection", (_GuardedHTTPSConnection,), attrs)
    http_pool = type("GuardedHTTPConnectionPool", (urllib3.HTTPConnectionPool,),
                     {"ConnectionCls": http_conn})  # fmt: skip
    https_pool = type("GuardedHTTPSConnectionPool", (urllib3.HTTPSConnectionPool,),
                      {"ConnectionCls": https_conn})  # fmt: skip
    return (cast(type[urllib3.HTTPConnectionPool], http_pool),
            cast(type[urllib3.HTTPSConnectionPool], https_pool))  # fmt: skip


# --- TLS and pools ----------------------------------------------------------------------

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


_managers: dict[tuple[str | None, Guard], urllib3.PoolManager] = {}


# Idle connections kept per provider host: as many as calls may be in flight to it (its
# concurrency limit, at most this). Fewer, and every call above that many opened a new TLS
# connection and threw it away after one request (urllib3's non-blocking pool).
MAX_KEPT_CONNECTIONS = 256


def manager(ca_bundle: Path | None, guard: Guard) -> urllib3.PoolManager:
    """One pool manager per trust bundle and guard (thread-safe), keeping the connections
    to each provider's host for the next call."""
    key = (str(ca_bundle) if ca_bundle else None, guard)
    with _contexts_lock:
        found = _managers.get(key)
    if found is None:
        found = urllib3.PoolManager(
            num_pools=32, maxsize=MAX_KEPT_CONNECTIONS, block=False, retries=False, cert_reqs="CERT_REQUIRED",
            ssl_context=tls_context(key[0]), headers={"User-Agent": USER_AGENT},
        )  # fmt: skip
        http_pool, https_pool = _pool_classes(guard)
        found.pool_classes_by_scheme = {"http": http_pool, "https": https_pool}
        with _contexts_lock:
            found = _managers.setdefault(key, found)
    return found


def pinned_pool(scheme: str, address: str, port: int, host: str, *, timeout: float,
                guard: Guard, ca_bundle: Path | None) -> urllib3.HTTPConnectionPool:  # fmt: skip
    """A pool connecting to ``address`` whose TLS (SNI and the certificate check) is for
    ``host``: the web check's connection to the address it checked."""
    http_pool, https_pool = _pool_classes(guard)
    kwargs: dict[str, Any] = {
        "port": port, "maxsize": 1, "block": False, "retries": False,
        "timeout": urllib3.Timeout(connect=timeout, read=timeout),
        "headers": {"User-Agent": USER_AGENT},
    }  # fmt: skip
    if scheme == "https":
        return https_pool(
            address, server_hostname=host, assert_hostname=host, cert_reqs="CERT_REQUIRED",
            ssl_context=tls_context(str(ca_bundle) if ca_bundle else None), **kwargs,
        )  # fmt: skip
    return http_pool(address, **kwargs)


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


def is_timeout(error: BaseException) -> bool:
    return error_name(error) in ("ConnectTimeout", "ReadTimeout")


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url``: the endpoint a rate limit belongs to."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port or default}"


def retry_after(headers: Any, default: dt.timedelta = DEFAULT_RATE_LIMIT) -> dt.datetime:
    """When a rate-limit answer (its ``headers``) says to ask again: its Retry-After
    (seconds or an HTTP date), at most MAX_RATE_LIMIT from now, never in the past."""
    now = dt.datetime.now(dt.UTC)
    value = str(headers.get("Retry-After") or "").strip()
    wait = default
    if value.isascii() and value.isdigit():
        # a long string of digits is more than an hour however many there are
        wait = dt.timedelta(seconds=int(value)) if len(value) < 9 else MAX_RATE_LIMIT
    elif value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
        else:
            if when.tzinfo is None:
                when = when.replace(tzinfo=dt.UTC)
            wait = when - now
    return now + min(max(wait, dt.timedelta(0)), MAX_RATE_LIMIT)


def get_json(
    provider: str,
    url: str,
    *,
    timeout: float,
    deadline: float | None = None,
    guard: Guard | None = None,
    ca_bundle: Path | None = None,
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
) -> Any | None:
    """The JSON answer of ``url``; None on 404. The whole request, its redirects and its
    body, within ``timeout`` seconds and before ``deadline`` (``time.monotonic``)."""
    if params:
        url = f"{url}{'&' if '?' in url else '?'}{urlencode(params)}"
    started = time.monotonic()
    until = started + timeout if deadline is None else min(started + timeout, deadline)
    late = f"no answer within {timeout:g} s" if until == started + timeout else "no answer before the time for live checks ran out"  # fmt: skip
    pool = manager(ca_bundle, guard or Guard())
    home = origin(url)
    with request_deadline(until):
        for hop in range(MAX_PROVIDER_REDIRECTS + 1):
            left = until - time.monotonic()
            if left <= 0:
                raise Transient(late)
            try:
                response = pool.request(
                    "GET", url, headers={"User-Agent": USER_AGENT, **(headers or {})},
                    timeout=urllib3.Timeout(connect=left, read=left), redirect=False,
                    preload_content=False,
                )  # fmt: skip
            except RefusedAddress as refused:
                raise ValueError(str(refused)) from refused
            except (urllib3.exceptions.HTTPError, OSError) as error:
                raise Transient(late if is_timeout(error) else error_name(error)) from error
            location = response.headers.get("Location")
            if response.status not in REDIRECT_STATUSES or not location:
                break
            response.drain_conn()
            response.release_conn()
            target = urljoin(url, location)
            if origin(target) != home:
                where = urlsplit(target).hostname or location
                raise ValueError(f"redirect to another host or port ({where}) not followed")
            if hop == MAX_PROVIDER_REDIRECTS:
                raise ValueError(f"more than {MAX_PROVIDER_REDIRECTS} redirects")
            url = target
        try:
            if response.status == 429 or (
                response.status == 503 and "Retry-After" in response.headers
            ):
                raise RateLimited(provider, retry_after(response.headers), home)
            if response.status == 404:
                return None
            if response.status >= 500:
                raise Transient(f"HTTP {response.status}")
            if response.status >= 400:
                raise ValueError(f"HTTP {response.status}")
            try:
                body = response.read(MAX_JSON_BYTES + 1, decode_content=True)
            except urllib3.exceptions.HTTPError as error:
                raise Transient(late if is_timeout(error) else error_name(error)) from error
            if len(body) > MAX_JSON_BYTES:
                raise ValueError(f"the answer is larger than {MAX_JSON_BYTES} bytes")
        finally:
            response.release_conn()
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as error:
        raise ValueError("the answer is not JSON") from error
