"""One DNS server and one HTTP(S) server for every live-check test (session scope), with
test zones: the docs/rules.md rows' cases, each a domain of its own."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipelines.live.checker import LiveChecker
from pipelines.live.config import Endpoint, LiveConfig, Secret
from tests.live.servers import DnsServer, Site, WebServer, WebWorld, Zone

AS_OF = dt.date(2026, 11, 1)
BLOCKLIST = "dbl.test"
BLOCKLIST_2 = "uri.test"
RICH = (
    "<html><head><title>{name}</title></head><body>"
    + (
        "<p>We are an established Brisbane plumbing business serving homes and businesses"
        " since 2001. Our licensed team handles maintenance, renovations and emergencies.</p>" * 8
    )
    + "</body></html>"
)


def rdap_registered(day: dt.date) -> dict[str, Any]:
    return {"events": [{"eventAction": "registration", "eventDate": f"{day.isoformat()}T00:00:00Z"},
                       {"eventAction": "last changed", "eventDate": "2026-01-01T00:00:00Z"}]}  # fmt: skip


def years_ago(n: float) -> dt.date:
    return AS_OF - dt.timedelta(days=int(365.25 * n))


@dataclass
class LiveWorld:
    dns: DnsServer
    web: WebServer
    zone: Zone
    sites: WebWorld

    def config(self, tmp: Path, **changes: Any) -> LiveConfig:
        base = LiveConfig(
            resolvers=(("127.0.0.1", self.dns.port),),
            dns_timeout=2.0,
            blocklist_zones=(BLOCKLIST, BLOCKLIST_2),
            rdap_bootstrap_url=f"{self.web.base}/rdap/bootstrap.json",
            rdap_au_url=f"{self.web.base}/au-rdap/",
            ct_url=f"{self.web.base}/ct?q=%25.{{domain}}",
            scam_rating=Endpoint("scam", f"{self.web.base}/scam", Secret("scam-key-123")),
            http_timeout=10.0,  # generous: the shared test machine can be very busy
            cache_path=tmp / "live-cache.sqlite",
            probe_name="probe.test",
            allow_private=True,
            https_port=self.web.https_port,
            http_port=self.web.http_port,
            ca_bundle=self.web.ca_bundle,
        )
        return base.with_(**changes)


def build_zone_and_sites() -> tuple[Zone, WebWorld, list[str]]:
    zone, w = Zone(), WebWorld()
    zone.add("probe.test", "A", "127.0.0.1")

    def domain(name: str, *, mx: bool = True, spf: bool = True, dmarc: bool = True,
               registered: dt.date | None = None, site: Site | None = None, ns: str | None = None) -> None:  # fmt: skip
        zone.add(name, "A", "127.0.0.1")
        if mx:
            zone.add(name, "MX", f"10 mail.{name}.")
        if spf:
            zone.add(
                name,
                "TXT",
                '"v=spf1 include:_spf.example.net -all"',
                '"google-site-verification=x"',
            )
        if dmarc:
            zone.add(f"_dmarc.{name}", "TXT", '"v=DMARC1; p=reject"')
        if ns:
            zone.add(name, "NS", f"{ns}.")
        if registered:
            w.rdap[name] = rdap_registered(registered)
        w.sites[name] = site if site is not None else Site(body=RICH.format(name=name))

    domain("good.com.au", registered=years_ago(8))
    w.ct["good.com.au"] = [
        {
            "id": 1,
            "not_before": "2018-03-01T00:00:00",
            "name_value": "good.com.au\nwww.good.com.au",
        },
        {"id": 2, "not_before": "2019-03-01T00:00:00", "name_value": "shop.good.com.au"},
        {"id": 2, "not_before": "2019-03-01T00:00:00", "name_value": "shop.good.com.au"},
        {"id": 3, "not_before": "2024-03-01T00:00:00", "name_value": "*.good.com.au"},
    ]
    domain("good.com", registered=years_ago(10))
    domain("nodmarc.com.au", dmarc=False, registered=years_ago(1))
    domain("midage.com.au", registered=years_ago(1))
    domain("old-nodmarc.com.au", dmarc=False, registered=years_ago(5))
    domain("nospf.com.au", spf=False, registered=years_ago(5))
    domain("nomx.com.au", mx=False, registered=years_ago(5))
    zone.add("nullmx.com.au", "A", "127.0.0.1")
    zone.add("nullmx.com.au", "MX", "0 .")
    domain("young.com.au", registered=AS_OF - dt.timedelta(days=40))
    domain("under6.com.au", registered=AS_OF - dt.timedelta(days=130))
    domain("afterabn.com.au", registered=years_ago(3))
    domain("redacted.com.au")
    w.rdap["redacted.com.au"] = {"events": [{"eventAction": "last changed", "eventDate": "2026-01-01T00:00:00Z"}],
                                 "redacted": [{"name": {"type": "Registration Date"}, "method": "removal"}]}  # fmt: skip
    domain("unregistered.com.au")
    domain("listed.com.au", registered=years_ago(6))
    zone.add(f"listed.com.au.{BLOCKLIST}", "A", "127.0.1.2")
    domain("blratelimit.com.au", registered=years_ago(6))
    zone.add(f"blratelimit.com.au.{BLOCKLIST}", "A", "127.255.255.254")
    domain("lowscore.com.au", registered=years_ago(6))
    w.scam["lowscore.com.au"] = {"score": 20, "flags": ["reports"]}
    domain("midscore.com.au", registered=years_ago(6))
    w.scam["midscore.com.au"] = {"score": 45, "flags": []}
    domain("oneflag.com.au", registered=years_ago(6))
    w.scam["oneflag.com.au"] = {"score": 80, "flags": ["new contact details"]}
    domain("rdaplimited.com.au")
    domain(
        "thin.com.au", registered=years_ago(6), site=Site(body="<html><body>Hello</body></html>")
    )
    domain(
        "httponly.com.au",
        registered=years_ago(6),
        site=Site(body=RICH.format(name="h"), https=False),
    )
    domain("parked.com.au", registered=years_ago(6),
           site=Site(body="<html><body><h1>This domain is for sale!</h1> Buy this domain today.</body></html>"))  # fmt: skip
    domain("parkedns.com.au", registered=years_ago(6), ns="ns1.sedoparking.com",
           site=Site(body=RICH.format(name="x")))  # fmt: skip
    domain("placeholder.com.au", registered=years_ago(6),
           site=Site(body="<html><head><title>Coming Soon</title></head><body>Our new website is coming soon.</body></html>"))  # fmt: skip
    domain("newsite.com.au", registered=AS_OF - dt.timedelta(days=100))
    domain(
        "redirect.com.au",
        registered=years_ago(6),
        site=Site(status=301, location="https://www.redirect.com.au/home"),
    )
    zone.add("www.redirect.com.au", "A", "127.0.0.1")
    w.sites["www.redirect.com.au"] = Site(body=RICH.format(name="redirected"))
    domain("loop.com.au", registered=years_ago(6), site=Site(status=302, location="/again"))
    domain("down.com.au", registered=years_ago(6), site=Site(status=503, body="down"))
    # web-presence candidates: "Acme Plumbing": acmeplumbing.com.au parked, .com live
    domain(
        "acmeplumbing.com.au",
        registered=years_ago(6),
        site=Site(body="<html><body>Buy this domain</body></html>"),
    )
    domain("acmeplumbing.com", registered=years_ago(7))
    # a listed e-mail domain and a private-address override
    domain("internal.com.au", registered=years_ago(6))

    # providers' odd answers: each must be the tile's N/A with the reason, never an error
    def odd(path: str, body: Any, status: int = 200, **headers: str) -> None:
        w.raw[path] = (status, headers, body if isinstance(body, str) else json.dumps(body))

    for name in ("rdaplist", "rdapevents", "rdaphuge", "rdap2099", "rdap400", "rdapdate",
                 "ctodd", "scamodd"):  # fmt: skip
        domain(f"{name}.com.au", registered=years_ago(6))
    odd("/au-rdap/domain/rdaplist.com.au", [1, 2])
    odd("/au-rdap/domain/rdapevents.com.au", {"events": {"eventAction": "registration"}})
    odd("/au-rdap/domain/rdapdate.com.au",
        {"events": [{"eventAction": "registration", "eventDate": "last Tuesday"}]})  # fmt: skip
    odd("/au-rdap/domain/rdaphuge.com.au", "slow down", 429, **{"Retry-After": "999999999999"})
    odd("/au-rdap/domain/rdap2099.com.au", "down", 503,
        **{"Retry-After": "Wed, 21 Oct 2099 07:28:00 GMT"})  # fmt: skip
    odd("/au-rdap/domain/rdap400.com.au", {"errorCode": 400}, 400)
    odd("/ct?q=%25.ctodd.com.au", [1, "x", None])
    odd("/scam?domain=scamodd.com.au", {"score": "abc", "flags": []})
    # an RDAP server that moves a record on the same host, and one that sends it elsewhere
    domain("moved.com.au")
    odd("/au-rdap/domain/moved.com.au", "", 301, Location="/au-rdap/v2/domain/moved.com.au")
    odd("/au-rdap/v2/domain/moved.com.au", rdap_registered(years_ago(6)))
    domain("offhost.com.au")
    odd(
        "/au-rdap/domain/offhost.com.au",
        "",
        302,
        Location="http://10.0.0.1/rdap/domain/offhost.com.au",
    )
    # a listed domain whose home page redirects to a private address: the hop is refused,
    # the domain is checked as usual
    domain("hopprivate.com.au", registered=years_ago(6),
           site=Site(status=301, location="https://intranet.hopprivate.com.au/"))  # fmt: skip
    zone.add(f"hopprivate.com.au.{BLOCKLIST}", "A", "127.0.1.2")
    zone.add("intranet.hopprivate.com.au", "A", "10.0.0.1")
    # an IPv6 address that carries a private IPv4 one (6to4, 2002::/16)
    domain("sixtofour.com.au", registered=years_ago(6))
    zone.add("sixtofour.com.au", "AAAA", "2002:a00:1::")
    # pages that are or are not what their words say
    showroom = RICH.replace("</body>", "<p>Our second showroom is coming soon.</p></body>")
    domain("showroom.com.au", registered=years_ago(6), site=Site(body=showroom.format(name="s")))
    domain("howitworks.com.au", registered=years_ago(6),
           site=Site(body=RICH.replace("<body>", "<body><h2>How it works!</h2>").format(name="h")))  # fmt: skip
    domain("forsale.com.au", registered=years_ago(6), site=Site(body=(
        "<html><head><title>forsale.com.au</title></head><body><h1>forsale.com.au</h1>"
        "<p>Get this domain</p><p>$2,495</p><a>Buy now</a></body></html>")))  # fmt: skip
    domain("defaultpage.com.au", registered=years_ago(6),
           site=Site(body="<html><body><h1>It works!</h1></body></html>"))  # fmt: skip
    # a precertificate and its certificate (one issuer and serial): one certificate
    domain("precert.com.au", registered=years_ago(6))
    w.ct["precert.com.au"] = [
        {"id": 10, "issuer_ca_id": 7, "serial_number": "0abc", "not_before": "2020-01-01T00:00:00",
         "name_value": "precert.com.au"},
        {"id": 11, "issuer_ca_id": 7, "serial_number": "0abc", "not_before": "2020-01-01T00:00:00",
         "name_value": "precert.com.au"},
        {"id": 12, "issuer_ca_id": 8, "serial_number": "0abc", "not_before": "2021-01-01T00:00:00",
         "name_value": "precert.com.au"},
    ]  # fmt: skip
    domain("twoflags.com.au", registered=years_ago(6))
    w.scam["twoflags.com.au"] = {
        "score": 85,
        "flags": ["new contact details", "recent owner change"],
    }
    names = [n for n in w.sites if not n.endswith(".test")]
    return zone, w, names


@pytest.fixture(scope="session")
def live_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveWorld]:
    zone, sites, names = build_zone_and_sites()
    dns_server = DnsServer(zone)
    web = WebServer(sites, tmp_path_factory.mktemp("live-tls"), names)
    yield LiveWorld(dns_server, web, zone, sites)
    dns_server.close()
    web.close()


@pytest.fixture
def make_checker(live_world: LiveWorld, tmp_path: Path) -> Callable[..., LiveChecker]:
    def make(**changes: Any) -> LiveChecker:
        return LiveChecker(live_world.config(tmp_path, **changes))

    return make
