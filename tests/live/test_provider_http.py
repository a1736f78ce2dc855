"""Provider calls never leave the provider, and a rate limit is the endpoint's, bounded and
forgotten on time: redirects followed only on the same host (the key never reaches another),
every connection's address checked, a 429 from one RDAP server leaving the others alone and
no result cached as "rate limited" — against the servers of conftest.py and servers.py."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable, Iterator

import pytest

from pipelines.live.checker import Failed, LiveChecker
from pipelines.live.config import Endpoint, Secret
from pipelines.live.http import retry_after
from tests.live.conftest import LiveWorld, rdap_registered, years_ago
from tests.live.servers import RecordingServer
from tests.live.test_tiles import tiles_for


@pytest.fixture
def elsewhere() -> Iterator[RecordingServer]:
    server = RecordingServer(body='{"score": 99, "flags": []}')
    yield server
    server.close()


def test_a_provider_redirecting_to_another_host_is_not_followed_and_never_gets_the_key(
    make_checker: Callable[..., LiveChecker], live_world: LiveWorld, elsewhere: RecordingServer
) -> None:
    path = "/scam-moved?domain=good.com.au"
    live_world.sites.raw[path] = (302, {"Location": f"http://localhost:{elsewhere.port}/steal"}, "")
    checker = make_checker(scam_rating=Endpoint("scam", f"{live_world.web.base}/scam-moved",
                                                Secret("scam-key-456")))  # fmt: skip
    t = tiles_for(checker, domain="good.com.au")["trust"]
    assert t.status == "N/A"
    assert "the scam rating failed (redirect to another host or port (localhost) not followed)" in t.reason  # fmt: skip
    assert elsewhere.seen == []  # neither the request nor the key reached the other host
    assert "Bearer scam-key-456" in live_world.sites.keys_seen  # the provider's own host had it


def test_an_rdap_redirect_to_a_private_address_is_not_followed(
    make_checker: Callable[..., LiveChecker],
) -> None:
    started = time.monotonic()
    t = tiles_for(make_checker(), domain="offhost.com.au")["domain"]
    assert t.reason == "Not run: the RDAP lookup failed (redirect to another host or port (10.0.0.1) not followed) => N/A"  # fmt: skip
    assert time.monotonic() - started < 5.0  # no connection attempt to 10.0.0.1 to time out


def test_an_rdap_redirect_on_the_same_host_is_followed(
    make_checker: Callable[..., LiveChecker],
) -> None:
    t = tiles_for(make_checker(), domain="moved.com.au")["domain"]
    assert t.status == "PASS" and t.detail["rdap"]["source"].endswith("/au-rdap/domain/moved.com.au")  # fmt: skip


def test_a_provider_at_a_non_public_address_is_refused(
    make_checker: Callable[..., LiveChecker], live_world: LiveWorld
) -> None:
    """The bootstrap's RDAP server is at 127.0.0.1: with only public addresses allowed
    (production) it is not asked."""
    before = len(live_world.sites.requests)
    with pytest.raises(Failed, match=r"^rdap: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a non-public address: refused$"):  # fmt: skip
        make_checker(allow_private=False).rdap_lookup("good.com")
    assert live_world.sites.requests[before:] == []


@pytest.fixture
def limited_registry() -> Iterator[RecordingServer]:
    server = RecordingServer(status=429, headers={"Retry-After": "2"}, body='{"errorCode": 429}')
    yield server
    server.close()


def test_a_rate_limited_registry_beside_a_healthy_one(
    make_checker: Callable[..., LiveChecker], limited_registry: RecordingServer
) -> None:
    """.au's RDAP server answers 429 (Retry-After: 2 s); .com's (the bootstrap's) answers.
    The limit holds .au's server only, is not written into any result, and once it has
    passed every .au domain is asked afresh."""
    checker = make_checker(rdap_au_url=f"{limited_registry.base}/rdap/")
    first = tiles_for(checker, domain="good.com.au")["domain"]
    assert first.status == "N/A" and first.rate_limited is not None
    assert first.reason == "Not run: the registry's RDAP service is rate limiting us => N/A"
    # another registry is not rate limited by it
    assert tiles_for(checker, domain="good.com")["domain"].status == "PASS"
    # another domain of the same registry waits for the same time, without asking
    other = tiles_for(checker, domain="midage.com.au")["domain"]
    assert other.rate_limited == first.rate_limited
    assert len(limited_registry.seen) == 1
    # no result says "rate limited": the domains have no cached answer at all
    assert checker.cache.get("rdap", "good.com.au") is None
    assert checker.cache.get("rdap", "midage.com.au") is None
    # a restart (same cache) honours the standing limit; after its time, both are asked
    restarted = make_checker(rdap_au_url=f"{limited_registry.base}/rdap/")
    assert tiles_for(restarted, domain="midage.com.au")["domain"].rate_limited is not None
    assert len(limited_registry.seen) == 1
    retry_at = dt.datetime.fromisoformat(str(first.rate_limited).replace("Z", "+00:00"))
    limited_registry.status, limited_registry.headers = 200, {}
    limited_registry.body = json.dumps(rdap_registered(years_ago(6)))
    time.sleep(max(0.0, (retry_at - dt.datetime.now(dt.UTC)).total_seconds()) + 1.1)
    assert tiles_for(restarted, domain="good.com.au")["domain"].status == "PASS"
    assert tiles_for(restarted, domain="midage.com.au")["domain"].status == "PASS"
    assert [path for path, _ in limited_registry.seen[1:]] == [
        "/rdap/domain/good.com.au", "/rdap/domain/midage.com.au"]  # fmt: skip


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("999999999999", 3600),
        ("Wed, 21 Oct 2099 07:28:00 GMT", 3600),
        ("120", 120),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0),  # past: ask again now
        ("soon", 900),  # unreadable: the default, 15 minutes
        ("", 900),
    ],
)
def test_retry_after_is_believed_for_an_hour_at_most(value: str, seconds: int) -> None:
    now = dt.datetime.now(dt.UTC)
    wait = (retry_after({"Retry-After": value}, dt.timedelta(minutes=15)) - now).total_seconds()
    assert seconds - 1 <= wait <= seconds + 1
