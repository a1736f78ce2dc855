"""Real servers on 127.0.0.1 for the live checks' tests and bench.

* ``DnsServer``: an authoritative DNS server (UDP and TCP on one port) built on dnspython's
  message parsing, answering the names of a ``Zone`` (NXDOMAIN for the rest); a question
  in ``crafted`` (UDP) or ``crafted_tcp`` is answered with the bytes its function writes
  from the query (``reply``, ``rr`` and ``wire_name`` build them), for the malformed,
  mismatched and truncated answers a resolver may send;
* ``WebServer``: HTTP and HTTPS (a certificate from a throwaway CA made by ``trustme``)
  serving sites by Host header, and the providers' endpoints by path: RDAP (with an IANA
  bootstrap file), certificate transparency, a scam rating and review platforms; any
  provider path can be given an answer of its own (``WebWorld.raw``: odd JSON, a redirect,
  a 429);
* ``SlowServer``: a server that accepts and then never answers, or sends its headers or
  its body a byte at a time;
* ``RecordingServer``: answers every request with one fixed answer and keeps what it was
  sent (another host a provider redirects to, a rate-limiting registry).

Each answer can wait ``latency`` seconds first (the bench's added latency). Started once
per test module (tests/live/conftest.py) or once per bench run.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import socket
import socketserver
import ssl
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import dns.flags
import dns.message
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset


@dataclass
class Zone:
    """name -> {type: [rdata text]}; names lower-case without the final dot."""

    records: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # names that exist only as parents of others ("empty non-terminals": NOERROR, no data)
    parents: set[str] = field(default_factory=set)

    # name -> {type code: [rdata in wire form]}: what the server's fast path answers from
    wire: dict[str, dict[int, list[bytes]]] = field(default_factory=dict)

    def add(self, name: str, rdtype: str, *values: str) -> None:
        name = name.lower()
        self.records.setdefault(name, {}).setdefault(rdtype, []).extend(values)
        code = dns.rdatatype.from_text(rdtype)
        self.wire.setdefault(name, {}).setdefault(code, []).extend(
            dns.rdata.from_text(dns.rdataclass.IN, code, v).to_wire() for v in values
        )
        labels = name.split(".")
        self.parents.update(".".join(labels[i:]) for i in range(1, len(labels)))

    def answer(self, query: dns.message.Message) -> dns.message.Message:
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        question = query.question[0]
        name = question.name.to_text(omit_final_dot=True).lower()
        rdtype = dns.rdatatype.to_text(question.rdtype)
        found = self.records.get(name)
        if found is None:
            if name not in self.parents:
                response.set_rcode(dns.rcode.NXDOMAIN)
            return response
        if rdtype in found:
            response.answer.append(
                dns.rrset.from_text(question.name, 300, dns.rdataclass.IN, rdtype, *found[rdtype])
            )
        return response


# A crafted answer: the query's wire form in, the bytes to send out (None: send nothing).
# Over TCP the bytes are written as they are (the 2-byte length prefix included), then the
# connection is closed.
Crafted = Callable[[bytes], bytes | None]


def wire_name(text: str) -> bytes:
    """``text`` in wire form, labels split at "." (no compression)."""
    labels = [part.encode() for part in text.rstrip(".").split(".") if part]
    return b"".join(bytes([len(label)]) + label for label in labels) + b"\x00"


def rr(owner: bytes, rdtype: str, rdata: bytes, *, rdclass: int = 1, ttl: int = 300,
       rdlength: int | None = None) -> bytes:  # fmt: skip
    """One resource record in wire form: ``owner`` as written (b"\\xc0\\x0c" points at the
    question's name), ``rdlength`` as given (default: the rdata's)."""
    code = dns.rdatatype.from_text(rdtype)
    length = len(rdata) if rdlength is None else rdlength
    return owner + struct.pack("!HHIH", code, rdclass, ttl, length) + rdata


def reply(query: bytes, *records: bytes, rcode: int = 0, opcode: int = 0, tc: bool = False,
          qr: bool = True, qid: int | None = None, question: bytes | None = None,
          answers: int | None = None, tail: bytes = b"") -> bytes:  # fmt: skip
    """An answer to ``query`` (its ID and question unless given) with ``records`` in the
    answer section; ``answers`` overrides the answer count, ``tail`` is appended."""
    flags = (0x8000 if qr else 0) | (opcode << 11) | 0x0400 | 0x0100 | (0x0200 if tc else 0)
    head = struct.pack(
        "!HHHHHH",
        int.from_bytes(query[:2], "big") if qid is None else qid,
        flags | rcode,
        1,
        len(records) if answers is None else answers,
        0,
        0,
    )
    return head + (query[12:] if question is None else question) + b"".join(records) + tail


def question_of(data: bytes) -> tuple[str, int, int, int] | None:
    """(name, type code, class code, offset after it) of a query's first question, its
    name uncompressed; None when it does not read so."""
    labels, at = [], 12
    while at < len(data) and data[at]:
        length = data[at]
        if length > 63:
            return None
        labels.append(data[at + 1 : at + 1 + length])
        at += 1 + length
    if at + 5 > len(data):
        return None
    try:
        name = b".".join(labels).decode("ascii").lower()
    except UnicodeDecodeError:
        return None
    qtype, qclass = struct.unpack_from("!HH", data, at + 1)
    return name, qtype, qclass, at + 5


class _Tcp(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


class DnsServer:
    def __init__(self, zone: Zone, latency: float = 0.0) -> None:
        self.zone = zone
        self.latency = latency
        self.queries = 0
        self.crafted: dict[tuple[str, str], Crafted] = {}  # (name, type) -> UDP answer
        self.crafted_tcp: dict[tuple[str, str], Crafted] = {}
        server = self

        class TcpHandler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                while True:
                    head = self.request.recv(2)
                    if len(head) < 2:
                        return
                    (length,) = struct.unpack("!H", head)
                    data = b""
                    while len(data) < length:
                        chunk = self.request.recv(length - len(data))
                        if not chunk:
                            return
                        data += chunk
                    crafted = server._crafted(server.crafted_tcp, data)
                    if crafted is not None:
                        out = crafted(data)
                        if out:
                            self.request.sendall(out)
                        return
                    answer = server._reply(data)
                    if answer:
                        self.request.sendall(struct.pack("!H", len(answer)) + answer)

        for _ in range(20):
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            # room for a burst of queries (hundreds of checks starting at once): a full
            # receive buffer drops them, and each drop costs the client its timeout
            # (the kernel caps it at net.core.rmem_max)
            with contextlib.suppress(OSError):
                udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * 1024 * 1024)
            udp.bind(("127.0.0.1", 0))
            port = udp.getsockname()[1]
            try:
                tcp = _Tcp(("127.0.0.1", port), TcpHandler)
            except OSError:
                udp.close()
                continue
            break
        self.udp, self.tcp, self.port = udp, tcp, port
        self._due: list[tuple[float, int, bytes, Any]] = []
        self._ready = threading.Condition()
        self._stopped = False
        threading.Thread(target=tcp.serve_forever, daemon=True).start()
        threading.Thread(target=self._receive, daemon=True).start()
        threading.Thread(target=self._send, daemon=True).start()

    def _receive(self) -> None:
        """UDP: answer at once, or queue the answer for when its latency has passed (one
        thread each way, however many queries are waiting)."""
        seq = 0
        while not self._stopped:
            try:
                data, address = self.udp.recvfrom(4096)
            except OSError:
                return
            crafted = self._crafted(self.crafted, data)
            reply = crafted(data) if crafted is not None else self._answer(data)
            if reply is None:
                continue
            if not self.latency:
                self.udp.sendto(reply, address)
                continue
            seq += 1
            with self._ready:
                heapq.heappush(self._due, (time.monotonic() + self.latency, seq, reply, address))
                self._ready.notify()

    def _send(self) -> None:
        while not self._stopped:
            with self._ready:
                while not self._due or self._due[0][0] > time.monotonic():
                    wait = self._due[0][0] - time.monotonic() if self._due else None
                    self._ready.wait(wait)
                    if self._stopped:
                        return
                _, _, reply, address = heapq.heappop(self._due)
            with contextlib.suppress(OSError):
                self.udp.sendto(reply, address)

    @staticmethod
    def _crafted(table: dict[tuple[str, str], Crafted], data: bytes) -> Crafted | None:
        if not table:
            return None
        asked = question_of(data)
        if asked is None:
            return None
        return table.get((asked[0], dns.rdatatype.to_text(asked[1])))

    def _answer(self, data: bytes) -> bytes | None:
        fast = self._fast_answer(data)
        if fast is not None:
            self.queries += 1
            return fast
        try:
            query = dns.message.from_wire(data)
        except Exception:
            return None
        self.queries += 1
        return self.zone.answer(query).to_wire()

    def _fast_answer(self, data: bytes) -> bytes | None:
        """The same answer as ``Zone.answer`` for a plain query (one IN question, no EDNS),
        written from the zone's wire-form records without building message objects (the
        bench's 80,000 queries share two cores with the checks). None: take the full path."""
        if len(data) < 17:
            return None
        qid, flags, qd, an, ns, ar = struct.unpack_from("!HHHHHH", data)
        if qd != 1 or an or ns or ar or flags & 0xF800:  # a response, an opcode, EDNS
            return None
        asked = question_of(data)
        if asked is None or asked[2] != dns.rdataclass.IN:
            return None
        name, qtype, _, end = asked
        question = data[12:end]
        found = self.zone.wire.get(name)
        rcode = 0
        records: list[bytes] = []
        if found is None:
            if name not in self.zone.parents:
                rcode = dns.rcode.NXDOMAIN
        else:
            records = found.get(qtype, [])
        head = struct.pack("!HHHHHH", qid, 0x8400 | (flags & 0x0110) | rcode, 1,
                           len(records), 0, 0)  # fmt: skip
        answers = b"".join(
            b"\xc0\x0c" + struct.pack("!HHIH", qtype, 1, 300, len(r)) + r for r in records
        )
        return head + question + answers

    def _reply(self, data: bytes) -> bytes | None:
        reply = self._answer(data)
        if reply is not None and self.latency:
            time.sleep(self.latency)
        return reply

    def close(self) -> None:
        self._stopped = True
        with self._ready:
            self._ready.notify_all()
        self.tcp.shutdown()
        self.tcp.server_close()
        self.udp.close()


@dataclass
class Site:
    status: int = 200
    body: str = ""
    location: str | None = None
    https: bool = True  # served on the HTTPS port (with a valid certificate)
    http: bool = True


@dataclass
class WebWorld:
    sites: dict[str, Site] = field(default_factory=dict)
    rdap: dict[str, dict[str, Any]] = field(default_factory=dict)  # domain -> RDAP record
    rdap_rate_limited: dict[str, int | str] = field(default_factory=dict)  # domain -> Retry-After
    ct: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    scam: dict[str, dict[str, Any]] = field(default_factory=dict)
    reviews: dict[str, dict[str, dict[str, Any]]] = field(
        default_factory=dict
    )  # platform -> key -> answer
    review_delay: dict[str, float] = field(default_factory=dict)  # platform -> seconds
    # provider path with its query, as sent -> (status, headers, body): answered as given
    raw: dict[str, tuple[int, dict[str, str], str]] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    keys_seen: list[str] = field(default_factory=list)
    record_requests: bool = True


class WebServer:
    """One handler behind two listeners: HTTP and HTTPS."""

    def __init__(
        self, world: WebWorld, cert_dir: Path, hostnames: list[str], latency: float = 0.0
    ) -> None:
        import trustme

        self.world = world
        self.latency = latency
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost", *hostnames)
        self.ca_bundle = cert_dir / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_bundle))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave at once

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer._handle(self)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 1024

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (the 6-second review timeout) is expected

        self.http = Server(("127.0.0.1", 0), Handler)
        self.https = Server(("127.0.0.1", 0), Handler)
        self.https.socket = context.wrap_socket(self.https.socket, server_side=True)
        self.https.is_tls = True  # type: ignore[attr-defined]
        for s in (self.http, self.https):
            threading.Thread(target=s.serve_forever, daemon=True).start()
        self.http_port = self.http.server_address[1]
        self.https_port = self.https.server_address[1]

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: str | bytes,
              content_type: str = "text/html; charset=utf-8", headers: dict[str, str] | None = None) -> None:  # fmt: skip
        data = body.encode() if isinstance(body, str) else body
        h.send_response(status)
        h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _json(self, h: BaseHTTPRequestHandler, value: Any, status: int = 200) -> None:
        self._send(h, status, json.dumps(value), "application/json")

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        w = self.world
        tls = getattr(h.server, "is_tls", False)
        host = (h.headers.get("Host") or "").rsplit(":", 1)[0].lower()
        parts = urlsplit(h.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if w.record_requests:
            w.requests.append((host, h.path))
        auth = h.headers.get("Authorization")
        if auth:
            w.keys_seen.append(auth)
        if self.latency:
            time.sleep(self.latency)
        if host in ("127.0.0.1", "localhost"):
            if h.path in w.raw:
                status, headers, body = w.raw[h.path]
                return self._send(h, status, body, "application/json", headers)
            return self._provider(h, parts.path, query)
        site = w.sites.get(host)
        if site is None or (tls and not site.https) or (not tls and not site.http):
            return self._send(h, 404, "no such site")
        headers = {"Location": site.location} if site.location else None
        self._send(h, site.status, site.body, headers=headers)

    def _provider(self, h: BaseHTTPRequestHandler, path: str, query: dict[str, str]) -> None:
        w = self.world
        if path == "/rdap/bootstrap.json":
            return self._json(h, {"version": "1.0", "services": [
                [["com", "net", "org", "test"], [f"{self.base}/rdap/"]]]})  # fmt: skip
        if path.startswith("/rdap/domain/") or path.startswith("/au-rdap/domain/"):
            domain = path.rsplit("/", 1)[1]
            wait = w.rdap_rate_limited.get(domain)
            if wait is not None:
                return self._send(h, 429, "slow down", "text/plain", {"Retry-After": str(wait)})
            record = w.rdap.get(domain)
            if record is None:
                return self._json(h, {"errorCode": 404}, 404)
            return self._json(h, {"objectClassName": "domain", "ldhName": domain, **record})
        if path == "/ct":
            domain = query.get("q", "").removeprefix("%.")
            return self._json(h, w.ct.get(domain, []))
        if path == "/scam":
            return self._json(h, w.scam.get(query.get("domain", ""), {"score": 90, "flags": []}))
        if path.startswith("/reviews/"):
            platform = path.rsplit("/", 1)[1]
            delay = w.review_delay.get(platform)
            if delay:
                time.sleep(delay)
            answers = w.reviews.get(platform, {})
            return self._json(h, answers.get(query.get("abn", ""), {"found": False}))
        return self._send(h, 404, "unknown endpoint")

    def close(self) -> None:
        for s in (self.http, self.https):
            s.shutdown()
            s.server_close()


class SlowServer:
    """Plain HTTP on 127.0.0.1 that holds its clients: ``silent`` accepts and reads the
    request and then sends nothing; ``drip_headers`` sends a status line and headers one
    byte every ``interval`` seconds; ``drip_body`` sends the headers at once and then a
    JSON body one byte at a time. A connection is closed after ``hold`` seconds at most,
    so a client without a deadline of its own is held that long. ``connections`` counts
    the clients."""

    def __init__(self, mode: str, interval: float = 0.2, hold: float = 30.0) -> None:
        assert mode in ("silent", "drip_headers", "drip_body"), mode
        self.mode, self.interval, self.hold = mode, interval, hold
        self.connections = 0
        self._stopped = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        until = time.monotonic() + self.hold
        body = b'{"events": []}' + b" " * 100_000
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        head += b"X-Padding: " + b"x" * 2000 + b"\r\n"
        head += b"Content-Length: %d\r\n\r\n" % len(body)
        with contextlib.suppress(OSError), conn:
            conn.settimeout(self.hold)
            conn.recv(65536)  # the request
            if self.mode == "silent":
                self._stopped.wait(max(0.0, until - time.monotonic()))
                return
            if self.mode == "drip_body":
                conn.sendall(head)
            data = head + body if self.mode == "drip_headers" else body
            for i in range(len(data)):
                if self._stopped.is_set() or time.monotonic() > until:
                    return
                conn.sendall(data[i : i + 1])
                time.sleep(self.interval)

    def close(self) -> None:
        self._stopped.set()
        self.sock.close()


class RecordingServer:
    """Plain HTTP on 127.0.0.1 answering every GET with ``status``, ``headers`` and
    ``body`` (changed at will); ``seen`` keeps each request's path and headers."""

    def __init__(self, status: int = 200, headers: dict[str, str] | None = None,
                 body: str = "{}") -> None:  # fmt: skip
        self.seen: list[tuple[str, dict[str, str]]] = []
        self.status, self.headers, self.body = status, headers or {}, body
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.seen.append((self.path, dict(self.headers.items())))
                data = outer.body.encode()
                self.send_response(outer.status)
                for k, v in outer.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
