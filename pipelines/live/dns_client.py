"""DNS: MX, SPF (TXT), DMARC (``_dmarc`` TXT), A/AAAA and NS.

Resolvers are configurable (``BVS_LIVE_RESOLVERS``, "ip[:port]" each); the default is the
system's (``/etc/resolv.conf``, read by dnspython). NXDOMAIN and "no answer" are answers
(nothing there); a timeout, SERVFAIL or REFUSED is ``Transient`` (retried by the provider,
on the next resolver, then the check did not run).

The questions of one lookup (a domain's six, a domain's blocklist zones) leave together on
one UDP socket and their answers are matched by ID and question: one round trip instead of
one per question. Queries are written and answers read here, not through dnspython's
resolver and message objects, which cost most of a check's CPU (docs/live-checks.md,
"Measured"); a truncated answer is asked again over TCP with dnspython.
"""

from __future__ import annotations

import itertools
import os
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import dns.exception
import dns.message
import dns.query
import dns.rdatatype
import dns.resolver

from pipelines.live.throttle import Transient


@dataclass
class DnsFindings:
    domain: str
    exists: bool = True
    addresses: list[str] = field(default_factory=list)
    mx: list[str] = field(default_factory=list)
    spf: str | None = None
    dmarc: str | None = None
    ns: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))  # flat fields: dataclasses.asdict's deep copy is slow

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> DnsFindings:
        return cls(**value)


TYPES = {"A": 1, "NS": 2, "CNAME": 5, "MX": 15, "TXT": 16, "AAAA": 28}
NXDOMAIN, SERVFAIL, REFUSED, YXDOMAIN = 3, 2, 5, 6


class DnsClient:
    def __init__(self, resolvers: tuple[tuple[str, int], ...], timeout: float) -> None:
        if not resolvers:
            system = dns.resolver.Resolver()
            resolvers = tuple((str(ns), int(system.port)) for ns in system.nameservers)
        self.resolvers = resolvers
        self.timeout = timeout
        self._turn = itertools.count()
        self._local = threading.local()

    def query(self, name: str, rdtype: str) -> list[Any] | None:
        """The answer's records (see ``ask``); [] for no answer; None for NXDOMAIN."""
        return self.ask([(name, rdtype)])[0]

    def ask(
        self, questions: list[tuple[str, str]], timeout: float | None = None
    ) -> list[list[Any] | None]:
        """Each question's answer, asked at once on one socket: A and AAAA as address
        text, MX as (preference, exchange), TXT as the record's text, NS and CNAME as the
        name (no final dot; the root is "."). [] for no answer, None for NXDOMAIN; the
        first question without an answer raises ``Transient``."""
        answers = self.ask_each(questions, timeout)
        for answer in answers:
            if isinstance(answer, Transient):
                raise answer
        return answers  # type: ignore[return-value]

    def ask_each(
        self, questions: list[tuple[str, str]], timeout: float | None = None
    ) -> list[list[Any] | None | Transient]:
        """``ask``, with a ``Transient`` in place of each answer that did not come."""
        resolver = self.resolvers[next(self._turn) % len(self.resolvers)]
        family = socket.AF_INET6 if ":" in resolver[0] else socket.AF_INET
        wires: dict[int, tuple[int, bytes]] = {}  # id -> (index, question section)
        answers: list[list[Any] | None | Transient] = [None] * len(questions)
        pending: set[int] = set()
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect(resolver)  # answers from any other address are not taken
            for index, (name, rdtype) in enumerate(questions):
                qid = self._new_id(wires)
                section = _question(name, TYPES[rdtype])
                wires[qid] = (index, section)
                pending.add(qid)
                sock.send(struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + section)
            deadline = time.monotonic() + (timeout or self.timeout)
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    for qid in pending:
                        name, rdtype = questions[wires[qid][0]]
                        answers[wires[qid][0]] = Transient(f"DNS {rdtype} {name}: timed out")
                    break
                sock.settimeout(left)
                try:
                    data = sock.recv(65535)
                except TimeoutError:
                    continue
                except OSError as error:  # ICMP port unreachable: nothing listens there
                    for qid in pending:
                        name, rdtype = questions[wires[qid][0]]
                        answers[wires[qid][0]] = Transient(f"DNS {rdtype} {name}: {error}")
                    break
                if len(data) < 12:
                    continue
                (qid,) = struct.unpack_from("!H", data)
                if qid not in pending:
                    continue
                index, section = wires[qid]
                name, rdtype = questions[index]
                parsed = _parse(data, section, TYPES[rdtype])
                if parsed is None:  # not the answer to this question: keep waiting
                    continue
                rcode, truncated, records = parsed
                pending.discard(qid)
                try:
                    if truncated:
                        answers[index] = self._tcp(name, rdtype, resolver, deadline)
                    elif rcode in (NXDOMAIN, YXDOMAIN):
                        answers[index] = None
                    elif rcode != 0:
                        raise Transient(f"DNS {rdtype} {name}: the resolver answered rcode {rcode}")
                    else:
                        answers[index] = records
                except Transient as error:
                    answers[index] = error
        return answers

    @staticmethod
    def _new_id(taken: dict[int, Any]) -> int:
        while True:
            qid = int.from_bytes(os.urandom(2), "big")
            if qid not in taken:
                return qid

    def _tcp(self, name: str, rdtype: str, resolver: tuple[str, int],
             deadline: float) -> list[Any] | None:  # fmt: skip
        """A truncated answer, asked again over TCP (dnspython)."""
        query = dns.message.make_query(name, rdtype)
        try:
            reply = dns.query.tcp(query, resolver[0], port=resolver[1],
                                  timeout=max(0.1, deadline - time.monotonic()))  # fmt: skip
        except (dns.exception.Timeout, OSError) as error:
            raise Transient(f"DNS {rdtype} {name} over TCP: {type(error).__name__}") from error
        if reply.rcode() in (NXDOMAIN, YXDOMAIN):
            return None
        if reply.rcode() != 0:
            raise Transient(f"DNS {rdtype} {name}: the resolver answered rcode {reply.rcode()}")
        parsed = _parse(reply.to_wire(), _question(name, TYPES[rdtype]), TYPES[rdtype])
        return parsed[2] if parsed else []

    def addresses(self, name: str) -> list[str] | None:
        """A and AAAA addresses; None when the name does not exist."""
        a, aaaa = self.ask([(name, "A"), (name, "AAAA")])
        if a is None:
            return None
        return a + (aaaa or [])

    def txt(self, name: str) -> list[str]:
        return self.query(name, "TXT") or []

    def lookup(self, domain: str) -> DnsFindings:
        """Everything the e-mail, domain and web checks read about one domain."""
        a, aaaa, mx_records, txt, dmarc_txt, ns_names = self.ask([
            (domain, "A"), (domain, "AAAA"), (domain, "MX"), (domain, "TXT"),
            (f"_dmarc.{domain}", "TXT"), (domain, "NS"),
        ])  # fmt: skip
        addresses = None if a is None else a + (aaaa or [])
        if addresses is None and mx_records is None:
            return DnsFindings(domain, exists=False)
        # RFC 7505 "null MX" (a single "." exchange) says the domain takes no mail.
        mx = sorted((pref, host) for pref, host in (mx_records or []) if host != ".")
        spf = next((t for t in txt or [] if t.lower().startswith("v=spf1")), None)
        dmarc = next((t for t in dmarc_txt or [] if t.lower().startswith("v=dmarc1")), None)
        ns = sorted(n.lower() for n in ns_names or [])
        return DnsFindings(domain, True, addresses or [], [host for _, host in mx], spf, dmarc, ns)

    def probe(self, name: str, attempts: int = 3) -> str | None:
        """None when ``name`` resolves (the network answers), else why not. Asked up to
        ``attempts`` times within the one timeout: a single lost datagram must not mark a
        whole batch offline."""
        for attempt in range(attempts):
            try:
                found = self.ask([(name, "A")], timeout=self.timeout / attempts)[0]
                break
            except Transient as error:
                if attempt == attempts - 1:
                    return str(error)
        if not found:
            return f"the connectivity probe {name} did not resolve"
        return None


def _question(name: str, rdtype: int) -> bytes:
    """The question section for ``name`` (ASCII, IDNA already applied), class IN."""
    out = bytearray()
    for label in name.rstrip(".").encode("ascii").split(b"."):
        if not 0 < len(label) < 64:
            raise ValueError(f"not a DNS name: {name!r}")
        out.append(len(label))
        out += label
    out += b"\x00" + struct.pack("!HH", rdtype, 1)
    if len(out) > 259:
        raise ValueError(f"not a DNS name (too long): {name!r}")
    return bytes(out)


def _name(data: bytes, at: int) -> tuple[str, int]:
    """The (possibly compressed) name at ``at``: its text and the offset after it."""
    labels: list[bytes] = []
    end = -1
    jumps = 0
    while True:
        length = data[at]
        if length >= 0xC0:
            if end < 0:
                end = at + 2
            at = ((length & 0x3F) << 8) | data[at + 1]
            jumps += 1
            if jumps > 64:
                raise ValueError("DNS name compression loop")
            continue
        if length > 63:
            raise ValueError("bad DNS label")
        if length == 0:
            break
        labels.append(data[at + 1 : at + 1 + length])
        at += 1 + length
    if end < 0:
        end = at + 1
    return (b".".join(labels).decode("ascii", "replace") or "."), end


def _parse(data: bytes, section: bytes, rdtype: int) -> tuple[int, bool, list[Any]] | None:
    """(rcode, truncated, records of ``rdtype``) of an answer to the question ``section``;
    None when it is not an answer to that question."""
    try:
        _, flags, qd, an, _, _ = struct.unpack_from("!HHHHHH", data)
        if not flags & 0x8000 or qd != 1:
            return None
        end = 12 + len(section)
        if data[12:end].lower() != section.lower():
            return None
        rcode = flags & 0x000F
        records: list[Any] = []
        at = end
        for _ in range(an):
            _, at = _name(data, at)
            rtype, _, _, length = struct.unpack_from("!HHIH", data, at)
            at += 10
            rdata = data[at : at + length]
            if len(rdata) != length:
                return None
            if rtype == rdtype:
                records.append(_rdata(data, at, rdata, rtype))
            at += length
    except (struct.error, IndexError, ValueError):
        return None
    return rcode, bool(flags & 0x0200), records


def _rdata(data: bytes, at: int, rdata: bytes, rtype: int) -> Any:
    if rtype == 1:
        return socket.inet_ntop(socket.AF_INET, rdata)
    if rtype == 28:
        return socket.inet_ntop(socket.AF_INET6, rdata)
    if rtype == 15:
        return struct.unpack_from("!H", rdata)[0], _name(data, at + 2)[0]
    if rtype == 16:
        parts, i = [], 0
        while i < len(rdata):
            parts.append(rdata[i + 1 : i + 1 + rdata[i]])
            i += 1 + rdata[i]
        return b"".join(parts).decode("utf-8", "replace")
    return _name(data, at)[0]  # NS, CNAME
