"""The ``bvs`` command (docs, CONTRACT.md): a module per command group, each command parsing
its arguments and calling one function of its part.

* ``bvs sample`` is here: the sample generator is reached by this module alone, through an
  import inside the command (the import-linter contract in ``pyproject.toml`` names it)
* ``pipeline``: ``run``, ``status``
* ``reads``: ``verify``, ``live-check``, ``squeeze``, ``viper``, ``activist``, ``search``
* ``watches``: ``watch``, ``alerts``
* ``servers``: ``serve``
* ``ledger``: ``ledger import|run|show|changes|override|revert|audit|report``
* ``keys``: ``keys create|list|revoke``
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pipelines.cli import keys, ledger, pipeline, reads, servers, watches
from pipelines.cli.common import as_of_date, date
from pipelines.permissions import owner_only
from pipelines.progress import Progress
from pipelines.settings import Settings, get_settings


def cmd_sample(args: argparse.Namespace, settings: Settings) -> int:
    from bvs_sample import extract_date_for, write_next_week, write_sample

    if args.next_week:
        if not args.out:
            print("bvs sample: --next-week needs --out (a new folder)", file=sys.stderr)
            return 2
        try:
            week = write_next_week(
                Path(args.next_week), Path(args.out), change=args.change, seed=args.seed
            )
        except ValueError as exc:
            print(f"bvs sample: {exc}", file=sys.stderr)
            return 2
        print(f"wrote the next week to {args.out} (extracts of {week.extract_date})")
        for name, count in sorted(week.counts.items()):
            print(f"  {name}: {count:,}")
        return 0
    if args.as_of and args.extract_date:
        print("bvs sample: give --as-of or --extract-date, not both", file=sys.stderr)
        return 2
    if args.as_of:
        args.extract_date = extract_date_for(args.as_of)
    out = Path(args.out) if args.out else settings.landing_dir
    progress = Progress("sample", enabled=settings.progress)
    summary = write_sample(
        out,
        scale=args.scale,
        seed=args.seed,
        abr_format=args.abr_format,
        progress=lambda stage, done, total: progress.update(stage, done, total),
        **({"extract_date": args.extract_date} if args.extract_date else {}),
    )
    progress.done()
    print(
        f"wrote sample landing data to {out} (extracts of {summary.extract_date}, as of {summary.as_of})"
    )
    for name, count in sorted(summary.counts.items()):
        print(f"  {name}: {count:,}")
    return 0


def _add_sample(sub: argparse._SubParsersAction) -> None:  # noqa: SLF001
    sample = sub.add_parser("sample", help="write sample landing files in the real formats")
    sample.add_argument("--out", help="landing folder to write (default: $BVS_DATA_DIR/landing)")
    sample.add_argument("--scale", type=int, default=10_000, help="number of ABN records")
    sample.add_argument("--seed", type=int, default=1, help="same seed, same files")
    sample.add_argument(
        "--abr-format",
        choices=("zip", "xml"),
        default="zip",
        help="the ABR extract as the two download zips (default) or 20 XML files",
    )
    sample.add_argument(
        "--as-of",
        type=as_of_date,
        help="date the sample for this as-of date (YYYY-MM-DD or 'today'): extracts two days"
        " older, fresh on that day; default: the fixed 2026-11-20 of the tests",
    )
    sample.add_argument(
        "--extract-date", type=date, help="the extracts' date (the as-of date is 2 days later)"
    )
    sample.add_argument(
        "--next-week",
        metavar="FROM_DIR",
        help="write the week after FROM_DIR's landing files into --out (docs/sample-generator.md)",
    )
    sample.add_argument(
        "--change", type=float, default=0.005, help="with --next-week: share of records changed"
    )
    sample.set_defaults(func=cmd_sample)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bvs", description="BVS warehouse command line")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_sample(sub)
    for group in (pipeline, reads, watches, servers, ledger, keys):
        group.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    owner_only()  # customer data: files 0600, folders 0700 (pipelines/permissions.py)
    args = build_parser().parse_args(argv)
    settings = get_settings()
    try:
        code = int(args.func(args, settings))
        sys.stdout.flush()  # a closed pipe shows here rather than at exit
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `bvs ... | head`: the reader has what it wanted. Python would flush stdout again at
        # exit and print a traceback; point it at /dev/null and end as a pipe writer does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13  # SIGPIPE
