"""The DNS client and the blocklists against odd answers: the DNS server of conftest.py sends
crafted bytes for the questions in ``crafted`` (UDP) and ``crafted_tcp``. An answer the
client cannot trust is no answer (``Transient`` with the reason, the tile's N/A), never a
crash and never data; records of another name or class are not the question's."""

from __future__ import annotations

import datetime as dt
import json
import os
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pipelines.live import blocklists
from pipelines.live.checker import EntityFacts, LiveChecker
from pipelines.live.dns_client import DnsClient
from pipelines.live.throttle import Transient
from pipelines.live.tiles import Tile, live_tiles
from tests.live.conftest import AS_OF, BLOCKLIST, BLOCKLIST_2, LiveWorld
from tests.live.servers import Crafted, reply, rr, wire_name

A_10 = bytes([10, 0, 0, 1])
TIMEOUT = 2.0  # the malformed cases must be read well within it, not waited out


def mx(preference: int, exchange: bytes) -> bytes:
    return struct.pack("!H", preference) + exchange


def pointer(offset: int) -> bytes:
    return struct.pack("!H", 0xC000 | offset)


def forward_pointer(q: bytes) -> bytes:
    # the owner points at the MX exchange, which comes after it
    exchange_at = len(q) + 2 + 10 + 2
    return reply(q, rr(pointer(exchange_at), "MX", mx(10, wire_name("mail.example.com"))))


# (id, name, type, the UDP answer, what a lenient reader makes of it)
MALFORMED: list[tuple[str, str, str, Crafted, str]] = [
    ("a forward compression pointer", "fwdptr.crafted.test", "MX", forward_pointer,
     "MX mail.example.com"),
    ("trailing junk", "junk.crafted.test", "A",
     lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10), tail=b"junk"), "A 10.0.0.1"),
    ("an MX target past its record", "mxpast.crafted.test", "MX",
     lambda q: reply(q, rr(b"\xc0\x0c", "MX", mx(10, wire_name("mail.example.com")), rdlength=2)),
     "MX mail.example.com"),
    ("a name over 255 bytes", "longname.crafted.test", "MX",
     lambda q: reply(q, rr(b"\xc0\x0c", "MX", mx(10, wire_name(".".join(["a" * 63] * 5))))),
     "MX aaa...aaa (319 characters)"),
    ("a TXT length byte longer than the record", "txtlen.crafted.test", "TXT",
     lambda q: reply(q, rr(b"\xc0\x0c", "TXT", b"\x40v=spf1 -all")), "SPF v=spf1 -all"),
    ("a compression loop", "loop.crafted.test", "A",
     lambda q: reply(q, rr(pointer(len(q)), "A", A_10)), "a timeout after waiting"),
    ("a pointer past the end", "pastend.crafted.test", "A",
     lambda q: reply(q, rr(pointer(0x3FF0), "A", A_10)), "a timeout after waiting"),
    ("a record cut short", "short.crafted.test", "A",
     lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10)[:-2]), "a timeout after waiting"),
    ("a CNAME loop", "cname-loop.crafted.test", "A",
     lambda q: reply(q, rr(b"\xc0\x0c", "CNAME", wire_name("cname-loop2.crafted.test")),
                     rr(wire_name("cname-loop2.crafted.test"), "CNAME",
                        wire_name("cname-loop.crafted.test"))),
     "no address (a negative answer)"),
]  # fmt: skip

# answers that are not responses to the question: wrong opcode, no QR bit, another question
NOT_RESPONSES: list[tuple[str, str, str, Crafted]] = [
    ("opcode UPDATE", "update.crafted.test", "A",
     lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10), opcode=5)),
    ("the QR bit clear", "noqr.crafted.test", "A",
     lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10), qr=False)),
    ("another question", "otherq.crafted.test", "A",
     lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10),
                     question=wire_name("elsewhere.test") + b"\x00\x01\x00\x01")),
]  # fmt: skip


@pytest.fixture
def client(live_world: LiveWorld) -> DnsClient:
    return DnsClient((("127.0.0.1", live_world.dns.port),), TIMEOUT)


@pytest.fixture
def crafted(live_world: LiveWorld) -> Iterator[Callable[..., None]]:
    """Registers crafted answers on the session's DNS server, removed after the test."""
    added: list[tuple[dict[tuple[str, str], Crafted], tuple[str, str]]] = []

    def add(name: str, rdtype: str, udp: Crafted | None = None, tcp: Crafted | None = None) -> None:
        for table, answer in ((live_world.dns.crafted, udp), (live_world.dns.crafted_tcp, tcp)):
            if answer is not None:
                table[(name, rdtype)] = answer
                added.append((table, (name, rdtype)))

    yield add
    for table, key in added:
        table.pop(key, None)


@pytest.mark.parametrize(("case", "name", "rdtype", "answer", "misread"), MALFORMED,
                         ids=[m[0] for m in MALFORMED])  # fmt: skip
def test_a_malformed_answer_is_no_answer_with_the_reason_at_once(
    client: DnsClient, crafted: Callable[..., None], case: str, name: str, rdtype: str,
    answer: Crafted, misread: str,
) -> None:  # fmt: skip
    crafted(name, rdtype, answer)
    started = time.monotonic()
    with pytest.raises(Transient, match="malformed answer") as raised:
        client.ask([(name, rdtype)])
    assert time.monotonic() - started < TIMEOUT / 2  # not a timeout: the answer was read
    assert f"DNS {rdtype} {name}" in str(raised.value)


@pytest.mark.parametrize(("case", "name", "rdtype", "answer"), NOT_RESPONSES,
                         ids=[m[0] for m in NOT_RESPONSES])  # fmt: skip
def test_an_answer_that_is_no_response_to_the_question_is_not_taken(
    client: DnsClient, crafted: Callable[..., None], case: str, name: str, rdtype: str,
    answer: Crafted,
) -> None:  # fmt: skip
    crafted(name, rdtype, answer)
    # an UPDATE's sections read as an update's (its A record a malformed prerequisite)
    with pytest.raises(Transient, match="not a response to the question|malformed answer"):
        client.ask([(name, rdtype)])


def test_records_of_another_owner_or_class_are_not_the_answer(
    client: DnsClient, crafted: Callable[..., None]
) -> None:
    """`evil.com A 10.0.0.1` in the answer to `owner.crafted.test A` is not its address, nor
    is a class CH record of the right name its SPF."""
    crafted("owner.crafted.test", "A", lambda q: reply(q, rr(wire_name("evil.com"), "A", A_10)))
    spf = b"\x0bv=spf1 +all"
    crafted("chaos.crafted.test", "TXT", lambda q: reply(q, rr(b"\xc0\x0c", "TXT", spf, rdclass=3)))
    assert client.ask([("owner.crafted.test", "A"), ("chaos.crafted.test", "TXT")]) == [[], []]


def test_a_cname_chain_is_followed_and_only_its_end_is_read(
    client: DnsClient, crafted: Callable[..., None]
) -> None:
    target = wire_name("target.crafted.test")
    crafted("alias.crafted.test", "A", lambda q: reply(
        q, rr(b"\xc0\x0c", "CNAME", target), rr(target, "A", bytes([192, 0, 2, 7])),
        rr(wire_name("unrelated.example"), "A", A_10),
    ))  # fmt: skip
    assert client.query("alias.crafted.test", "A") == ["192.0.2.7"]


def test_a_label_holding_a_dot_is_escaped_not_read_as_null_mx(
    client: DnsClient, crafted: Callable[..., None]
) -> None:
    """An exchange whose one label is "." is not the root (RFC 7505 null MX), and a label
    "a.b" is not two labels."""
    crafted("dotlabel.crafted.test", "MX", lambda q: reply(
        q, rr(b"\xc0\x0c", "MX", mx(10, b"\x01.\x00")),
        rr(b"\xc0\x0c", "MX", mx(20, b"\x03a.b\x03com\x00")),
    ))  # fmt: skip
    found = client.lookup("dotlabel.crafted.test")
    assert found.exists and found.mx == ["\\.", "a\\.b.com"]


def test_a_truncated_answer_is_asked_again_over_tcp(
    client: DnsClient, crafted: Callable[..., None], live_world: LiveWorld
) -> None:
    """The TC bit, with or without whole records, sends the question to TCP, where the zone
    answers in full."""
    live_world.zone.add("big.crafted.test", "TXT", '"v=spf1 -all"')
    live_world.zone.add("cut.crafted.test", "TXT", '"v=spf1 -all"')
    crafted("big.crafted.test", "TXT", lambda q: reply(q, tc=True))
    crafted("cut.crafted.test", "TXT", lambda q: reply(
        q, rr(b"\xc0\x0c", "TXT", b"\x0cv=spf1 -all")[:-4], tc=True))  # fmt: skip
    assert client.ask([("big.crafted.test", "TXT"), ("cut.crafted.test", "TXT")]) == [
        ["v=spf1 -all"],
        ["v=spf1 -all"],
    ]


def tcp_reply(make: Callable[[bytes], bytes]) -> Crafted:
    def framed(q: bytes) -> bytes:
        body = make(q)
        return struct.pack("!H", len(body)) + body

    return framed


TCP_FAILURES: list[tuple[str, Crafted, str]] = [
    ("the connection closes early (EOFError)",
     lambda q: struct.pack("!H", 200) + b"\x00" * 20, "closed before the answer was complete"),
    ("an answer with another ID (BadResponse)",
     tcp_reply(lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10), qid=(int.from_bytes(q[:2], "big") + 1) % 65536)),
     "an answer to another question"),
    ("a malformed answer (FormError)",
     tcp_reply(lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10), tail=b"junk")), "malformed answer"),
    ("garbage (ShortHeader)", lambda q: b"\x00\x05hello", "malformed answer"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "tcp", "reason"), TCP_FAILURES, ids=[t[0] for t in TCP_FAILURES])
def test_a_truncated_answer_whose_tcp_retry_fails_is_no_answer(
    client: DnsClient, crafted: Callable[..., None], case: str, tcp: Crafted, reason: str
) -> None:
    crafted("tcpfail.crafted.test", "A", lambda q: reply(q, tc=True), tcp)
    with pytest.raises(Transient, match=reason) as raised:
        client.ask([("tcpfail.crafted.test", "A")])
    assert "over TCP" in str(raised.value)


def test_a_name_that_cannot_be_asked_is_a_value_error_for_that_question_only(
    client: DnsClient,
) -> None:
    long_label = "a" * 64 + ".test"
    answers = client.ask_each([(long_label, "A"), ("probe.test", "A")])
    assert isinstance(answers[0], ValueError) and "not a DNS name" in str(answers[0])
    assert answers[1] == ["127.0.0.1"]


# --- the checks: a lookup that crashed is the tile's N/A with the reason ----------------------


def entity_tiles(checker: LiveChecker, **facts: Any) -> dict[str, Tile]:
    found = checker.check_entity(EntityFacts(abn="51824753556", legal_names=["Nobody Pty Ltd"],
                                             abn_registered=dt.date(2005, 1, 1), **facts))  # fmt: skip
    return live_tiles(found, AS_OF)


def test_a_tcp_retry_that_closes_early_is_n_a_in_the_dns_tiles_and_in_live_check(
    make_checker: Callable[..., LiveChecker], crafted: Callable[..., None]
) -> None:
    """Issue 35 item 1: the lookup of a supplier's domain whose TCP retry closes early ends
    as N/A with the reason, in the tiles and in `bvs live-check`'s step, not a traceback."""
    name = "tcpeof.crafted.test"
    crafted(name, "A", lambda q: reply(q, tc=True), lambda q: struct.pack("!H", 64) + b"\x00")
    checker = make_checker(dns_timeout=TIMEOUT)
    tiles = entity_tiles(checker, domain=name)
    for check in ("email", "web_presence"):
        t = tiles[check]
        assert t.status == "N/A" and t.reason.startswith("Not run"), (check, t.reason)
        assert "EOFError" in t.reason, t.reason
    found = checker.check_domain(name, fresh=True)
    assert "EOFError" in found["dns"]["not_run"]


def test_a_txt_length_byte_past_the_record_is_no_spf(
    make_checker: Callable[..., LiveChecker], crafted: Callable[..., None], live_world: LiveWorld
) -> None:
    """A TXT record whose length byte runs past its end (`\\x40v=spf1 -all`) is no SPF: the
    e-mail tile is N/A with the reason, not PASS."""
    name = "spflen.crafted.test"
    live_world.zone.add(name, "MX", f"10 mail.{name}.")
    live_world.zone.add(f"_dmarc.{name}", "TXT", '"v=DMARC1; p=reject"')
    crafted(name, "TXT", lambda q: reply(q, rr(b"\xc0\x0c", "TXT", b"\x40v=spf1 -all")))
    t = entity_tiles(make_checker(dns_timeout=TIMEOUT), domain="good.com.au",
                     email=f"accounts@{name}")["email"]  # fmt: skip
    assert t.status == "N/A" and "malformed answer" in t.reason, t.reason


def test_bvs_live_check_shows_a_malformed_answer_as_not_run(
    tmp_path: Path, live_world: LiveWorld, crafted: Callable[..., None]
) -> None:
    from tests.live.test_pipeline import live_env

    name = "cli-eof.crafted.test"
    crafted(name, "A", lambda q: reply(q, tc=True), lambda q: struct.pack("!H", 64) + b"\x00")
    env = {**os.environ, **live_env(live_world, tmp_path), "BVS_LIVE_DNS_TIMEOUT": "1"}
    bvs = Path(sys.executable).parent / "bvs"
    done = subprocess.run([str(bvs), "live-check", name], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert "EOFError" in found["dns"]["not_run"], found["dns"]


# --- blocklists: a zone that gave no usable answer is not checked ---------------------------


def zone_answers(crafted: Callable[..., None], domain: str, *answers: Crafted) -> None:
    for zone, answer in zip((BLOCKLIST, BLOCKLIST_2), answers, strict=True):
        crafted(f"{domain}.{zone}", "A", answer)


def a_record(address: str) -> Crafted:
    return lambda q: reply(q, rr(b"\xc0\x0c", "A", bytes(int(p) for p in address.split("."))))


def rcode(code: int) -> Crafted:
    return lambda q: reply(q, rcode=code)


def test_blocklist_answers_that_are_no_listing_leave_the_zone_not_checked(
    client: DnsClient, crafted: Callable[..., None]
) -> None:
    zones = (BLOCKLIST, BLOCKLIST_2)
    zone_answers(crafted, "refused.bl.test", rcode(5), rcode(2))  # REFUSED, SERVFAIL
    zone_answers(crafted, "hijack.bl.test", a_record("198.51.100.7"), a_record("127.0.1.2"))
    zone_answers(crafted, "silent.bl.test", lambda q: None, a_record("127.255.255.254"))
    now = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)

    # an address outside 127.0.0.0/8 is a resolver's page, not a listing (RFC 5782)
    hijack = blocklists.check(client, "hijack.bl.test", zones, now)
    assert hijack.listed == {BLOCKLIST_2: ["127.0.1.2"]}
    assert "198.51.100.7" in hijack.failed[BLOCKLIST]
    refused = blocklists.check(client, "refused.bl.test", zones, now)
    assert refused.clean == [] and refused.listed == {} and set(refused.failed) == set(zones)
    assert "REFUSED" in refused.failed[BLOCKLIST] and "SERVFAIL" in refused.failed[BLOCKLIST_2]
    silent = blocklists.check(client, "silent.bl.test", zones, now)
    assert "timed out" in silent.failed[BLOCKLIST] and BLOCKLIST_2 in silent.rate_limited
    assert silent.clean == [] and silent.listed == {}


def email_domain_with_mail(live_world: LiveWorld, name: str, *, dmarc: bool = True) -> None:
    live_world.zone.add(name, "MX", f"10 mail.{name}.")
    live_world.zone.add(name, "TXT", '"v=spf1 -all"')
    if dmarc:
        live_world.zone.add(f"_dmarc.{name}", "TXT", '"v=DMARC1; p=reject"')


NO_ZONE_ANSWERED = [
    ("every zone answered a rate-limit code", "ratelimit.bl.test",
     (a_record("127.255.255.254"), a_record("127.255.255.255")), True),
    ("every zone answered SERVFAIL or REFUSED", "servfail.bl.test", (rcode(2), rcode(5)), False),
    ("one zone timed out, the other answered outside 127.0.0.0/8", "timeout.bl.test",
     (lambda q: None, a_record("203.0.113.9")), False),
]  # fmt: skip


@pytest.mark.parametrize(("case", "name", "answers", "countdown"), NO_ZONE_ANSWERED,
                         ids=[c[0] for c in NO_ZONE_ANSWERED])  # fmt: skip
def test_email_is_not_pass_when_no_blocklist_answered(
    make_checker: Callable[..., LiveChecker], crafted: Callable[..., None],
    live_world: LiveWorld, case: str, name: str, answers: tuple[Crafted, Crafted],
    countdown: bool,
) -> None:  # fmt: skip
    """Issue 34 item 6: "not blocklisted" needs a zone that answered; without one the e-mail
    tile is N/A with the reason (docs/decisions/18-a-check-that-did-not-run-is-unknown.md), and trust is N/A too."""
    email_domain_with_mail(live_world, name)
    zone_answers(crafted, name, *answers)
    tiles = entity_tiles(make_checker(dns_timeout=TIMEOUT), domain=name)
    email, trust = tiles["email"], tiles["trust"]
    assert email.status == "N/A", email.reason
    assert email.reason.startswith("Not run: no blocklist gave a usable answer"), email.reason
    assert 'PASS needs "not blocklisted"' in email.reason
    assert (email.rate_limited is not None) == countdown
    assert trust.status == "N/A" and "did not answer" in trust.reason, trust.reason


def test_email_warn_rows_stand_when_no_blocklist_answered(
    make_checker: Callable[..., LiveChecker], crafted: Callable[..., None], live_world: LiveWorld
) -> None:
    """A finding that holds whatever the blocklists say (DMARC absent) is still the tile;
    the detail says the blocklists were not checked."""
    name = "nodmarc.bl.test"
    email_domain_with_mail(live_world, name, dmarc=False)
    zone_answers(crafted, name, rcode(2), rcode(2))
    email = entity_tiles(make_checker(dns_timeout=TIMEOUT), domain=name)["email"]
    assert email.reason == "Business domain, MX valid, DMARC absent => WARN"
    assert "no blocklist gave a usable answer" in email.detail["blocklists_not_checked"]


def test_no_blocklist_zones_configured_is_neither_clean_nor_not_blocklisted(
    make_checker: Callable[..., LiveChecker],
) -> None:
    tiles = entity_tiles(make_checker(blocklist_zones=()), domain="good.com.au")
    for check in ("email", "trust"):
        t = tiles[check]
        assert t.status == "N/A" and "no blocklist zones configured" in t.reason, t.reason


def test_a_zone_that_did_not_answer_is_asked_again_after_the_hour(
    make_checker: Callable[..., LiveChecker], crafted: Callable[..., None]
) -> None:
    """Its cached findings expire with the retry, not after the cache's 24 hours."""
    zone_answers(crafted, "retry.bl.test", rcode(2), rcode(2))
    checker = make_checker(dns_timeout=TIMEOUT)
    assert checker.blocklist("retry.bl.test").failed
    assert checker.cache.get("blocklist", "retry.bl.test", now=time.time() + 3500) is not None
    assert checker.cache.get("blocklist", "retry.bl.test", now=time.time() + 3700) is None
