"""Which ABNs the pipeline checks live, and what it knows of each (docs/live-checks.md item 2).

Ledger suppliers first (every ledger in ``landing/ledgers/``, a user's domain override
winning over the row's domain), then every ABN with a domain from a previous run's web
presence hit. Names, entity type and ABN date come from the ABR extract as loaded
(``raw.abr__abns``, ``raw.abr__other_names``): the live checks run before the verification
models read their tiles, so they read the extract, not the marts.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import duckdb

from pipelines.identifiers import clean_identifier
from pipelines.ledgers import overrides
from pipelines.ledgers.intake import EXTENSIONS, LedgerError, read_ledger
from pipelines.live.checker import EntityFacts
from pipelines.settings import Settings

log = logging.getLogger(__name__)
TILES_TABLE = "live.tiles"


def _ledger_rows(settings: Settings) -> list[dict[str, Any]]:
    folder = settings.landing_dir / "ledgers"
    rows: list[dict[str, Any]] = []
    if not folder.is_dir():
        return rows
    for customer_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        customer = customer_dir.name
        try:
            forced = overrides.current(settings, customer)
        except (OSError, ValueError) as error:
            log.warning("overrides of %s unreadable (%s): ledger domains used", customer, error)
            forced = {}
        for path in sorted(customer_dir.iterdir()):
            if path.suffix.lower() not in EXTENSIONS:
                continue
            try:
                parsed = read_ledger(path)
            except LedgerError as error:
                log.warning("%s", error)
                continue
            for row in parsed.rows.iter_rows(named=True):
                abn = row.get("abn")
                if not abn or len(str(abn)) != 11:
                    continue
                domain, source = row.get("domain") or None, "ledger" if row.get("domain") else None
                for field_name in ("domain", "phone", "address"):
                    o = forced.get(
                        (Path(path).stem, str(row.get("supplier_ref") or ""), field_name)
                    )
                    if o is not None and field_name == "domain":
                        domain, source = o.value, "override"
                    elif o is not None:
                        row[field_name] = o.value
                address = " ".join(str(row.get(k) or "") for k in ("state", "postcode")).strip()
                rows.append({"abn": str(abn), "domain": domain, "domain_source": source,
                             "email": row.get("email") or None, "phone": row.get("phone") or None,
                             "address": row.get("address") or address or None})  # fmt: skip
    return rows


def _known_domains(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """ABN -> the domain a previous run's web presence check found."""
    exists = con.execute(
        "select count(*) from information_schema.tables where table_schema = 'live' and table_name = 'tiles'"
    ).fetchone()
    if not exists or not exists[0]:
        return {}
    found = {}
    for abn, detail in con.execute(
        f"select abn, detail from {TILES_TABLE} where check_id = 'web_presence' and status in ('PASS', 'WARN')"
    ).fetchall():
        domain = json.loads(detail or "{}").get("domain")
        if domain:
            found[abn] = domain
    return found


def entity_facts(
    con: duckdb.DuckDBPyConnection, settings: Settings, limit: int | None = None
) -> list[EntityFacts]:
    wanted: dict[str, dict[str, Any]] = {}
    for row in _ledger_rows(settings):
        wanted.setdefault(row["abn"], row)
    for abn, domain in _known_domains(con).items():
        wanted.setdefault(abn, {"abn": abn, "domain": domain, "domain_source": "web_presence"})
    abns = list(wanted)[:limit] if limit else list(wanted)
    if not abns:
        return []
    registered: dict[str, dict[str, Any]] = {}
    cursor = con.cursor()
    try:
        for start in range(0, len(abns), 10_000):
            chunk = abns[start : start + 10_000]
            for abn, name, given, family, individual, status_from in cursor.execute(
                """
                select trim(abn), entity_name, given_name, family_name, is_individual,
                       abn_status_from_date
                from raw.abr__abns where trim(abn) in (select unnest(?::varchar[]))
                """,
                [chunk],
            ).fetchall():
                person = " ".join(p for p in (given, family) if p)
                registered[clean_identifier(abn) or abn] = {
                    "legal": [n for n in (name or person,) if n],
                    "individual": bool(individual),
                    "from": status_from if status_from and status_from.year > 1900 else None,
                    "trading": [],
                }
            for abn, name in cursor.execute(
                """
                select trim(abn), name from raw.abr__other_names
                where trim(abn) in (select unnest(?::varchar[])) and upper(trim(name_type)) in ('TRD', 'BN')
                  and nullif(trim(name), '') is not null
                """,
                [chunk],
            ).fetchall():
                entry = registered.get(clean_identifier(abn) or abn)
                if entry is not None and name.strip() not in entry["trading"]:
                    entry["trading"].append(name.strip())
    finally:
        cursor.close()
    out = []
    for abn in abns:
        row, reg = wanted[abn], registered.get(abn)
        if reg is None:
            continue  # not in the register: its tiles say "ABN not found" anyway
        out.append(EntityFacts(
            abn=abn, legal_names=reg["legal"], trading_names=reg["trading"],
            is_individual=reg["individual"], abn_registered=reg["from"],
            email=row.get("email"), domain=row.get("domain"), domain_source=row.get("domain_source"),
            phone=row.get("phone"), address=row.get("address"),
        ))  # fmt: skip
    return out
