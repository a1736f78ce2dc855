"""Verifying a snapshot file from a separate, read-only process.

``verify_snapshot`` runs ``python -m pipelines.warehouse.snapshot verify`` (``main`` here):
row counts of every table and the metadata must match what the writer copied, and every
view must bind in the file (a view is not counted: counting it runs its query,
``marts.tiles`` 36 times the rows of ``marts.verifications``, minutes at 5 M ABNs). A
separate process proves the file is complete on disk and opens read-only on its own, the
way the API will open it. This module needs only duckdb and the standard library.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb

from .core import METADATA_TABLES, SnapshotError, qualified

VERIFY_TIMEOUT_SECONDS = 600


def threads_config(threads: int) -> dict[str, str | bool | int | float | list[str]]:
    """Connection config capping DuckDB's threads (0: none, DuckDB's default)."""
    return {"threads": int(threads)} if threads else {}


def check_snapshot_file(
    path: Path,
    expected: dict[str, int],
    snapshot_id: str | None = None,
    *,
    views: Sequence[str] = (),
    threads: int = 0,
) -> None:
    """Open ``path`` read-only in this process and compare it with ``expected`` row counts
    (tables) and ``views`` (each must be a view that binds over the file's own tables).

    Used by the verify subprocess; call ``verify_snapshot`` from the pipeline instead.
    ``threads`` caps DuckDB's threads (0: DuckDB's default).
    """
    try:
        con = duckdb.connect(str(path), read_only=True, config=threads_config(threads))
    except duckdb.Error as exc:
        raise SnapshotError(f"cannot open snapshot {path.name} read-only: {exc}") from exc
    try:
        problems: list[str] = []
        rows = con.execute(
            """
            select table_schema, table_name, table_type
            from information_schema.tables
            where table_catalog = current_database()
            """
        ).fetchall()
        found = {f"{schema}.{name}": str(kind) for schema, name, kind in rows}
        for name in METADATA_TABLES:
            if name not in found:
                problems.append(f"metadata table {name} is missing")
        data_tables = {name: kind for name, kind in found.items() if name not in METADATA_TABLES}
        for name, kind in sorted(data_tables.items()):
            if kind not in {"BASE TABLE", "VIEW"}:
                problems.append(f"{name} is a {kind.lower()}, not a table or view")
        wanted = set(expected) | set(views)
        missing = sorted(wanted - set(data_tables))
        unexpected = sorted(set(data_tables) - wanted)
        if missing:
            problems.append(f"tables missing: {', '.join(missing)}")
        if unexpected:
            problems.append(f"unexpected tables: {', '.join(unexpected)}")
        for name in sorted(wanted & set(data_tables)):
            is_table = name in expected
            relation = qualified(*name.split(".", 1))
            if data_tables[name] != ("BASE TABLE" if is_table else "VIEW"):
                kind = "table" if is_table else "view"
                problems.append(f"{name} is a {data_tables[name].lower()}, expected a {kind}")
            elif is_table:
                row = con.execute(f"select count(*) from {relation}").fetchone()
                actual = int(row[0]) if row else -1
                if actual != expected[name]:
                    problems.append(f"{name} has {actual} rows, expected {expected[name]}")
            else:
                try:  # binds every name the view reads, runs nothing
                    con.execute(f"select * from {relation} limit 0").fetchall()
                except duckdb.Error as exc:
                    problems.append(f"view {name} does not bind: {exc}".replace("\n", " "))
        if "meta.snapshot" in found:
            meta_rows = con.execute(
                "select snapshot_id, row_counts, as_of, built_at, views from meta.snapshot"
            ).fetchall()
            if len(meta_rows) != 1:
                problems.append(f"meta.snapshot has {len(meta_rows)} rows, expected 1")
            else:
                meta_id, row_counts, as_of, built_at, meta_views = meta_rows[0]
                if snapshot_id is not None and meta_id != snapshot_id:
                    problems.append(f"meta.snapshot names {meta_id!r}, expected {snapshot_id!r}")
                if as_of is None or built_at is None:
                    problems.append("meta.snapshot has no as_of or built_at")
                if json.loads(row_counts) != expected:
                    problems.append("meta.snapshot row_counts differ from the expected counts")
                if sorted(json.loads(meta_views)) != sorted(views):
                    problems.append("meta.snapshot views differ from the expected views")
        if problems:
            raise SnapshotError(f"snapshot {path.name} failed verification: " + "; ".join(problems))
    finally:
        con.close()


def verify_snapshot(
    path: Path,
    expected: dict[str, int],
    *,
    snapshot_id: str | None = None,
    views: Sequence[str] = (),
    timeout: float = VERIFY_TIMEOUT_SECONDS,
    threads: int = 0,
) -> None:
    """Check a snapshot file from a separate, read-only process; raise SnapshotError if it fails.

    A separate process proves the file is complete on disk and opens read-only on its own,
    the way the API will open it, rather than trusting the writer's view of it.
    """
    command = [
        sys.executable,
        "-m",
        "pipelines.warehouse.snapshot",
        "verify",
        str(path),
        json.dumps(expected, sort_keys=True),
        "--views",
        json.dumps(sorted(views)),
    ]
    if snapshot_id is not None:
        command += ["--snapshot-id", snapshot_id]
    if threads:
        command += ["--threads", str(threads)]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise SnapshotError(f"verifying snapshot {path.name} took over {timeout:g} s") from exc
    if result.returncode != 0:
        message = result.stderr.strip().splitlines()[-1:] or [f"exit code {result.returncode}"]
        raise SnapshotError(message[0])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.warehouse.snapshot", description=(__doc__ or "").splitlines()[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check a snapshot file read-only")
    verify.add_argument("path", type=Path)
    verify.add_argument("expected", help='JSON object {"schema.table": rows}')
    verify.add_argument("--snapshot-id", default=None)
    verify.add_argument("--views", default="[]", help='JSON array ["schema.view", ...]')
    verify.add_argument("--threads", type=int, default=0, help="DuckDB threads (0: default)")
    args = parser.parse_args(argv)

    try:
        expected = json.loads(args.expected)
        if not isinstance(expected, dict):
            raise ValueError("expected counts must be a JSON object")
        views = json.loads(args.views)
        if not isinstance(views, list):
            raise ValueError("--views must be a JSON array")
        check_snapshot_file(
            args.path,
            {str(k): int(v) for k, v in expected.items()},
            args.snapshot_id,
            views=[str(view) for view in views],
            threads=args.threads,
        )
    except (SnapshotError, ValueError, duckdb.Error) as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return 1
    return 0
