"""The verify response (CONTRACT.md API) for one ABN, read from the serving snapshot.

Everything is precomputed by the dbt marts ``verifications`` (one row per ABN, every check's
status, reason and evidence), ``checks`` (weights and sources) and ``risk_flags``; this
module only shapes it. With ``checks=`` the response and its assurance score are narrowed to
the named checks (docs/decisions/01-every-tile-every-time.md): the score is recomputed from those tiles with the same
rule as the mart (docs/rules.md#assurance-score); the flags and the decisive identity failures (docs/decisions/21-decisive-identity-failure.md) are the entity's, unchanged, and floor the risk as they do in the mart.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import duckdb

from pipelines.identifiers import abn_is_valid, clean_identifier
from pipelines.serving import notices
from pipelines.serving.freshness import is_stale, published_cadences
from pipelines.state.limits import PREMIUM_CHECKS
from pipelines.warehouse.verify_lookup import RECORD_MEMBERS

# docs/rules.md#assurance-score: the share of a check's weight each status scores; N/A is excluded from both sides.
STATUS_SHARE = {"PASS": 1.0, "WARN": 0.5, "FAIL": 0.0}
# docs/api.md shape A members and the check each one carries.
SHAPE_A = {
    "asic": "company_status",
    "conduct": "conduct",
    "domain": "domain",
    "email": "email",
    "address": "address",
    "phone": "phone",
    "street_view": "street_view",
}


# A live or premium check that did not run says so in its rule row (docs/decisions/18-a-check-that-did-not-run-is-unknown.md):
# it is unknown, not negative, and uses up no quota.
NOT_RUN = "Not run"


def premium_checks_run(tiles: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The premium checks among ``tiles`` that actually ran (their quota is used)."""
    return [
        c for c in PREMIUM_CHECKS
        if c in tiles and not str(tiles[c].get("reason") or "").startswith(NOT_RUN)
    ]  # fmt: skip


class VerifyError(ValueError):
    """A request the caller must fix (status 400) or an ABN we cannot answer for."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Check:
    check_id: str
    weight: int
    sources: list[dict[str, Any]]


def parse_abn(value: str) -> str:
    """The ABN as 11 digits (spaces removed), or VerifyError 400 when malformed."""
    abn = clean_identifier(value) or ""
    if len(abn) != 11 or not abn.isdigit():
        raise VerifyError(f"malformed ABN {value!r}: an ABN is 11 digits")
    if not abn_is_valid(abn):
        raise VerifyError(f"malformed ABN {value!r}: the ABN checksum fails")
    return abn


def assurance_score(tiles: Iterable[tuple[str, float]]) -> float | None:
    """docs/rules.md#assurance-score over (status, weight) pairs: PASS full weight, WARN half, FAIL none, N/A out."""
    points = counted = 0.0
    for status, weight in tiles:
        share = STATUS_SHARE.get(status)
        if share is None:
            continue
        points += share * weight
        counted += weight
    if counted <= 0:
        return None
    return round(100.0 * points / counted, 1)


@dataclass(frozen=True)
class RiskBands:
    """The floor each flag severity puts under the risk score, the level bands
    (docs/verification.md, "Score and risk"), and the decisive identity failures: the checks
    whose FAIL puts the risk score at least at ``identity_floor`` (docs/decisions/21-decisive-identity-failure.md).
    Declared once, in dbt_project.yml (vars ``risk_levels`` and ``identity_failures``):
    dbt's scoring macros compile from them and ``marts.risk_levels`` and
    ``marts.identity_failure_rule`` publish them in the snapshot, where this reads them."""

    floors: Mapping[str, float]
    levels: tuple[tuple[float, str], ...]  # (lower bound, level), highest first
    identity_checks: tuple[str, ...] = ()
    identity_floor: float = 0.0

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[Mapping[str, Any]],
        identity_checks: Sequence[str] = (),
        identity_floor: float = 0.0,
    ) -> RiskBands:
        bands = sorted(rows, key=lambda r: float(r["risk_floor"]), reverse=True)
        if not bands or float(bands[-1]["risk_floor"]) != 0.0:
            raise ValueError("the risk bands must start at 0 (marts.risk_levels)")
        return cls(
            floors={str(b["severity"]): float(b["risk_floor"]) for b in bands},
            levels=tuple((float(b["risk_floor"]), str(b["level"])) for b in bands),
            identity_checks=tuple(identity_checks),
            identity_floor=float(identity_floor),
        )

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection) -> RiskBands:
        cursor = con.cursor()
        try:
            rows = cursor.execute(
                "select severity, risk_floor, level from marts.risk_levels"
            ).fetchall()
            try:
                rule = cursor.execute(
                    "select checks, risk_floor from marts.identity_failure_rule"
                ).fetchone()
            except duckdb.CatalogException:
                # a snapshot published before the rule was: its marts carry no identity
                # floor either, and the recomputed risk agrees with them
                rule = ("", 0.0)
        finally:
            cursor.close()
        if rule is None:
            raise ValueError("marts.identity_failure_rule is empty")
        return cls.from_rows(
            ({"severity": r[0], "risk_floor": r[1], "level": r[2]} for r in rows),
            identity_checks=[c for c in str(rule[0]).split(",") if c],
            identity_floor=float(rule[1]),
        )

    def identity_failures(self, statuses: Mapping[str, str]) -> list[str]:
        """The decisive identity checks whose status is FAIL, in the rule's order."""
        return [c for c in self.identity_checks if statuses.get(c) == "FAIL"]

    def risk(
        self, score: float | None, severities: Iterable[str], identity_failures: Sequence[str] = ()
    ) -> tuple[float, str]:
        """Risk score (100 - assurance score, raised to the most severe flag's floor and, on
        a decisive identity failure, to the identity floor) and level; a severity without a
        band adds no floor."""
        base = 0.0 if score is None else 100.0 - score
        floors = [base, *(self.floors.get(s, 0.0) for s in severities)]
        if identity_failures:
            floors.append(self.identity_floor)
        value = round(max(floors), 1)
        level = next(name for bound, name in self.levels if value >= bound)
        return value, level


def _catalogue(con: duckdb.DuckDBPyConnection, as_of: dt.date) -> dict[str, Check]:
    cadences = published_cadences(con)
    rows = con.execute(
        "select check_id, weight, sources from marts.checks order by check_id"
    ).fetchall()
    failed = failed_sources(con)
    return {
        check_id: Check(
            check_id,
            int(weight),
            _with_staleness(json.loads(sources), as_of, cadences, failed),
        )
        for check_id, weight, sources in rows
    }


def failed_sources(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Sources whose newest files failed to load: the snapshot serves their last good data
    (meta.source_failures; a snapshot published before that table existed has none)."""
    try:
        return {r[0] for r in con.execute("select source from meta.source_failures").fetchall()}
    except duckdb.CatalogException:
        return set()


def _with_staleness(
    sources: list[dict[str, Any]],
    as_of: dt.date,
    cadences: Mapping[str, int],
    failed: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[dict[str, Any]]:
    """Each source with `stale` as of the snapshot's as-of date: older than its refresh
    cadence (docs/decisions/10-stale-data-is-reported.md), or its newest files failed to load and it serves its
    last good data; null when not loaded or its cadence is not known."""
    out = []
    for source in sources:
        name = str(source.get("source"))
        loaded = source.get("as_of")
        extract = None if loaded is None else dt.date.fromisoformat(str(loaded))
        stale = True if name in failed else is_stale(extract, cadences.get(name), as_of)
        out.append({**source, "stale": stale})
    return out


def _narrow(catalogue: dict[str, Check], wanted: Sequence[str] | None) -> list[str]:
    if not wanted:
        return sorted(catalogue, key=list(catalogue).index)
    unknown = [c for c in wanted if c not in catalogue]
    if unknown:
        raise VerifyError(
            f"unknown check id(s): {', '.join(unknown)}; known: {', '.join(sorted(catalogue))}"
        )
    return list(dict.fromkeys(wanted))


@dataclass(frozen=True)
class Context:
    """What every verify on one snapshot shares: its as-of date and the check catalogue."""

    as_of: dt.date
    catalogue: dict[str, Check]
    bands: RiskBands


def load_context(con: duckdb.DuckDBPyConnection, as_of: dt.date | None = None) -> Context:
    if as_of is None:
        row = con.execute("select as_of from meta.snapshot").fetchone()
        if row is None:
            raise VerifyError("the snapshot records no as-of date", status=503)
        as_of = row[0]
    assert as_of is not None
    return Context(as_of=as_of, catalogue=_catalogue(con, as_of), bands=RiskBands.read(con))


def verify(
    con: duckdb.DuckDBPyConnection | None,
    abn_text: str,
    *,
    as_of: dt.date | None = None,
    checks: Sequence[str] | None = None,
    now: dt.datetime | None = None,
    context: Context | None = None,
    limited: Mapping[str, dt.datetime] | None = None,
    missing_ok: bool = True,
    lookup: RecordSource | None = None,
) -> dict[str, Any]:
    """The verify response for one ABN from an open snapshot connection (as of the
    snapshot's own as-of date unless one is given).

    ``context`` is the snapshot's catalogue, loaded once per snapshot by a server.
    ``limited`` names checks whose quota is used up (check id -> when it resets): their
    tiles are N/A with a ``rate_limited`` marker and the score leaves them out (docs/ledgers.md).
    With ``missing_ok=False`` an ABN the register does not hold raises VerifyError 404.
    ``lookup`` reads the ABN's record from the snapshot's point-lookup file instead of
    DuckDB (``pipelines.serving.lookup``; the same record, ~30 times faster). ``con`` may
    be None when both ``context`` and ``lookup`` are given: DuckDB is then not read.
    """
    abn = parse_abn(abn_text)
    if con is None and (context is None or lookup is None):
        raise ValueError("verify() needs a snapshot connection without a context and lookup")
    if context is None:
        assert con is not None
        context = load_context(con, as_of)
    as_of, catalogue = context.as_of, context.catalogue
    selected = _narrow(catalogue, checks)
    if lookup is not None:
        record = lookup.record(abn)
    else:
        assert con is not None
        record = read_record(con, abn)
    if record is None and not missing_ok:
        raise VerifyError(f"the ABN {abn} was not found in the register", status=404)
    flags = [] if record is None else record["flags"]
    severities = [] if record is None else record["severities"]
    limited = limited or {}

    tiles: dict[str, dict[str, Any]] = {}
    for check_id in selected:
        check = catalogue[check_id]
        if record is None:
            status, reason, detail = _not_in_register(check_id)
        else:
            status, reason, detail = record["checks"][check_id]
        tile: dict[str, Any] = {
            "status": status,
            "reason": reason,
            "detail": detail,
            "sources": check.sources,
            "weight": check.weight,
        }
        if isinstance(detail, dict) and isinstance(detail.get("rate_limited"), dict):
            # a live check a provider rate limited (pipelines/live): the tile's countdown
            tile["rate_limited"] = detail["rate_limited"]
        if check_id in limited:
            resets = limited[check_id].astimezone(dt.UTC)
            tile["status"] = "N/A"
            tile["reason"] = "premium check quota used up this month => N/A (rate limited)"
            tile["rate_limited"] = {"retry_at": resets.isoformat().replace("+00:00", "Z")}
        tiles[check_id] = tile

    score = assurance_score((t["status"], t["weight"]) for t in tiles.values())
    if record is not None and not checks and not limited:
        score = record["assurance_score"]  # the mart's own figure (the same rule)
    if record is None:
        statuses = {"abn_status": _not_in_register("abn_status")[0]}
    else:
        statuses = {c: v[0] for c, v in record["checks"].items()}
    # like the flags, the decisive identity failures are the entity's whatever checks= names
    identity_failures = context.bands.identity_failures(statuses)
    risk_score, level = context.bands.risk(score, severities, identity_failures)
    generated = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    response: dict[str, Any] = {
        "abn": abn,
        "entity": None if record is None else record["entity"],
        "status": "Not found" if record is None else record["status"],
        "generated_at": generated.isoformat().replace("+00:00", "Z"),
        "as_of": as_of.isoformat(),
        "assurance_score": score,
        "risk": {
            "score": risk_score,
            "level": level,
            "flags": flags,
            "identity_failures": identity_failures,
        },
        "viper": {"attacked": bool(record and record["viper_attacked"])},
        "ppsr": {"registrations": 0 if record is None else int(record["ppsr_registrations"])},
        "insolvency": {"found": bool(record and record["insolvency_found"])},
    }
    for member, check_id in SHAPE_A.items():
        response[member] = tiles.get(check_id)
    response["risk_score"] = risk_score
    response["checks"] = tiles
    response["notice"] = notices.DECISION_SUPPORT
    return response


class RecordSource(Protocol):
    def record(self, abn: str) -> dict[str, Any] | None: ...


def read_record(con: duckdb.DuckDBPyConnection, abn: str) -> dict[str, Any] | None:
    """One ABN's row of ``marts.verifications`` and its flag severities, as the record
    ``verify`` shapes: entity members, ``flags``, ``severities`` and ``checks``
    (check id -> (status, reason, parsed detail))."""
    cursor = con.cursor()
    try:
        cursor.execute("select * from marts.verifications where abn = ?", [abn])
        names = [d[0] for d in cursor.description]
        row = cursor.fetchone()
        if row is None:
            return None
        columns = dict(zip(names, row, strict=True))
        severities = [
            r[0]
            for r in cursor.execute(
                "select severity from marts.risk_flags where abn = ?", [abn]
            ).fetchall()
        ]
    finally:
        cursor.close()
    check_ids = [n[: -len("_status")] for n in names if n.endswith("_status") and n != "status"]
    return {
        **{member: columns[member] for member in RECORD_MEMBERS},
        "flags": json.loads(columns["flags"]),
        "severities": severities,
        "checks": {
            c: (
                columns[f"{c}_status"],
                columns[f"{c}_reason"],
                json.loads(columns[f"{c}_detail"]) if columns[f"{c}_detail"] else None,
            )
            for c in check_ids
        },
    }


def _not_in_register(check_id: str) -> tuple[str, str, None]:
    """An ABN the register does not hold: ABN status FAIL, every other check N/A."""
    if check_id == "abn_status":
        return "FAIL", "ABN cancelled, suspended or not found => FAIL (not found)", None
    return "N/A", "ABN not found in the register => N/A", None
