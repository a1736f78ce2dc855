"""Reads of the current serving snapshot: the API's read endpoints as JSON (``bvs verify``,
``live-check``, ``squeeze``, ``viper``, ``activist``, ``search``) and ``bvs sql``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pipelines.cli.common import print_from_snapshot
from pipelines.settings import Settings


def add_commands(sub: Any) -> None:
    verify = sub.add_parser(
        "verify", help="the verification of one ABN, as JSON (from the snapshot)"
    )
    verify.add_argument("abn", help="11-digit ABN (spaces allowed)")
    verify.add_argument(
        "--checks", help="comma-separated check ids: narrow the tiles and the score"
    )
    verify.add_argument(
        "--live",
        action="store_true",
        help="check the live tiles (domain, e-mail, trust, web presence, ...) now, not from the snapshot",
    )
    verify.set_defaults(func=cmd_verify)

    live_check = sub.add_parser(
        "live-check", help="what each live-check client finds for one domain, as JSON"
    )
    live_check.add_argument("domain", help="a domain name (a URL is accepted)")
    live_check.add_argument(
        "--fresh", action="store_true", help="ask the providers again (skip the 24-hour cache)"
    )
    live_check.set_defaults(func=cmd_live_check)

    squeeze = sub.add_parser("squeeze", help="Squeeze Scores, as JSON (from the snapshot)")
    squeeze.add_argument("ticker", nargs="?", help="ASX ticker, crypto or forex symbol")
    squeeze.add_argument("--market", help="asx, crypto or forex (list form)")
    squeeze.add_argument("--tier", help="extreme, high, medium or low (list form)")
    squeeze.add_argument("--limit", type=int, help="how many signals (list form, default 50)")
    squeeze.set_defaults(func=cmd_squeeze)

    viper = sub.add_parser("viper", help="the activist pattern result, as JSON (from the snapshot)")
    viper.add_argument("ticker", nargs="?", help="ASX ticker")
    viper.add_argument("--name", help="company name (or part of it)")
    viper.add_argument("--abn", help="the target's ABN")
    viper.set_defaults(func=cmd_viper)

    profile = sub.add_parser("activist", help="an activist entity's profile, as JSON")
    profile.add_argument("activist_id", help="the activist's id (a viper answer's activist_id)")
    profile.set_defaults(func=cmd_activist)

    search = sub.add_parser("search", help="search legal, business and trading names, as JSON")
    search.add_argument("query", help="a name or some of its words")
    search.add_argument("--limit", type=int, default=20, help="how many results, 1-100 (20)")
    search.set_defaults(func=cmd_search)

    sql = sub.add_parser(
        "sql", help="a read-only SQL shell on the current serving snapshot (DuckDB)"
    )
    sql.add_argument(
        "-c", "--command", help="run these statements and leave (default: a shell, or stdin)"
    )
    sql.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="how results print (json: one object a line); default table",
    )
    sql.add_argument(
        "--max-rows", type=int, default=40, help="table format: rows shown of each result (40)"
    )
    sql.set_defaults(func=cmd_sql)


def cmd_verify(args: argparse.Namespace, settings: Settings) -> int:
    """The verify response for one ABN as JSON, from the current serving snapshot; an ABN the
    register does not hold is the API's 404: its message, exit code 2."""
    from pipelines.serving.verify import verify

    checks = [c.strip() for c in args.checks.split(",") if c.strip()] if args.checks else None
    if not args.live:
        return print_from_snapshot(
            settings, lambda con: verify(con, args.abn, checks=checks, missing_ok=False)
        )
    from pipelines.live.checker import LiveChecker
    from pipelines.live.config import from_settings
    from pipelines.serving.live import refresh

    checker = LiveChecker(from_settings(settings))
    return print_from_snapshot(
        settings,
        lambda con: refresh(con, verify(con, args.abn, checks=checks, missing_ok=False), checker),
    )


def cmd_live_check(args: argparse.Namespace, settings: Settings) -> int:
    """What each live-check client finds for one domain (for a person debugging a tile)."""
    from pipelines.live.checker import LiveChecker
    from pipelines.live.config import from_settings

    checker = LiveChecker(from_settings(settings))
    try:
        found = checker.check_domain(args.domain, fresh=args.fresh)
    except ValueError as exc:
        print(json.dumps({"message": str(exc)}))
        return 2
    print(json.dumps(found, indent=2, default=str))
    return 0


def cmd_squeeze(args: argparse.Namespace, settings: Settings) -> int:
    """One instrument's Squeeze Score, or the list (docs/market.md), from the snapshot."""
    from pipelines.serving.market import squeeze_list, squeeze_ticker

    if args.ticker:
        return print_from_snapshot(settings, lambda con: squeeze_ticker(con, args.ticker))
    return print_from_snapshot(
        settings,
        lambda con: squeeze_list(con, market=args.market, tier=args.tier, limit=args.limit),
    )


def cmd_viper(args: argparse.Namespace, settings: Settings) -> int:
    """The activist pattern result by ticker, name or ABN (docs/market.md), from the snapshot."""
    from pipelines.serving.market import viper

    return print_from_snapshot(
        settings, lambda con: viper(con, ticker=args.ticker, name=args.name, abn=args.abn)
    )


def cmd_activist(args: argparse.Namespace, settings: Settings) -> int:
    """An activist entity's profile (docs/market.md), from the snapshot."""
    from pipelines.serving.market import activist

    return print_from_snapshot(settings, lambda con: activist(con, args.activist_id))


def cmd_sql(args: argparse.Namespace, settings: Settings) -> int:
    """A read-only SQL shell on the snapshot ``CURRENT`` names at start (pipelines/serving/sql.py)."""
    from pipelines.serving.sql import sql_shell

    return sql_shell(settings, args.command, fmt=args.format, max_rows=args.max_rows)


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    """The home-page search over legal, business and trading names (docs/search.md)."""
    from pipelines.serving.search import search

    return print_from_snapshot(settings, lambda con: search(con, args.query, limit=args.limit))
