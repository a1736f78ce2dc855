"""WARN_CLUSTER in Python (bvs verify --live recomputes it) gives what the SQL of
macros/verification/scoring.sql gives: the cases of its dbt unit test, row for row."""

from __future__ import annotations

import pytest

from pipelines.live.tiles import warn_cluster

NO_DOMAIN = ("N/A", "No domain found (no live site among the candidate domains) => N/A (decided)")
NO_SITE = ("FAIL", "No site found across all candidate domains (up to 16 patterns) => FAIL")
NOT_RUN = ("N/A", "Not run: live checks are off => N/A")
W = ("WARN", "some row => WARN")
P = ("PASS", "some row => PASS")

CASES = {
    "four register WARNs with no domain => fires": (
        {"domain": NO_DOMAIN, "web_presence": NO_SITE, "gst": W, "abn_status": W, "company_status": W, "business_names": W}, True),
    "no domain: e-mail and trust WARNs are filtered out => no flag": (
        {"domain": NO_DOMAIN, "web_presence": NO_SITE, "gst": W, "abn_status": W, "email": W, "trust": W}, False),
    "three WARNs => no flag": ({"domain": NO_DOMAIN, "web_presence": NO_SITE, "gst": W, "abn_status": W, "company_status": W}, False),
    "a domain and a live site => no flag": (
        {"domain": P, "web_presence": P, "gst": W, "abn_status": W, "company_status": W, "business_names": W}, False),
    "a domain (no filter) and no live site, four WARNs => fires": (
        {"domain": W, "web_presence": NO_SITE, "email": W, "gst": W, "abn_status": W}, True),
    "live checks not run: unknown, not negative (CONTRACT decision 18) => no flag": (
        {"domain": NOT_RUN, "web_presence": NOT_RUN, "gst": W, "abn_status": W, "company_status": W, "business_names": W}, False),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_warn_cluster_as_the_sql(case: str) -> None:
    tiles, fires = CASES[case]
    assert (warn_cluster(tiles) is not None) is fires
