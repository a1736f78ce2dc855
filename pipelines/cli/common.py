"""What the command groups share: argument types, the run output options, and printing an
answer read from the current serving snapshot."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pipelines.settings import Settings, today_in_brisbane

if TYPE_CHECKING:
    import duckdb


def date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from exc


def as_of_date(value: str) -> dt.date:
    """An as-of date: YYYY-MM-DD, or ``today`` (in Brisbane, as `bvs run` takes it)."""
    return today_in_brisbane() if value == "today" else date(value)


def output_options(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """--log-level and --verbose of the commands that materialise assets."""
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help=f"{prefix}Dagster console log level (default WARNING; every event is in the UI)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=f"{prefix}Dagster's and dbt's output on stderr (default: a log file under <data_dir>/logs/)",
    )


def print_from_snapshot(
    settings: Settings, build: Callable[[duckdb.DuckDBPyConnection], Any]
) -> int:
    """Print `build(connection)` as JSON from the current snapshot; errors as {"message"}:
    exit code 2 for what the API answers 4xx (a malformed or unknown ABN, ticker or id),
    1 when there is no snapshot to read."""
    from pipelines.serving.verify import VerifyError
    from pipelines.warehouse.snapshot import SnapshotError, open_snapshot

    try:
        con = open_snapshot(settings)
        try:
            response = build(con)
        finally:
            con.close()
    except VerifyError as exc:
        print(json.dumps({"message": exc.message}))
        return 2
    except SnapshotError as exc:
        print(json.dumps({"message": str(exc)}))
        return 1
    print(json.dumps(response, indent=2, default=str))
    return 0
