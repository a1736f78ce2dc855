"""API keys (docs/api.md): created, named, listed and revoked; only a hash is stored.

A key reads ``bvs_<key id>_<secret>``: the fixed vendor prefix ``bvs_``, a 12-hex-digit key
id (shown by ``bvs keys list``, used to revoke) and a 43-character random secret
(``secrets.token_urlsafe(32)``, 256 bits). The store keeps the key id and the SHA-256 of the
secret; a presented key is hashed and compared in constant time. With 256 random bits a fast
hash is the right tool (a password hash would only slow every request down). Revocation
sets ``revoked_at``; every request reads the key's row, so it takes effect on the next one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, NamedTuple

import sqlalchemy as sa

from pipelines.state.db import DriverSession, run
from pipelines.state.tables import api_keys

PREFIX = "bvs_"
PLAN_NAMES = ("free", "individual", "enterprise")
_CUSTOMER = re.compile(r"^[a-z0-9-]{1,64}$")  # CONTRACT.md, Ledgers
_KEY_PATTERN = re.compile(r"^bvs_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
# compared against when the key id is unknown, so an unknown id costs what a known one does
_DUMMY_HASH = hashlib.sha256(b"no such key").hexdigest()


class ApiKeyError(ValueError):
    """A key command that cannot be done as asked (unknown id, bad plan, …)."""


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    name: str
    owner: str
    plan: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None
    customer: str | None = None


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def split_key(token: str) -> tuple[str, str] | None:
    """(key id, secret) of a well-formed key, else None."""
    match = _KEY_PATTERN.match(token.strip())
    return (match.group(1), match.group(2)) if match else None


def create_key(
    engine: sa.Engine,
    name: str,
    plan: str,
    *,
    owner: str | None = None,
    customer: str | None = None,
    known_customers: Collection[str] | None = None,
    now: dt.datetime | None = None,
) -> tuple[str, ApiKey]:
    """A new key: returns the full key (shown once, never stored) and its record. With
    ``known_customers``, a key bound to a customer not among them is refused."""
    name = name.strip()
    if not name:
        raise ApiKeyError("a key needs a name")
    if plan not in PLAN_NAMES:
        raise ApiKeyError(f"unknown plan {plan!r}; one of {', '.join(PLAN_NAMES)}")
    if customer is not None:
        if plan != "enterprise":
            raise ApiKeyError("only an Enterprise key can be bound to a customer's ledgers")
        if not _CUSTOMER.match(customer):
            raise ApiKeyError(
                f"customer id {customer!r}: lower-case letters, digits and '-', at most 64"
            )
        if known_customers is not None and customer not in known_customers:
            raise ApiKeyError(unknown_customer(customer, known_customers))
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    record = ApiKey(
        key_id=key_id,
        name=name,
        owner=(owner or name).strip(),
        plan=plan,
        created_at=now or dt.datetime.now(dt.UTC),
        revoked_at=None,
        customer=customer,
    )
    with engine.begin() as conn:
        conn.execute(
            sa.insert(api_keys).values(
                key_id=record.key_id,
                name=record.name,
                owner=record.owner,
                plan=record.plan,
                secret_sha256=_hash(secret),
                created_at=record.created_at,
                customer=record.customer,
            )
        )
    return f"{PREFIX}{key_id}_{secret}", record


def unknown_customer(customer: str, known: Collection[str]) -> str:
    """Why a key cannot be bound to ``customer``: the customers there are, the closest first."""
    import difflib

    close = difflib.get_close_matches(customer, sorted(known), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    names = ", ".join(sorted(known)) if known else "none yet"
    return (
        f"no customer {customer!r}: known customers are those with a ledger imported"
        f" (bvs ledger import FILE --customer C): {names}.{hint}"
    )


def _record(row: Any) -> ApiKey:
    return ApiKey(
        key_id=row.key_id,
        name=row.name,
        owner=row.owner,
        plan=row.plan,
        created_at=_aware(row.created_at),
        revoked_at=None if row.revoked_at is None else _aware(row.revoked_at),
        customer=row.customer,
    )


def _aware(value: dt.datetime | str) -> dt.datetime:
    """SQLite hands timestamps back naive (and as text to a driver session); they were
    written in UTC."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


class _Row(NamedTuple):
    key_id: str
    name: str
    owner: str
    plan: str
    secret_sha256: str
    created_at: dt.datetime | str
    revoked_at: dt.datetime | str | None
    customer: str | None


# Built once (compiled once per dialect): it runs on every request.
_BY_ID = sa.text(
    "select key_id, name, owner, plan, secret_sha256, created_at, revoked_at, customer"
    " from api_keys where key_id = :key_id"
).columns(*api_keys.c)


def authenticate(conn: sa.Connection | DriverSession, token: str | None) -> ApiKey | None:
    """The key's record if ``token`` is a valid, unrevoked key; None otherwise."""
    parts = split_key(token or "")
    key_id, secret = parts if parts else ("", "")
    found = run(conn, _BY_ID, {"key_id": key_id}) if parts else []
    row = _Row(*found[0]) if found else None
    stored = row.secret_sha256 if row is not None else _DUMMY_HASH
    matches = hmac.compare_digest(stored, _hash(secret)) if secret else False
    if row is None or not matches or row.revoked_at is not None:
        return None
    return _record(row)


def revoke_key(engine: sa.Engine, key_id: str, *, now: dt.datetime | None = None) -> ApiKey:
    with engine.begin() as conn:
        done = conn.execute(
            sa.update(api_keys)
            .where((api_keys.c.key_id == key_id) & api_keys.c.revoked_at.is_(None))
            .values(revoked_at=now or dt.datetime.now(dt.UTC))
        )
        if done.rowcount == 0:
            exists = conn.execute(
                sa.select(api_keys.c.key_id).where(api_keys.c.key_id == key_id)
            ).first()
            raise ApiKeyError(
                f"key {key_id} is already revoked" if exists else f"no key with id {key_id!r}"
            )
        row = conn.execute(sa.select(api_keys).where(api_keys.c.key_id == key_id)).one()
    return _record(row)


def list_keys(engine: sa.Engine) -> list[ApiKey]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(api_keys).order_by(api_keys.c.created_at)).all()
    return [_record(r) for r in rows]
