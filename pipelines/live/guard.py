"""The live checks connect only to public addresses (issue 21, "Safety").

A domain that resolves to a private, loopback, link-local, multicast, reserved or
unspecified address is refused, a user's override included; only the test setting
``BVS_LIVE_ALLOW_PRIVATE`` lifts this.
"""

from __future__ import annotations

import ipaddress


class RefusedAddress(Exception):
    """A domain that resolves to an address the checks must not connect to."""

    def __init__(self, domain: str, address: str) -> None:
        super().__init__(f"{domain} resolves to {address}, a non-public address: refused")
        self.domain = domain
        self.address = address


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def check_addresses(domain: str, addresses: list[str], *, allow_private: bool) -> None:
    """Raise RefusedAddress when any address of ``domain`` is not public."""
    if allow_private:
        return
    for address in addresses:
        if not is_public(address):
            raise RefusedAddress(domain, address)
