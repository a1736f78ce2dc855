"""DNS: MX, SPF (TXT), DMARC (``_dmarc`` TXT), A/AAAA and NS.

Resolvers are configurable (``BVS_LIVE_RESOLVERS``, "ip[:port]" each); the default is the
system's (``/etc/resolv.conf``, read by dnspython). NXDOMAIN and "no answer" are answers
(nothing there); a timeout, SERVFAIL or REFUSED is ``Transient`` (retried by the provider,
on the next resolver, then the check did not run).

The questions of one lookup (a domain's six, a domain's blocklist zones) leave together on
one UDP socket and their answers are matched by ID: one round trip instead of one per
question. Messages are built and read by dnspython (``dns.message.make_query``,
``dns.message.from_wire``): an answer is taken only when it is a well-formed response to
its question (ID, opcode, question), and only the records of the question's name and
class, or of the CNAME chain from it, are read. A malformed answer, or one to another
question, is ``Transient`` with what was wrong; a truncated answer is asked again over TCP,
and whatever goes wrong there (the connection closed early, garbage, a malformed or
mismatched answer) is ``Transient`` too. A name that cannot be asked (a label over 63
bytes, a name over 255) is a ``ValueError``.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.query
import dns.rcode
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


TYPES = {
    "A": dns.rdatatype.A, "NS": dns.rdatatype.NS, "CNAME": dns.rdatatype.CNAME,
    "MX": dns.rdatatype.MX, "TXT": dns.rdatatype.TXT, "AAAA": dns.rdatatype.AAAA,
}  # fmt: skip
NOT_THERE = (dns.rcode.NXDOMAIN, dns.rcode.YXDOMAIN)  # the name does not exist (as asked)

# One question's answer: its records, [] for none, None when the name does not exist, or
# why there is no answer (``Transient``: worth asking again; ``ValueError``: not askable).
Answer = list[Any] | None | Transient | ValueError


class DnsClient:
    def __init__(self, resolvers: tuple[tuple[str, int], ...], timeout: float) -> None:
        if not resolvers:
            system = dns.resolver.Resolver()
            resolvers = tuple((str(ns), int(system.port)) for ns in system.nameservers)
        self.resolvers = resolvers
        self.timeout = timeout
        self._turn = itertools.count()

    def query(self, name: str, rdtype: str) -> list[Any] | None:
        """The answer's records (see ``ask``); [] for no answer; None for NXDOMAIN."""
        return self.ask([(name, rdtype)])[0]

    def ask(
        self, questions: list[tuple[str, str]], timeout: float | None = None
    ) -> list[list[Any] | None]:
        """Each question's answer, asked at once on one socket: A and AAAA as address
        text, MX as (preference, exchange), TXT as the record's text, NS and CNAME as the
        name (dnspython's text: no final dot, "." and "\\" in a label escaped; the root is
        "."). [] for no answer, None for NXDOMAIN; the first question without an answer
        raises (``Transient``, or ``ValueError`` for a name that cannot be asked)."""
        answers = self.ask_each(questions, timeout)
        for answer in answers:
            if isinstance(answer, Exception):
                raise answer
        return answers  # type: ignore[return-value]

    def ask_each(
        self, questions: list[tuple[str, str]], timeout: float | None = None
    ) -> list[Answer]:
        """``ask``, with the exception in place of each answer that did not come."""
        resolver = self.resolvers[next(self._turn) % len(self.resolvers)]
        family = socket.AF_INET6 if ":" in resolver[0] else socket.AF_INET
        answers: list[Answer] = [None] * len(questions)
        pending: dict[int, tuple[int, dns.message.QueryMessage]] = {}  # id -> (index, query)
        for index, (name, rdtype) in enumerate(questions):
            try:
                qname = _qname(name)
            except ValueError as error:
                answers[index] = error
                continue
            qid = self._new_id(pending)
            pending[qid] = (index, dns.message.make_query(qname, TYPES[rdtype], id=qid))
        if not pending:
            return answers
        deadline = time.monotonic() + (timeout or self.timeout)
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            try:
                sock.connect(resolver)  # answers from any other address are not taken
                for _, query in pending.values():
                    sock.send(query.to_wire())
            except OSError as error:  # no route to the resolver
                for index, query in pending.values():
                    answers[index] = Transient(f"DNS {_asked(query)}: {error}")
                return answers
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    for index, query in pending.values():
                        answers[index] = Transient(f"DNS {_asked(query)}: timed out")
                    break
                sock.settimeout(left)
                try:
                    data = sock.recv(65535)
                except TimeoutError:
                    continue
                except OSError as error:  # ICMP port unreachable: nothing listens there
                    for index, query in pending.values():
                        answers[index] = Transient(f"DNS {_asked(query)}: {error}")
                    break
                qid = int.from_bytes(data[:2], "big") if len(data) >= 2 else -1
                if qid not in pending:
                    continue  # an answer to nothing we asked (a late duplicate, a stray)
                index, query = pending.pop(qid)
                try:
                    answers[index] = self._read(query, data, resolver, deadline)
                except Transient as error:
                    answers[index] = error
        return answers

    @staticmethod
    def _new_id(taken: dict[int, Any]) -> int:
        while True:
            qid = int.from_bytes(os.urandom(2), "big")
            if qid not in taken:
                return qid

    def _read(
        self, query: dns.message.QueryMessage, data: bytes, resolver: tuple[str, int],
        deadline: float,
    ) -> list[Any] | None:  # fmt: skip
        """The records answering ``query`` in the datagram ``data``; a truncated answer
        asked again over TCP."""
        try:
            reply = dns.message.from_wire(data)
        except dns.exception.DNSException as error:
            if len(data) > 2 and data[2] & 0x82 == 0x82 and _truncated_reply_to(query, data):
                return self._tcp(query, resolver, deadline)  # cut off mid-record: TC says so
            raise Transient(f"DNS {_asked(query)}: malformed answer ({_why(error)})") from error
        if reply.flags & dns.flags.TC and query.is_response(reply):
            return self._tcp(query, resolver, deadline)
        return _records(query, reply)

    def _tcp(
        self, query: dns.message.QueryMessage, resolver: tuple[str, int], deadline: float
    ) -> list[Any] | None:
        """A truncated answer, asked again over TCP (at most 64 KiB, within the deadline)."""
        try:
            reply = dns.query.tcp(query, resolver[0], port=resolver[1],
                                  timeout=max(0.1, deadline - time.monotonic()))  # fmt: skip
        except EOFError as error:
            raise Transient(f"DNS {_asked(query)} over TCP: the connection closed before the "
                            f"answer was complete (EOFError)") from error  # fmt: skip
        except dns.query.BadResponse as error:
            raise Transient(
                f"DNS {_asked(query)} over TCP: an answer to another question (BadResponse)"
            ) from error
        except dns.exception.Timeout as error:
            raise Transient(f"DNS {_asked(query)} over TCP: timed out") from error
        except dns.exception.DNSException as error:
            raise Transient(
                f"DNS {_asked(query)} over TCP: malformed answer ({_why(error)})"
            ) from error
        except (OSError, ValueError) as error:
            raise Transient(f"DNS {_asked(query)} over TCP: {_why(error)}") from error
        return _records(query, reply)

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
        # RFC 7505 "null MX" (a single "." exchange, the root) says the domain takes no mail.
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
            except ValueError as error:
                return str(error)
            except Transient as error:
                if attempt == attempts - 1:
                    return str(error)
        if not found:
            return f"the connectivity probe {name} did not resolve"
        return None


def _qname(name: str) -> dns.name.Name:
    """``name`` (ASCII, IDNA already applied) as an absolute DNS name, its labels taken as
    written (no escapes)."""
    text = name.rstrip(".")
    try:
        labels = text.encode("ascii").split(b".") if text else []
        return dns.name.Name([*labels, b""])
    except (UnicodeError, dns.exception.DNSException) as error:
        raise ValueError(f"not a DNS name: {name!r} ({error})") from error


def _asked(query: dns.message.Message) -> str:
    question = query.question[0]
    return f"{dns.rdatatype.to_text(question.rdtype)} {question.name.to_text(True)}"


def _why(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _truncated_reply_to(query: dns.message.QueryMessage, data: bytes) -> bool:
    """Whether ``data``, a datagram whose records do not parse, is a truncated response to
    ``query`` (its header and question do)."""
    try:
        return query.is_response(dns.message.from_wire(data, question_only=True))
    except dns.exception.DNSException:
        return False


def _records(query: dns.message.QueryMessage, reply: dns.message.Message) -> list[Any] | None:
    """The records of ``reply`` that answer ``query``: owned by its name (or the end of the
    CNAME chain from it), of its class and type; None when the name does not exist."""
    if not query.is_response(reply) or not isinstance(reply, dns.message.QueryMessage):
        raise Transient(f"DNS {_asked(query)}: the answer is not a response to the question "
                        f"(opcode {dns.opcode.to_text(reply.opcode())}, "
                        f"question {[q.to_text() for q in reply.question]})")  # fmt: skip
    rcode = reply.rcode()
    if rcode in NOT_THERE:
        return None
    if rcode != dns.rcode.NOERROR:
        raise Transient(f"DNS {_asked(query)}: the resolver answered {dns.rcode.to_text(rcode)}")
    try:
        chain = reply.resolve_chaining()
    except dns.exception.DNSException as error:
        raise Transient(f"DNS {_asked(query)}: malformed answer ({_why(error)})") from error
    if chain.answer is None:
        return []
    return [_value(rdata) for rdata in chain.answer]


def _value(rdata: Any) -> Any:
    rdtype = rdata.rdtype
    if rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA):
        return rdata.address
    if rdtype == dns.rdatatype.MX:
        return rdata.preference, rdata.exchange.to_text(omit_final_dot=True)
    if rdtype == dns.rdatatype.TXT:
        return b"".join(rdata.strings).decode("utf-8", "replace")
    return rdata.target.to_text(omit_final_dot=True)  # NS, CNAME
