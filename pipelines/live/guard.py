"""The live checks connect only to public addresses (docs/live-checks.md, "Safety").

A domain that resolves to a private, loopback, link-local, multicast, reserved or
unspecified address is refused, a user's override included; so is an IPv6 address that
carries such an IPv4 address inside it (IPv4-mapped ``::ffff:0:0/96``, 6to4 ``2002::/16``).
Every connection is checked, a site's, each redirect's and each provider's (http.py). Only
the test settings lift this: ``allow_private`` (``BVS_LIVE_ALLOW_PRIVATE``) for every
address, ``allowed`` for the networks named.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass


class RefusedAddress(Exception):
    """A domain that resolves to an address the checks must not connect to."""

    def __init__(self, domain: str, address: str) -> None:
        super().__init__(f"{domain} resolves to {address}, a non-public address: refused")
        self.domain = domain
        self.address = address


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0])  # no zone index ("fe80::1%eth0")
    except ValueError:
        return None


def is_public(address: str) -> bool:
    ip = _ip(address)
    if ip is None:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is not None and not is_public(str(embedded)):
            return False
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


@dataclass(frozen=True)
class Guard:
    """Which addresses the checks may connect to: public ones. ``allow_private`` (every
    address) and ``allowed`` (these networks, e.g. ``("127.0.0.0/8",)``) are for tests."""

    allow_private: bool = False
    allowed: tuple[str, ...] = ()

    def permits(self, address: str) -> bool:
        if self.allow_private or is_public(address):
            return True
        ip = _ip(address)
        return ip is not None and any(ip in ipaddress.ip_network(n) for n in self.allowed)

    def check(self, domain: str, addresses: Iterable[str]) -> None:
        """Raise RefusedAddress when any address of ``domain`` is not permitted."""
        if self.allow_private:
            return
        for address in addresses:
            if not self.permits(address):
                raise RefusedAddress(domain, address)
