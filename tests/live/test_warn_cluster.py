"""WARN_CLUSTER in Python (bvs verify --live recomputes it) gives what the SQL of
macros/verification/scoring.sql gives: the cases of its dbt unit test, row for row, under
the one declaration of the rule (dbt_project.yml, var warn_cluster), which Python reads as
the snapshot publishes it (marts.warn_cluster_rule)."""

from __future__ import annotations

import duckdb
import pytest
import yaml

from pipelines.live.tiles import WarnClusterRule, warn_cluster
from pipelines.serving.live import warn_cluster_rule
from pipelines.settings import PROJECT_ROOT

DECLARED = yaml.safe_load((PROJECT_ROOT / "dbt_project" / "dbt_project.yml").read_text())["vars"]["warn_cluster"]  # fmt: skip


def published(min_warns: int, cascade_checks: list[str]) -> WarnClusterRule:
    """The rule as the API reads it: from a snapshot's marts.warn_cluster_rule (the row the
    dbt model writes from the declaration)."""
    con = duckdb.connect()
    try:
        con.execute("create schema marts")
        con.execute(
            "create table marts.warn_cluster_rule (min_warns integer, cascade_checks varchar)"
        )
        con.execute(
            "insert into marts.warn_cluster_rule values (?, ?)",
            [min_warns, ",".join(cascade_checks)],
        )
        return warn_cluster_rule(con)
    finally:
        con.close()


RULE = published(DECLARED["min_warns"], DECLARED["cascade_checks"])

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
    assert (warn_cluster(tiles, RULE) is not None) is fires


def test_the_declared_rule_is_the_one_applied() -> None:
    """Python holds no copy of the rule: another declaration gives another outcome."""
    three = {"domain": NO_DOMAIN, "web_presence": NO_SITE, "gst": W, "abn_status": W, "company_status": W}  # fmt: skip
    assert warn_cluster(three, RULE) is None
    assert warn_cluster(three, published(3, DECLARED["cascade_checks"])) is not None
    echoes = {"domain": NO_DOMAIN, "web_presence": NO_SITE, "gst": W, "abn_status": W, "email": W, "trust": W}  # fmt: skip
    assert warn_cluster(echoes, RULE) is None  # e-mail and trust only echo the missing domain
    assert warn_cluster(echoes, published(4, ["domain", "web_presence"])) is not None
    with pytest.raises(ValueError):
        published(0, [])
