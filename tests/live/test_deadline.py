"""One deadline that holds: a server that accepts and never answers, or sends its headers or
its body a byte at a time (tests/live/servers.py ``SlowServer``), holds a request no longer
than its deadline, and an entity's check (``bvs verify --live``) no longer than its own,
retries included. Each server would hold a client without a deadline for 30 s."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from pipelines.live.checker import EntityFacts, LiveChecker
from pipelines.live.config import Endpoint
from pipelines.live.guard import Guard
from pipelines.live.http import get_json
from pipelines.live.throttle import Limits, Transient
from pipelines.live.tiles import live_tiles
from tests.live.conftest import AS_OF
from tests.live.servers import SlowServer

MODES = ("silent", "drip_headers", "drip_body")
SLACK = 1.0  # a busy shared machine's scheduling
LOOPBACK = Guard(allowed=("127.0.0.0/8",))


@pytest.fixture
def slow() -> Iterator[dict[str, SlowServer]]:
    servers = {mode: SlowServer(mode) for mode in MODES}
    yield servers
    for server in servers.values():
        server.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", MODES)
def test_a_provider_request_stops_at_its_deadline(slow: dict[str, SlowServer], mode: str) -> None:
    started = time.monotonic()
    with pytest.raises(Transient, match="no answer within 1 s"):
        get_json("rdap", f"{slow[mode].base}/domain/x.com.au", timeout=1.0, guard=LOOPBACK)
    assert time.monotonic() - started < 1.0 + SLACK
    started = time.monotonic()
    with pytest.raises(Transient, match="no answer before the time for live checks ran out"):
        get_json("rdap", f"{slow[mode].base}/domain/x.com.au", timeout=5.0,
                 deadline=started + 0.5, guard=LOOPBACK)  # fmt: skip
    assert time.monotonic() - started < 0.5 + SLACK


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("https", "http"), [("silent", "drip_headers"), ("silent", "drip_body")])
def test_a_site_that_never_answers_or_drips_is_not_run_within_its_time(
    make_checker: Callable[..., LiveChecker], slow: dict[str, SlowServer], https: str, http: str
) -> None:
    """The site's HTTPS port accepts and says nothing, its HTTP port drips: each scheme
    has the request timeout (1 s), and the tile is N/A, not "no site"."""
    checker = make_checker(http_timeout=1.0, https_port=slow[https].port, http_port=slow[http].port)
    started = time.monotonic()
    tiles = live_tiles(checker.check_entity(EntityFacts(
        abn="53004085616", legal_names=["Good Pty Ltd"], domain="good.com.au",
        domain_source="override")), AS_OF)  # fmt: skip
    took = time.monotonic() - started
    web = tiles["web_presence"]
    assert web.status == "N/A" and web.reason.startswith("Not run: the site of good.com.au could not be seen now (https: ")  # fmt: skip
    assert web.reason.count("Timeout") == 2  # each scheme timed out
    assert web.detail["domain"] == "good.com.au" and web.detail["domain_source"] == "override"
    assert tiles["domain"].status == "PASS"  # the domain itself is checked as usual
    assert took < 2 * 1.0 + SLACK


@pytest.mark.timeout(180)
def test_verify_live_holds_its_deadline_when_every_server_is_slow(
    make_checker: Callable[..., LiveChecker], live_world: object, slow: dict[str, SlowServer]
) -> None:
    """The site (HTTPS silent, HTTP dripping its headers), RDAP (dripping its body),
    certificate transparency (dripping headers), the scam rating (silent) and a review
    platform (silent), with retries: the entity's check ends at its deadline."""
    budget = 3.0
    checker = make_checker(
        http_timeout=2.0,
        https_port=slow["silent"].port,
        http_port=slow["drip_headers"].port,
        rdap_au_url=f"{slow['drip_body'].base}/",
        ct_url=f"{slow['drip_headers'].base}/ct?q={{domain}}",
        scam_rating=Endpoint("scam", f"{slow['silent'].base}/scam"),
        review_platforms=(Endpoint("slow-reviews", f"{slow['silent'].base}/reviews"),),
        limits={**make_checker().config.limits, "rdap": Limits(retries=2, backoff=0.01),
                "ct": Limits(retries=2, backoff=0.01)},
    )  # fmt: skip
    facts = EntityFacts(abn="53004085616", legal_names=["Good Pty Ltd"], domain="good.com.au",
                        domain_source="override")  # fmt: skip
    started = time.monotonic()
    tiles = live_tiles(checker.check_entity(facts, fresh=True, deadline=started + budget), AS_OF)
    took = time.monotonic() - started
    assert took < budget + SLACK, took
    for check in ("domain", "web_presence", "trust", "customer_reviews"):
        assert tiles[check].status == "N/A" and tiles[check].reason.startswith("Not run"), check
