"""``bvs watch`` and ``bvs alerts``: watches kept in the state database (docs/market.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pipelines.cli.common import print_from_snapshot
from pipelines.settings import Settings


def add_commands(sub: Any) -> None:
    watch = sub.add_parser("watch", help="add, list or remove squeeze and activist watches")
    watch.add_argument("action", choices=("add", "list", "remove"))
    watch.add_argument("watch_id", nargs="?", type=int, help="remove: the watch id")
    watch.add_argument("--owner", default="local", help="whose watch (an API key's owner)")
    watch.add_argument("--ticker", help="instrument (squeeze) or ticker (activist)")
    watch.add_argument("--name", help="company name (activist watch)")
    watch.add_argument("--threshold", type=float, help="squeeze: alert when the score crosses it")
    watch.add_argument("--activist", action="store_true", help="an activist watch")
    watch.set_defaults(func=cmd_watch)

    alerts = sub.add_parser("alerts", help="evaluate watches against the snapshot, or list alerts")
    alerts.add_argument("action", choices=("evaluate", "list"))
    alerts.add_argument("--owner", help="list: one owner's alerts")
    alerts.add_argument("--since", type=int, default=0, help="list: after this alert id")
    alerts.set_defaults(func=cmd_alerts)


def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    """Add, list or remove watches (docs/market.md), kept in the state database."""
    from pipelines.state.watches import WatchError, add_watch, list_watches, remove_watch, store

    with store(settings) as engine:
        try:
            if args.action == "add":
                kind = "activist" if args.activist else "squeeze"
                result: Any = add_watch(
                    engine,
                    args.owner,
                    kind,
                    ticker=args.ticker,
                    company_name=args.name,
                    threshold=args.threshold,
                )
            elif args.action == "list":
                result = list_watches(engine, args.owner)
            else:
                if args.watch_id is None:
                    raise WatchError("remove needs a watch id")
                remove_watch(engine, args.watch_id, args.owner)
                result = {"removed": args.watch_id}
        except WatchError as exc:
            print(json.dumps({"message": str(exc)}))
            return 2
    print(json.dumps(result, indent=2, default=str))
    return 0


def cmd_alerts(args: argparse.Namespace, settings: Settings) -> int:
    """Evaluate the watches against the current snapshot, or list the alerts raised."""
    from pipelines.state.watches import evaluate, list_alerts, store

    with store(settings) as engine:
        if args.action == "evaluate":
            return print_from_snapshot(settings, lambda con: {"raised": evaluate(engine, con)})
        print(json.dumps(list_alerts(engine, args.owner, args.since), indent=2, default=str))
    return 0
