"""``bvs keys``: create, list and revoke API keys (only a hash of each secret is stored)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from typing import Any

from pipelines.settings import Settings


def add_commands(sub: Any) -> None:
    keys = sub.add_parser("keys", help="create, list or revoke API keys")
    keys.add_argument("action", choices=("create", "list", "revoke"))
    keys.add_argument("key_id", nargs="?", help="revoke: the key id (bvs keys list)")
    keys.add_argument("--name", help="create: a name for the key")
    keys.add_argument("--plan", default="individual", choices=("free", "individual", "enterprise"))
    keys.add_argument("--owner", help="create: whose key (watches and alerts); default: the name")
    keys.add_argument("--json", action="store_true", help="list: machine-readable output")
    keys.add_argument(
        "--customer", help="create: bind an Enterprise key to a customer's supplier ledgers"
    )
    keys.set_defaults(func=cmd_keys)


def cmd_keys(args: argparse.Namespace, settings: Settings) -> int:
    """Create, list and revoke API keys (only a hash of each secret is stored)."""
    from pipelines.ledgers.store import customers
    from pipelines.state.counters import usage_engines
    from pipelines.state.db import state_store
    from pipelines.state.keys import ApiKeyError, create_key, list_keys, revoke_key
    from pipelines.state.limits import daily_usage

    with state_store(settings) as engine:
        try:
            if args.action == "create":
                if not args.name:
                    raise ApiKeyError("create needs --name")
                secret, _record = create_key(
                    engine,
                    args.name,
                    args.plan,
                    owner=args.owner,
                    customer=args.customer,
                    known_customers=customers(settings),
                )
                print(secret)  # shown once; stdout carries the key alone
                return 0
            if args.action == "revoke":
                if not args.key_id:
                    raise ApiKeyError("revoke needs a key id (see bvs keys list)")
                record = revoke_key(engine, args.key_id)
                print(json.dumps({"revoked": record.key_id, "name": record.name}))
                return 0
            usage = daily_usage(usage_engines(settings, engine), dt.datetime.now(dt.UTC))
            rows = [
                {
                    "key_id": k.key_id,
                    "name": k.name,
                    "owner": k.owner,
                    "plan": k.plan,
                    "customer": k.customer,
                    "created_at": k.created_at.isoformat(),
                    "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
                    "requests_today": usage.get(k.key_id, {}).get("today", 0),
                    "requests_total": usage.get(k.key_id, {}).get("total", 0),
                }
                for k in list_keys(engine)
            ]
        except ApiKeyError as exc:
            print(json.dumps({"message": str(exc)}), file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    header = ("KEY ID", "NAME", "OWNER", "PLAN", "CUSTOMER", "STATE", "TODAY", "TOTAL")
    table = [
        (r["key_id"], r["name"], r["owner"], r["plan"], r["customer"] or "-",
         "revoked" if r["revoked_at"] else "active",
         str(r["requests_today"]), str(r["requests_total"]))
        for r in rows
    ]  # fmt: skip
    widths = [max(len(str(c)) for c in col) for col in zip(header, *table, strict=True)]
    for line in (header, *table):
        print("  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    return 0
