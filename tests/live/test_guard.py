"""Which addresses the live checks connect to (docs/live-checks.md, "Safety")."""

from __future__ import annotations

import pytest

from pipelines.live.guard import Guard, RefusedAddress, is_public

ADDRESSES = [
    ("8.8.8.8", True),
    ("2606:4700::1111", True),
    ("10.0.0.1", False),
    ("127.0.0.1", False),
    ("169.254.169.254", False),  # link-local: a cloud's metadata service
    ("100.64.0.1", False),  # shared address space (carrier-grade NAT)
    ("::1", False),
    ("fe80::1%eth0", False),  # with a zone index
    ("::ffff:10.0.0.1", False),  # IPv4-mapped
    ("2002:a00:1::", False),  # 6to4 of 10.0.0.1
    ("2002:7f00:1::", False),  # 6to4 of 127.0.0.1
    ("2002:808:808::", True),  # 6to4 of 8.8.8.8
    ("64:ff9b::a00:1", False),  # NAT64 of 10.0.0.1
    ("fd00::1", False),
    ("224.0.0.1", False),
    ("0.0.0.0", False),
    ("not an address", False),
]


@pytest.mark.parametrize(("address", "public"), ADDRESSES, ids=[a for a, _ in ADDRESSES])
def test_only_public_addresses_are_public(address: str, public: bool) -> None:
    assert is_public(address) is public


def test_the_test_settings_lift_the_guard_only_where_they_say() -> None:
    loopback = Guard(allowed=("127.0.0.0/8",))
    loopback.check("site.test", ["127.0.0.1", "8.8.8.8"])
    with pytest.raises(RefusedAddress, match="10.0.0.1"):
        loopback.check("site.test", ["127.0.0.1", "10.0.0.1"])
    Guard(allow_private=True).check("site.test", ["10.0.0.1"])
