"""Every docs/rules.md row of the live checks, against the DNS and HTTP(S) servers of conftest.py
(real dnspython and requests clients, no mocks). One row, one case, the SPEC's words in its id."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from pipelines.live.checker import EntityFacts, LiveChecker
from pipelines.live.config import Endpoint
from pipelines.live.tiles import live_tiles
from tests.live.conftest import AS_OF, LiveWorld

OLD_ABN = dt.date(2005, 1, 1)


def tiles_for(checker: LiveChecker, **facts: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"abn": "51824753556", "legal_names": ["Nobody Here Pty Ltd"],
                            "abn_registered": OLD_ABN}  # fmt: skip
    base.update(facts)
    return live_tiles(checker.check_entity(EntityFacts(**base)), AS_OF)


DOMAIN_ROWS = [
    ("good.com.au", OLD_ABN, "Age 2 years or more, DMARC present, SPF present => PASS"),
    ("midage.com.au", OLD_ABN, "Age 6 months to 2 years, DMARC present => PASS"),
    ("nodmarc.com.au", OLD_ABN, "Age 6 months to 2 years, DMARC absent => WARN"),
    # a new business: its ABN is younger than its domain
    ("under6.com.au", dt.date(2026, 10, 1), "Age under 6 months => WARN"),
    (
        "under6.com.au",
        OLD_ABN,
        "Age under 6 months, registered after the ABN registration date => FAIL",
    ),
    # registered after the ABN but 3 years old: the age rows decide (decided)
    (
        "afterabn.com.au",
        dt.date(2020, 1, 1),
        "Age 2 years or more, DMARC present, SPF present => PASS",
    ),
    ("young.com.au", OLD_ABN, "Age under 3 months => FAIL"),
    ("listed.com.au", OLD_ABN, "Domain on a fraud or spam blocklist => FAIL"),
    ("redacted.com.au", OLD_ABN, "Creation date redacted (unknown age) => WARN"),
    ("old-nodmarc.com.au", OLD_ABN, "Age 2 years or more, DMARC or SPF absent => WARN (decided)"),
]


@pytest.mark.parametrize(
    ("domain", "abn_registered", "row"), DOMAIN_ROWS, ids=[r[2] for r in DOMAIN_ROWS]
)
def test_domain_age_rows(make_checker: Callable[..., LiveChecker], domain: str,
                         abn_registered: dt.date, row: str) -> None:  # fmt: skip
    t = tiles_for(make_checker(), domain=domain, abn_registered=abn_registered)["domain"]
    assert t.reason == row
    assert t.status == row.split("=> ")[1].split()[0]


def test_certificate_transparency_in_the_domain_detail(
    make_checker: Callable[..., LiveChecker],
) -> None:
    t = tiles_for(make_checker(), domain="good.com.au")["domain"]
    ct = t.detail["certificate_transparency"]
    assert ct["certificates"] == 3  # the duplicate entry counted once
    assert ct["earliest"] == "2018-03-01"
    assert ct["subdomain_certificates"] == 1 and ct["subdomains"] == ["shop.good.com.au"]
    assert t.detail["rdap"]["registered"] == t.detail["registered"]


EMAIL_ROWS = [
    (
        {"domain": "good.com.au"},
        "Business domain, MX valid, SPF and DMARC present, not blocklisted => PASS",
    ),
    ({"domain": "nodmarc.com.au"}, "Business domain, MX valid, DMARC absent => WARN"),
    ({"domain": "good.com.au", "email": "owner@gmail.com"}, "Free e-mail provider => WARN"),
    ({"domain": "nomx.com.au"}, "No MX records => FAIL"),
    ({"domain": "good.com.au", "email": "accounts@nullmx.com.au"}, "No MX records => FAIL"),
    (
        {"domain": "good.com.au", "email": "billing@listed.com.au"},
        "Domain on a spam or phishing blocklist => FAIL",
    ),
    (
        {"domain": "nospf.com.au"},
        "Business domain, MX valid, DMARC present, SPF absent => WARN (decided)",
    ),
]


@pytest.mark.parametrize(("facts", "row"), EMAIL_ROWS, ids=[r[1] for r in EMAIL_ROWS])
def test_email_rows(
    make_checker: Callable[..., LiveChecker], facts: dict[str, str], row: str
) -> None:
    assert tiles_for(make_checker(), **facts)["email"].reason == row


def test_blocklist_rate_limit_answers_are_filtered_out(
    make_checker: Callable[..., LiveChecker],
) -> None:
    """docs/rules.md: a 127.255.255.x answer is never a listing; the zone is unknown until retry."""
    t = tiles_for(make_checker(), domain="blratelimit.com.au")
    assert t["email"].status == "PASS"
    assert t["domain"].status == "PASS"
    assert t["trust"].status == "N/A" and t["trust"].reason.startswith("Not run")
    assert t["trust"].rate_limited is not None
    assert t["trust"].detail["blocklists"]["listed"] == {}


TRUST_ROWS = [
    ("good.com.au", "Clean on all blocklists and the scam-rating service => PASS"),
    ("midscore.com.au", "One minor flag, or scam rating (scale 1-100) below 60 => WARN"),
    ("oneflag.com.au", "One minor flag, or scam rating (scale 1-100) below 60 => WARN"),
    ("listed.com.au", "Active blocklist listing => FAIL"),
    ("lowscore.com.au", "Scam rating below 30 => FAIL"),
    # more than one minor flag is not clean (decided)
    ("twoflags.com.au", "Two or more flags from the scam-rating service => WARN (decided)"),
]


@pytest.mark.parametrize(
    ("domain", "row"), TRUST_ROWS, ids=[f"{r[1]} ({r[0]})" for r in TRUST_ROWS]
)
def test_trust_rows(make_checker: Callable[..., LiveChecker], domain: str, row: str) -> None:
    assert tiles_for(make_checker(), domain=domain)["trust"].reason == row


def test_trust_without_a_scam_rating_provider_is_not_run(make_checker: Callable[..., LiveChecker],
                                                         live_world: LiveWorld) -> None:  # fmt: skip
    t = tiles_for(make_checker(scam_rating=None), domain="good.com.au")["trust"]
    assert t.status == "N/A" and "scam-rating provider not configured" in t.reason
    assert t.reason.startswith("Not run")
    # the scam-rating key went to the provider as a bearer token, and is not in any tile
    keyed = tiles_for(make_checker(), domain="good.com.au")
    assert "Bearer scam-key-123" in live_world.sites.keys_seen
    assert "scam-key-123" not in repr(keyed) and "scam-key-123" not in repr(make_checker().config)


WEB_ROWS = [
    (
        {"domain": "good.com.au"},
        "Active site, HTTPS, established content (resolves, returns 200) => PASS",
    ),
    (
        {"domain": "redirect.com.au"},
        "Active site, HTTPS, established content (resolves, returns 200) => PASS",
    ),
    ({"domain": "httponly.com.au"}, "Live but new, thin content or HTTP only => WARN (HTTP only)"),
    ({"domain": "thin.com.au"}, "Live but new, thin content or HTTP only => WARN (thin content)"),
    (
        {"domain": "newsite.com.au"},
        "Live but new, thin content or HTTP only => WARN (domain under 6 months)",
    ),
    ({"domain": "parked.com.au"}, "Parked or placeholder page => FAIL"),
    ({"domain": "parkedns.com.au"}, "Parked or placeholder page => FAIL"),
    ({"domain": "placeholder.com.au"}, "Parked or placeholder page => FAIL"),
    ({"domain": "defaultpage.com.au"}, "Parked or placeholder page => FAIL"),  # "It works!"
    # a domain-sale lander ("Get this domain ... $2,495") is parked, not thin content
    ({"domain": "forsale.com.au"}, "Parked or placeholder page => FAIL"),
    # a business page that mentions "coming soon" or "How it works!" is no placeholder
    (
        {"domain": "showroom.com.au"},
        "Active site, HTTPS, established content (resolves, returns 200) => PASS",
    ),
    (
        {"domain": "howitworks.com.au"},
        "Active site, HTTPS, established content (resolves, returns 200) => PASS",
    ),
    # a given domain (ledger, override) is no search: its own words (decided)
    ({"domain": "loop.com.au"}, "No site at the domain given (ledger) => FAIL (decided)"),
    (
        {"legal_names": ["Zzqx Nothing Pty Ltd"]},
        "No site found across all candidate domains (up to 16 patterns) => FAIL",
    ),
    ({"legal_names": ["Jane Citizen"], "is_individual": True}, "Sole trader with no domain => N/A"),
]


@pytest.mark.parametrize(("facts", "row"), WEB_ROWS, ids=[f"{r[1]} {r[0]}" for r in WEB_ROWS])
def test_web_presence_rows(
    make_checker: Callable[..., LiveChecker], facts: dict[str, Any], row: str
) -> None:
    assert tiles_for(make_checker(), **facts)["web_presence"].reason == row


def test_a_domain_with_no_web_server_given_by_the_user_is_no_candidate_search(
    make_checker: Callable[..., LiveChecker],
) -> None:
    """Nothing listens on port 1: no site at the user's domain, in the words of a given
    domain, not of the 16 candidates."""
    checker = make_checker(https_port=1, http_port=1)
    t = tiles_for(checker, domain="good.com.au", domain_source="override")["web_presence"]
    assert t.reason == "No site at the domain given (override) => FAIL (decided)"
    assert t.detail["site"]["error"] == "https: ConnectionError; http: ConnectionError"


def test_a_precertificate_and_its_certificate_count_once(
    make_checker: Callable[..., LiveChecker],
) -> None:
    ct = tiles_for(make_checker(), domain="precert.com.au")["domain"].detail["certificate_transparency"]  # fmt: skip
    assert ct["certificates"] == 2  # serial 0abc from issuer 7 (twice logged), and issuer 8's


def test_a_failed_lookup_names_its_provider_once(make_checker: Callable[..., LiveChecker]) -> None:
    t = tiles_for(make_checker(), domain="rdap400.com.au")["domain"]
    assert t.reason == "Not run: the RDAP lookup failed (HTTP 400) => N/A"


def test_redirects_are_followed_within_the_bound(make_checker: Callable[..., LiveChecker]) -> None:
    site = tiles_for(make_checker(), domain="redirect.com.au")["web_presence"].detail["site"]
    assert site["redirects"] == 1 and site["final_url"] == "https://www.redirect.com.au/home"
    looped = tiles_for(make_checker(), domain="loop.com.au")["web_presence"].detail["site"]
    assert looped["redirects"] == 5 and looped["live"] is False, json.dumps(looped)


def test_candidates_trading_names_first_and_the_first_live_non_parked_domain_wins(
    make_checker: Callable[..., LiveChecker],
) -> None:
    t = tiles_for(make_checker(), legal_names=["Smith Holdings Pty Ltd"],
                  trading_names=["Acme Plumbing Brisbane"])  # fmt: skip
    web = t["web_presence"]
    assert web.status == "PASS"
    assert (
        web.detail["domain"] == "acmeplumbing.com" and web.detail["domain_source"] == "web_presence"
    )
    assert web.detail["candidates"][:4] == ["acmeplumbing.com.au", "acmeplumbing.com", "acmeplumbing.au",
                                            "acmeplumbing.net.au"]  # fmt: skip
    assert t["domain"].detail["domain"] == "acmeplumbing.com"
    assert t["domain"].status == "PASS"


def test_no_domain_found_is_a_finding_not_a_missing_check(
    make_checker: Callable[..., LiveChecker],
) -> None:
    t = tiles_for(make_checker(), legal_names=["Zzqx Nothing Pty Ltd"])
    assert t["domain"].status == "N/A" and not t["domain"].reason.startswith("Not run")
    assert len(t["web_presence"].detail["candidates"]) <= 16


def test_an_override_pointing_at_a_private_address_is_refused(make_checker: Callable[..., LiveChecker],
                                                              live_world: LiveWorld) -> None:  # fmt: skip
    before = len(live_world.sites.requests)
    t = tiles_for(
        make_checker(allow_private=False), domain="internal.com.au", domain_source="override"
    )
    for check in ("domain", "trust", "web_presence", "email"):
        assert t[check].status == "N/A", check
        assert "refused" in t[check].reason and "127.0.0.1" in t[check].reason
    assert not [r for r in live_world.sites.requests[before:] if r[0] == "internal.com.au"]


def test_a_redirect_to_a_private_address_is_refused_and_the_domain_checked_as_usual(
    make_checker: Callable[..., LiveChecker], live_world: LiveWorld
) -> None:
    """hopprivate.com.au is listed and its home page redirects to 10.0.0.1: the hop is
    refused (web presence says so) and the listing fails the domain, e-mail and trust, as
    it does without the redirect. Loopback stands in for the public internet here."""
    checker = make_checker(allow_private=False, allow_networks=("127.0.0.0/8",))
    t = tiles_for(checker, domain="hopprivate.com.au", domain_source="override")
    assert t["domain"].reason == "Domain on a fraud or spam blocklist => FAIL"
    assert t["email"].reason == "Domain on a spam or phishing blocklist => FAIL"
    assert t["trust"].reason == "Active blocklist listing => FAIL"
    web = t["web_presence"]
    assert web.status == "N/A" and web.reason == (
        "Not run: the site of hopprivate.com.au was not seen: the redirect to 10.0.0.1"
        " (intranet.hopprivate.com.au) was refused: a non-public address => N/A"
    )
    assert web.detail["domain"] == "hopprivate.com.au"
    assert not [r for r in live_world.sites.requests if r[0] == "intranet.hopprivate.com.au"]


def test_an_ipv6_address_carrying_a_private_ipv4_one_is_refused(
    make_checker: Callable[..., LiveChecker],
) -> None:
    checker = make_checker(allow_private=False, allow_networks=("127.0.0.0/8",))
    t = tiles_for(checker, domain="sixtofour.com.au", domain_source="override")["web_presence"]
    assert t.status == "N/A" and "sixtofour.com.au resolves to 2002:a00:1::" in t.reason
    assert "refused" in t.reason


def test_rdap_rate_limit_gives_the_countdown_and_a_retry_after_it_fetches_fresh(
    make_checker: Callable[..., LiveChecker], live_world: LiveWorld
) -> None:
    world = live_world.sites
    world.rdap_rate_limited["rdaplimited.com.au"] = 1
    checker = make_checker()
    first = tiles_for(checker, domain="rdaplimited.com.au")["domain"]
    assert first.status == "N/A" and first.rate_limited is not None
    retry_at = dt.datetime.fromisoformat(first.rate_limited.replace("Z", "+00:00"))
    assert retry_at > dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    # the provider recovers; before retry_at the cache answers (no call), after it a fresh one
    del world.rdap_rate_limited["rdaplimited.com.au"]
    world.rdap["rdaplimited.com.au"] = {
        "events": [{"eventAction": "registration", "eventDate": "2015-05-05T00:00:00Z"}]
    }
    calls = lambda: sum(1 for h, p in world.requests if p.endswith("/domain/rdaplimited.com.au"))  # noqa: E731
    seen = calls()
    assert tiles_for(checker, domain="rdaplimited.com.au")["domain"].rate_limited is not None
    assert calls() == seen
    time.sleep(max(0.0, (retry_at - dt.datetime.now(dt.UTC)).total_seconds()) + 1.1)
    again = tiles_for(checker, domain="rdaplimited.com.au")["domain"]
    assert again.status == "PASS" and again.rate_limited is None
    assert calls() == seen + 1


def test_reviews_in_parallel_with_a_six_second_timeout_each(make_checker: Callable[..., LiveChecker],
                                                             live_world: LiveWorld) -> None:  # fmt: skip
    w, base = live_world.sites, live_world.web.base
    abn = "51824753556"
    w.reviews = {"fast": {abn: {"found": True, "rating": 4.6, "count": 31}},
                 "few": {abn: {"found": True, "rating": 4.9, "count": 3}},
                 "slow": {abn: {"found": True, "rating": 5.0, "count": 500}}}  # fmt: skip
    w.review_delay = {"slow": 7.0}
    platforms = tuple(Endpoint(n, f"{base}/reviews/{n}") for n in ("fast", "few", "slow"))
    checker = make_checker(review_platforms=platforms)
    started = time.monotonic()
    t = tiles_for(checker, domain="good.com.au")["customer_reviews"]
    took = time.monotonic() - started
    assert t.reason == "Best source at least 4.0 stars with at least 10 reviews => PASS"
    slow = next(p for p in t.detail["platforms"] if p["platform"] == "slow")
    assert slow["found"] is False and "no answer within 6 s" in slow["error"]
    assert 5.5 < took < 7.0  # the three at once, the slow one cut at 6 s
    few = make_checker(review_platforms=platforms[1:2])
    assert tiles_for(few, domain="good.com.au")["customer_reviews"].reason == (
        "Reviews found but below 4.0 stars or fewer than 10 reviews => WARN"
    )
    nothing = make_checker(review_platforms=platforms[:1])
    assert (
        tiles_for(nothing, abn="53004085616", domain="good.com.au")["customer_reviews"].reason
        == "Not found => N/A"
    )


def test_unconfigured_providers_are_not_run(make_checker: Callable[..., LiveChecker]) -> None:
    t = tiles_for(make_checker(), domain="good.com.au", phone="07 3000 0000")
    for check in ("customer_reviews", "phone", "street_view", "social"):
        assert t[check].status == "N/A" and t[check].reason.startswith("Not run"), check
        assert "not configured" in t[check].reason


def test_offline_every_live_tile_is_not_run_at_once(
    make_checker: Callable[..., LiveChecker],
) -> None:
    checker = make_checker(probe_name="unresolvable.test")
    started = time.monotonic()
    t = tiles_for(checker, domain="good.com.au")
    assert time.monotonic() - started < 1.0
    assert all(
        tile.status == "N/A" and tile.reason.startswith("Not run: no network")
        for tile in t.values()
    )
    off = tiles_for(make_checker(enabled=False), domain="good.com.au")
    assert off["domain"].reason == "Not run: live checks are off (BVS_LIVE_CHECKS=false) => N/A"
