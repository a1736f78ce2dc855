"""``bvs ledger``: supplier ledgers (CONTRACT.md, Ledgers). Each action parses its arguments
and calls one function of ``pipelines.ledgers``; errors are one JSON line on standard error,
exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pipelines.cli.common import date, output_options
from pipelines.settings import Settings


def add_commands(sub: Any) -> None:
    ledger = sub.add_parser(
        "ledger", help="supplier ledgers: import, re-verify, show, changes, overrides, reports"
    )
    ledger.add_argument(
        "action",
        choices=("import", "run", "show", "changes", "override", "revert", "audit", "report"),
    )
    ledger.add_argument("file", nargs="?", help="import: the ledger file (.csv or .xlsx)")
    ledger.add_argument("--customer", help="customer id (lower-case letters, digits, '-')")
    ledger.add_argument("--name", help="import: the ledger's name (default: the file's stem)")
    ledger.add_argument("--ledger", help="show, changes: one ledger of the customer")
    ledger.add_argument("--run", type=date, help="show: the run of this date (default: latest)")
    ledger.add_argument("--since", type=date, help="changes: runs on or after this date")
    ledger.add_argument("--as-of", type=date, help="run: the run date (default: Brisbane today)")
    ledger.add_argument("--supplier", help="override, revert: the supplier_ref")
    ledger.add_argument("--field", choices=("domain", "address", "phone"), help="override, revert")
    ledger.add_argument("--value", help="override: the value to use")
    ledger.add_argument("--reason", help="override, revert: why (kept in the audit trail)")
    ledger.add_argument("--by", help="override, revert: who (default: the login name)")
    ledger.add_argument("--verify", action="store_true", help="audit: check the trail's hash chain")
    ledger.add_argument("--month", help="report: YYYY-MM")
    ledger.add_argument("--format", choices=("csv", "pdf"), default="pdf", help="report (pdf)")
    ledger.add_argument("--out", help="report: the file to write")
    output_options(ledger, "run: ")
    ledger.set_defaults(func=cmd_ledger)


def cmd_ledger(args: argparse.Namespace, settings: Settings) -> int:
    """Supplier ledgers: import, re-verify, show, changes (CONTRACT.md, Ledgers)."""
    from pipelines.ledgers.intake import LedgerError

    try:
        if args.action == "import":
            return _import(args, settings)
        if args.action == "run":
            return _run(args, settings)
        if not args.customer:
            raise LedgerError(f"{args.action} needs --customer")
        if args.action == "show":
            return _show(args, settings)
        if args.action == "changes":
            return _changes(args, settings)
        if args.action in ("override", "revert"):
            return _override(args, settings)
        if args.action == "audit":
            return _audit(args, settings)
        if args.action == "report":
            return _report(args, settings)
    except LedgerError as exc:
        print(json.dumps({"message": str(exc)}), file=sys.stderr)
        return 2
    return 2


def _import(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.ledgers import commands
    from pipelines.ledgers.intake import LedgerError

    if not args.customer:
        raise LedgerError("import needs --customer")
    if not args.file:
        raise LedgerError("import needs the ledger FILE")
    summary = commands.import_summary(settings, Path(args.file), args.customer, args.name)
    print(json.dumps(summary))
    review, ignored = summary["needs_review_count"], summary["ignored_count"]
    first = f" (the first {len(summary['needs_review'])} above)" if review else ""
    print(
        f"bvs ledger import: {summary['rows']:,} suppliers: {summary['verified']:,} verified,"
        f" {summary['resolved_by_name']:,} resolved by name, {review:,} to review;"
        f" {ignored:,} rows ignored. Every row to review and every ignored row{first}:"
        f" {summary['details']}",
        file=sys.stderr,
    )
    return 0


def _run(args: argparse.Namespace, settings: Settings) -> int:
    """Re-verify the landed ledgers; one summary line per ledger (JSON lines)."""
    from pipelines.ledgers import commands
    from pipelines.materialize import Output
    from pipelines.warehouse.lock import WarehouseBusy

    try:
        return commands.run(
            settings,
            args.customer,
            args.as_of,
            Output(log_level=args.log_level, verbose=args.verbose),
            lambda summary: print(json.dumps(summary), flush=True),
        )
    except WarehouseBusy as exc:
        print(f"bvs ledger run: {exc}", file=sys.stderr)
        return 1


def _show(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.ledgers import commands

    pieces = commands.show(settings, args.customer, args.ledger, args.run)
    first = next(pieces)  # errors surface before anything is printed
    sys.stdout.write(first)
    for piece in pieces:
        sys.stdout.write(piece)
    sys.stdout.write("\n")
    return 0


def _changes(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.ledgers import commands

    for change in commands.changes(settings, args.customer, args.ledger, args.since):
        print(json.dumps(change))
    return 0


def _override(args: argparse.Namespace, settings: Settings) -> int:
    """Record an override or a revert in the customer's audit trail (docs/ledgers.md)."""
    from pipelines.ledgers import overrides
    from pipelines.ledgers.intake import LedgerError

    for name in ("ledger", "supplier", "field"):
        if not getattr(args, name):
            raise LedgerError(f"{args.action} needs --{name}")
    by = args.by or _user()
    if args.action == "override":
        if args.value is None or args.reason is None:
            raise LedgerError("override needs --value and --reason")
        entry = overrides.override(
            settings,
            args.customer,
            args.ledger,
            args.supplier,
            args.field,
            args.value,
            args.reason,
            by,
        )
    else:
        entry = overrides.revert(
            settings, args.customer, args.ledger, args.supplier, args.field, by, args.reason or ""
        )
    print(json.dumps(entry))
    return 0


def _audit(args: argparse.Namespace, settings: Settings) -> int:
    """The audit trail as JSON lines; with --verify, exit 1 when it was altered."""
    from pipelines.ledgers import overrides
    from pipelines.ledgers.intake import check_customer_id

    check_customer_id(args.customer)
    if args.verify:
        problems = overrides.verify_trail(settings, args.customer)
        entries = len(overrides.read_trail(settings, args.customer))
        print(json.dumps({"customer": args.customer, "entries": entries, "verified": not problems,
                          "problems": problems}))  # fmt: skip
        return 1 if problems else 0
    for entry in overrides.read_trail(settings, args.customer):
        print(json.dumps(entry))
    return 0


def _report(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.ledgers.intake import LedgerError
    from pipelines.ledgers.report import report

    if not args.month or not args.out:
        raise LedgerError("report needs --month YYYY-MM and --out PATH")
    result = report(settings, args.customer, args.month, args.format, Path(args.out), args.ledger)
    print(json.dumps(result))
    return 0


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
