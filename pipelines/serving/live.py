"""Refresh one ABN's live tiles at request time (``bvs verify --live``, the API's
``cache=false``): the snapshot's verify response with its live tiles checked again, fresh,
and the score and ``WARN_CLUSTER`` recomputed from the tiles available (docs/ledgers.md, docs/rules.md#risk-flags).

The snapshot gives the entity's names, type and ABN date, and the domain a previous check
found (or a user's override); the live checks run with ``fresh=True`` (cached answers are
not reused, a provider's standing rate limit is still honoured) within ``budget`` seconds
(docs/api.md: 2 to 15 seconds).
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import duckdb

from pipelines.live.checker import EntityFacts, LiveChecker, entity_tiles
from pipelines.live.tiles import LIVE_CHECKS, WarnClusterRule, warn_cluster
from pipelines.serving.verify import SHAPE_A, RiskBands, assurance_score

WARN_CLUSTER_SEVERITY = "MEDIUM"  # seed flag_definitions
LIVE_BUDGET_SECONDS = 12.0


def entity_facts(con: duckdb.DuckDBPyConnection, abn: str, response: dict[str, Any]) -> EntityFacts:
    cursor = con.cursor()
    try:
        row = cursor.execute(
            "select is_individual, abn_status_from_date from marts.entities where abn = ?", [abn]
        ).fetchone()
        names = cursor.execute(
            "select name, name_kind from marts.entity_names where abn = ? order by name", [abn]
        ).fetchall()
    finally:
        cursor.close()
    facts = EntityFacts(
        abn=abn,
        legal_names=[n for n, kind in names if kind == "legal"],
        trading_names=[n for n, kind in names if kind in ("trading", "business_name")],
        is_individual=bool(row and row[0]),
        abn_registered=row[1] if row else None,
    )
    web = (response.get("checks") or {}).get("web_presence") or {}
    detail = web.get("detail") or {}
    if (
        isinstance(detail, dict)
        and detail.get("domain")
        and detail.get("domain_source") in ("override", "ledger")
    ):
        facts.domain, facts.domain_source = detail["domain"], detail["domain_source"]
    return facts


def refresh(
    con: duckdb.DuckDBPyConnection,
    response: dict[str, Any],
    checker: LiveChecker,
    *,
    as_of: dt.date | None = None,
    budget: float = LIVE_BUDGET_SECONDS,
) -> dict[str, Any]:
    """``response`` (a verify response) with its live tiles checked now."""
    if response.get("entity") is None:
        return response  # not in the register: nothing to check
    abn = response["abn"]
    as_of = as_of or dt.date.fromisoformat(response["as_of"])
    facts = entity_facts(con, abn, response)
    fresh_tiles = entity_tiles(
        checker, facts, as_of, fresh=True, deadline=time.monotonic() + budget
    )
    checks = response["checks"]
    for check_id in LIVE_CHECKS:
        if check_id not in checks:
            continue
        t = fresh_tiles[check_id]
        tile = dict(checks[check_id])
        tile.update(status=t.status, reason=t.reason, detail=t.detail)
        tile.pop("rate_limited", None)
        if t.rate_limited:
            tile["rate_limited"] = {"retry_at": t.rate_limited}
        tile["checked_live_at"] = (
            dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        )
        checks[check_id] = tile
    for member, check_id in SHAPE_A.items():
        if check_id in checks:
            response[member] = checks[check_id]
    severities = _severities(con, abn)
    flags = [f for f in response["risk"]["flags"] if f != "WARN_CLUSTER"]
    cluster = warn_cluster(
        {c: (t["status"], t.get("reason")) for c, t in checks.items()}, warn_cluster_rule(con)
    )
    if cluster is not None:
        flags.append("WARN_CLUSTER")
        severities.append(WARN_CLUSTER_SEVERITY)
    score = assurance_score((t["status"], t["weight"]) for t in checks.values())
    identity_failures = list(response["risk"].get("identity_failures") or [])
    risk_score, level = RiskBands.read(con).risk(score, severities, identity_failures)
    response["assurance_score"] = score
    response["risk"] = {
        "score": risk_score,
        "level": level,
        "flags": flags,
        "identity_failures": identity_failures,
    }
    response["risk_score"] = risk_score
    if cluster is not None:
        response["risk"]["warn_cluster"] = cluster
    return response


def warn_cluster_rule(con: duckdb.DuckDBPyConnection) -> WarnClusterRule:
    """WARN_CLUSTER's parameters as the snapshot publishes them (``marts.warn_cluster_rule``,
    from dbt_project.yml's var ``warn_cluster``): the same rule the warehouse applied."""
    cursor = con.cursor()
    try:
        row = cursor.execute(
            "select min_warns, cascade_checks from marts.warn_cluster_rule"
        ).fetchone()
    finally:
        cursor.close()
    if row is None:
        raise ValueError("marts.warn_cluster_rule is empty")
    return WarnClusterRule.from_row(row[0], row[1])


def _severities(con: duckdb.DuckDBPyConnection, abn: str) -> list[str]:
    cursor = con.cursor()
    try:
        rows = cursor.execute(
            "select severity from marts.risk_flags where abn = ? and flag_id <> 'WARN_CLUSTER'",
            [abn],
        ).fetchall()
    finally:
        cursor.close()
    return [r[0] for r in rows]
