"""``bvs run`` and ``bvs status``: the pipeline, and what it loaded and published."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pipelines.cli.common import date, output_options
from pipelines.settings import Settings, today_in_brisbane


def add_commands(sub: Any) -> None:
    run = sub.add_parser("run", help="materialise the pipeline in-process and publish a snapshot")
    run.add_argument("--as-of", type=date, help="'today' for age rules (default: Brisbane date)")
    run.add_argument("--select", help="Dagster asset selection, e.g. 'group:ingest' or 'key:raw/*'")
    output_options(run)
    run.set_defaults(func=cmd_run)

    status = sub.add_parser("status", help="sources loaded, the current snapshot, what is stale")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--as-of", type=date, help="judge staleness as of this date")
    status.set_defaults(func=cmd_status)


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.materialize import Output, run_pipeline
    from pipelines.warehouse.lock import WarehouseBusy

    output = Output(log_level=args.log_level, verbose=args.verbose)
    try:
        return run_pipeline(settings, args.as_of or today_in_brisbane(), args.select, output)
    except WarehouseBusy as exc:
        print(f"bvs run: {exc}", file=sys.stderr)
        return 1


def cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    from pipelines.status import collect_status, render_status

    status = collect_status(settings, today=args.as_of or today_in_brisbane())
    if args.json:
        print(json.dumps(status, indent=2, default=str))
    else:
        print(render_status(status))
    return 0
