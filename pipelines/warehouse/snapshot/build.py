"""Building a snapshot file: the marts written from the writer's connection through
``ATTACH`` in one transaction (into a clone of the current snapshot, only what changed:
``update``; or every table copied), views recreated over the file's own tables, the
warehouse's table and column comments carried over, and the metadata tables
``meta.snapshot``, ``meta.sources``, ``meta.source_failures`` and ``meta.snapshot_tables``
written."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from . import update
from .core import (
    META_SCHEMA,
    METADATA_TABLES,
    SnapshotError,
    duckdb_setting,
    qualified,
    quote,
    quote_literal,
    remove_database_file,
    transaction,
)

log = logging.getLogger(__name__)

_QUALIFIED_NAME = re.compile(r"^[^.\"]+\.[^.\"]+$")

_SNAPSHOT_DDL = """
create table {snap}.meta.snapshot (
    snapshot_id varchar not null,
    built_at timestamptz not null,
    as_of date not null,
    row_counts json not null,       -- {{"schema.table": rows}} for every data table
    views json not null             -- ["schema.view", ...]: views over those tables
)
"""

_SOURCES_DDL = """
create table {snap}.meta.sources (
    source varchar not null,
    load_id varchar not null,
    status varchar,
    extract_date date,
    finished_at timestamptz,
    file_name varchar,               -- one row per file the load read; null if none recorded
    sha256 varchar,
    size_bytes bigint,
    rows bigint
)
"""

# The last successful load of each source (the one whose data the warehouse holds) and the
# files it read. 'unchanged' loads re-read the same files and leave the data as it was.
_RANKED_LOADS = """
with ranked_loads as (
    select
        load_id, source, status, extract_date, finished_at,
        row_number() over (
            partition by source order by coalesce(finished_at, started_at) desc, load_id desc
        ) as recency
    from {wh}.meta.loads
    where status = 'loaded'
)"""

_SOURCES_FROM_LOADS_AND_MANIFEST = (
    "insert into {snap}.meta.sources"
    + _RANKED_LOADS
    + """,
last_loads as (
    select * from ranked_loads where recency = 1
)
select
    l.source, l.load_id, l.status, l.extract_date, l.finished_at,
    m.file_name, m.sha256, m.size_bytes, m.rows
from last_loads as l
left join {wh}.meta.manifest as m on m.load_id = l.load_id
order by l.source, m.file_name
"""
)

_SOURCES_FROM_LOADS_ONLY = (
    "insert into {snap}.meta.sources"
    + _RANKED_LOADS
    + """
select source, load_id, status, extract_date, finished_at, null, null, null, null
from ranked_loads
where recency = 1
order by source
"""
)


_FAILURES_DDL = """
create table {snap}.meta.source_failures (
    source varchar not null,
    load_id varchar not null,       -- the failed load (meta.loads, meta.quarantine, meta.dq_results)
    attempted_at timestamptz,
    message varchar                 -- the file and the first cause
)
"""

# Sources whose latest load attempt failed: the snapshot serves their last good data
# (meta.sources), and says why the newer files were refused. A later successful load, or a
# recorded "unchanged" attempt (the refused files are gone, the last good ones are back),
# clears it.
_FAILURES_FROM_LOADS = """
insert into {snap}.meta.source_failures
select source, load_id, started_at, message
from {wh}.meta.loads
where status in ('loaded', 'unchanged', 'failed')
qualify row_number() over (partition by source order by started_at desc, load_id desc) = 1
    and status = 'failed'
order by source
"""


def _catalog_objects(
    cur: duckdb.DuckDBPyConnection, catalog: str, schema: str
) -> list[tuple[str, str]]:
    rows = cur.execute(
        """
        select table_name, table_type
        from information_schema.tables
        where table_catalog = ? and table_schema = ?
        order by table_name
        """,
        [catalog, schema],
    ).fetchall()
    return [(str(name), str(kind)) for name, kind in rows]


def _schema_exists(cur: duckdb.DuckDBPyConnection, catalog: str, schema: str) -> bool:
    row = cur.execute(
        """
        select count(*) from information_schema.schemata
        where catalog_name = ? and schema_name = ?
        """,
        [catalog, schema],
    ).fetchone()
    return bool(row and row[0])


def _table_exists(cur: duckdb.DuckDBPyConnection, catalog: str, schema: str, table: str) -> bool:
    row = cur.execute(
        """
        select count(*) from information_schema.tables
        where table_catalog = ? and table_schema = ? and table_name = ?
        """,
        [catalog, schema, table],
    ).fetchone()
    return bool(row and row[0])


_VIEW_SQL = re.compile(r"^\s*create\s+view\s+\S+\s+as\s+(.*?);?\s*$", re.IGNORECASE | re.DOTALL)


def _view_bodies(
    cur: duckdb.DuckDBPyConnection, catalog: str, wanted: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """The SELECT of each view among ``wanted`` (DuckDB keeps names of its own database
    unqualified). A view whose definition cannot be read this way is copied as a table."""
    rows = cur.execute(
        "select schema_name, view_name, sql from duckdb_views() where database_name = ?",
        [catalog],
    ).fetchall()
    bodies: dict[tuple[str, str], str] = {}
    for schema, view, sql in rows:
        key = (str(schema), str(view))
        if key not in wanted:
            continue
        match = _VIEW_SQL.match(str(sql or ""))
        if match and f"{catalog}." not in match.group(1):
            bodies[key] = match.group(1)
        else:
            log.warning("view %s.%s is copied as a table: its definition names %s", *key, catalog)
    return bodies


def _tables_to_copy(
    cur: duckdb.DuckDBPyConnection,
    catalog: str,
    schemas: Sequence[str],
    extra_tables: Sequence[str],
) -> list[tuple[str, str]]:
    """(schema, table) pairs to copy, in a stable order; raises SnapshotError if any is missing."""
    if not schemas and not extra_tables:
        raise SnapshotError("nothing to publish: no schemas and no extra tables given")
    wanted: list[tuple[str, str]] = []
    for schema in schemas:
        if not _schema_exists(cur, catalog, schema):
            raise SnapshotError(
                f"schema {schema!r} not found in the warehouse ({catalog}); "
                "build it (dbt build) before publishing a snapshot"
            )
        objects = _catalog_objects(cur, catalog, schema)
        if not objects:
            raise SnapshotError(f"schema {schema!r} in the warehouse has no tables or views")
        wanted.extend((schema, name) for name, _kind in objects)
    for extra in extra_tables:
        if not _QUALIFIED_NAME.match(extra):
            raise SnapshotError(f"extra table {extra!r} is not a qualified name schema.table")
        schema, table = extra.split(".")
        if f"{schema}.{table}" in METADATA_TABLES:
            raise SnapshotError(f"{extra} is reserved for the snapshot's own metadata")
        if not _table_exists(cur, catalog, schema, table):
            raise SnapshotError(f"extra table {extra!r} not found in the warehouse")
        if (schema, table) not in wanted:
            wanted.append((schema, table))
    return wanted


def _copy_sources(
    cur: duckdb.DuckDBPyConnection, catalog: str, snap: str, cadences: Mapping[str, int]
) -> None:
    """``meta.sources``: empty (with a warning) if the warehouse has no load bookkeeping yet;
    each source's refresh cadence in ``refresh_days`` (null where none is given), so the
    snapshot's readers tell stale data without knowing the sources' declarations."""
    cur.execute(_SOURCES_DDL.format(snap=snap))
    cur.execute(_FAILURES_DDL.format(snap=snap))
    if _table_exists(cur, catalog, META_SCHEMA, "loads"):
        cur.execute(_FAILURES_FROM_LOADS.format(snap=snap, wh=quote(catalog)))
        has_manifest = _table_exists(cur, catalog, META_SCHEMA, "manifest")
        statement = _SOURCES_FROM_LOADS_AND_MANIFEST if has_manifest else _SOURCES_FROM_LOADS_ONLY
        cur.execute(statement.format(snap=snap, wh=quote(catalog)))
    else:
        log.warning("warehouse has no meta.loads: the snapshot records no source extracts")
    cur.execute(f"alter table {snap}.meta.sources add column refresh_days integer")
    for source, days in sorted(cadences.items()):
        cur.execute(
            f"update {snap}.meta.sources set refresh_days = ? where source = ?", [days, source]
        )


def _copy_comments(
    cur: duckdb.DuckDBPyConnection,
    catalog: str,
    snap: str,
    copied: Sequence[tuple[str, str]],
    views: Mapping[tuple[str, str], str],
) -> int:
    """Carry the warehouse's comments (dbt's ``persist_docs``) on the ``copied`` tables and
    views and on their columns into the snapshot; return how many. ``COMMENT ON`` takes no
    parameter: the text goes in as a quoted literal."""
    wanted = set(copied)
    relations = cur.execute(
        """
        select schema_name, table_name, comment from duckdb_tables()
        where database_name = ? and comment is not null
        union all
        select schema_name, view_name, comment from duckdb_views()
        where database_name = ? and comment is not null
        order by 1, 2
        """,
        [catalog, catalog],
    ).fetchall()
    columns = cur.execute(
        """
        select schema_name, table_name, column_name, comment from duckdb_columns()
        where database_name = ? and comment is not null
        order by schema_name, table_name, column_index
        """,
        [catalog],
    ).fetchall()
    statements = [
        f"comment on {'view' if (schema, name) in views else 'table'} "
        f"{snap}.{qualified(schema, name)} is {quote_literal(str(text))}"
        for schema, name, text in relations
        if (schema, name) in wanted
    ] + [
        f"comment on column {snap}.{qualified(schema, name, column)} is {quote_literal(str(text))}"
        for schema, name, column, text in columns
        if (schema, name) in wanted
    ]
    for statement in statements:
        cur.execute(statement)
    return len(statements)


def build_snapshot_file(
    con: duckdb.DuckDBPyConnection,
    tmp: Path,
    *,
    snapshot_id: str,
    built_at: dt.datetime,
    as_of: dt.date,
    schemas: Sequence[str],
    extra_tables: Sequence[str],
    cadences: Mapping[str, int],
    previous: Path | None = None,
    keys: Mapping[str, Sequence[str]] | None = None,
    orders: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, int], tuple[str, ...]]:
    """Write the snapshot into ``tmp`` through the writer's connection; return the tables'
    row counts and the views' names.

    ``previous`` is the current snapshot's file: ``tmp`` starts as its clone and only the
    tables that changed are written (``update``), by ``keys`` ("schema.table" -> key
    columns) where a table has one. Without it every table is copied. A table in
    ``orders`` ("schema.table" -> columns) is copied whole in that order, and an update
    keeps one run in that order after it (``update``).
    Works on its own cursor, so it copies the warehouse's committed state. Logs where the
    time went; ``meta.snapshot_tables`` holds each table's seconds.
    """
    started = time.perf_counter()
    cur = con.cursor()
    try:
        row = cur.execute("select current_database()").fetchone()
        catalog = str(row[0]) if row else ""
        wanted = _tables_to_copy(cur, catalog, schemas, extra_tables)
        alias = f"bvs_snapshot_{secrets.token_hex(4)}"
        snap, wh = quote(alias), quote(catalog)
        attach = f"attach {quote_literal(str(tmp))} as {snap}"
        fresh_reason, how = "there is no current snapshot", ""
        if previous is not None:
            how = update.clone_file(previous, tmp)
            fresh_reason = _clone_unusable(cur, attach, alias)
            if fresh_reason:  # start afresh
                log.info("snapshot written afresh: %s", fresh_reason)
                with contextlib.suppress(duckdb.Error):
                    cur.execute(f"detach database if exists {snap}")
                remove_database_file(tmp)
        if fresh_reason:
            cur.execute(attach)
        plans: list[update.TablePlan] = []
        codes = update.code_hashes(cur, catalog)
        try:
            views = _view_bodies(cur, catalog, wanted)
            tables = [key for key in wanted if key not in views]
            if fresh_reason:
                plans = [update.TablePlan(s, t, "copied", fresh_reason) for s, t in tables]
            else:
                plans = update.plan_tables(
                    cur, catalog, alias, tables, keys or {}, orders or {}, codes
                )
                update.drop_for_rewrite(cur, snap, plans, _objects_to_drop(cur, alias, tables))
                log.info(
                    "snapshot from %s (%s): %s",
                    previous.name if previous else "",
                    how,
                    ", ".join(
                        f"{sum(p.method == m for p in plans)} {m}"
                        for m in ("kept", "updated", "copied")
                    ),
                )
            for plan in plans:
                plan.order = tuple((orders or {}).get(plan.name, ()))
                plan.code_hash = codes.get(plan.table)
            planned = time.perf_counter()
            counts: dict[str, int] = {}
            # No vacuum in the commit's or the checkpoint's checkpoints: a vacuum merges the
            # row groups beside an updated table's deleted rows, decompressing and
            # compressing every row in them again (at 2 M ABNs a realistic week's commit took
            # 4.6 to 5.4 s with it, 0.6 to 0.7 s without). The rows an update inserts then
            # take row groups of their own, and the deleted ones keep their place until the
            # table is next copied whole (``update.UPDATE_MAX_SHARE``).
            with duckdb_setting(cur, "max_vacuum_tasks", 0):
                # One transaction: every table is written from the same state of the warehouse.
                with transaction(cur):
                    for schema in sorted({s for s, _ in wanted} | {META_SCHEMA}):
                        cur.execute(f"create schema if not exists {snap}.{quote(schema)}")
                    for plan in plans:
                        writing = time.perf_counter()
                        update.write_table(cur, catalog, snap, plan)
                        source = f"{wh}.{qualified(plan.schema, plan.table)}"
                        # Counted on the warehouse side, so the check in another process compares
                        # the file against what the writer saw, not against itself.
                        count_row = cur.execute(f"select count(*) from {source}").fetchone()
                        counts[plan.name] = int(count_row[0]) if count_row else 0
                        plan.seconds += time.perf_counter() - writing
                    # views once what they read is in the file
                    for (schema, view), body in sorted(views.items()):
                        cur.execute(f"create view {snap}.{qualified(schema, view)} as {body}")
                    update.clear_comments(cur, alias, snap)
                    _copy_comments(cur, catalog, snap, wanted, views)
                    view_names = tuple(sorted(f"{schema}.{view}" for schema, view in views))
                    cur.execute(_SNAPSHOT_DDL.format(snap=snap))
                    cur.execute(
                        f"insert into {snap}.meta.snapshot values (?, ?, ?, ?, ?)",
                        [
                            snapshot_id,
                            built_at,
                            as_of,
                            json.dumps(counts, sort_keys=True),
                            json.dumps(view_names),
                        ],
                    )
                    update.record(cur, snap, plans)
                    _copy_sources(cur, catalog, snap, cadences)
                    committing = time.perf_counter()
                cur.execute(f"checkpoint {snap}")
            _log_times(snapshot_id, plans, started, planned, committing)
        finally:
            update.drop_changed_keys(cur, plans)
            with contextlib.suppress(duckdb.Error):
                cur.execute(f"detach database if exists {snap}")
        return counts, view_names
    finally:
        cur.close()


def _log_times(
    snapshot_id: str,
    plans: Sequence[update.TablePlan],
    started: float,
    planned: float,
    committing: float,
) -> None:
    """One line on where the file's time went: the clone and the plan (each updated table's
    changed keys found), the writes, the commit, and the tables that took longest."""
    done = time.perf_counter()
    slowest = sorted(plans, key=lambda p: p.seconds, reverse=True)[:5]
    log.info(
        "snapshot %s written in %.1f s: %.1f s to clone and plan, %.1f s to write,"
        " %.1f s to commit; the slowest tables: %s",
        snapshot_id,
        done - started,
        planned - started,
        committing - planned,
        done - committing,
        ", ".join(f"{p.name} ({p.method}) {p.seconds:.1f} s" for p in slowest),
    )


def _clone_unusable(cur: duckdb.DuckDBPyConnection, attach: str, alias: str) -> str:
    """Attach the clone of the current snapshot; why it is not to be updated ("" when it
    is, and then it stays attached)."""
    try:
        cur.execute(attach)
        if not _table_exists(cur, alias, META_SCHEMA, "snapshot"):
            return "the current snapshot has no meta.snapshot"
        return update.clone_reason(cur, alias) or ""
    except duckdb.Error as exc:
        return f"the current snapshot cannot be read: {exc}"


def _objects_to_drop(
    cur: duckdb.DuckDBPyConnection, catalog: str, tables: Sequence[tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """What a clone holds that the new snapshot writes again or no longer has: every view,
    the metadata tables, and the tables not in ``tables``: (schema, name, "view" | "table")."""
    keep = set(tables)
    rows = cur.execute(
        """
        select table_schema, table_name, table_type
        from information_schema.tables
        where table_catalog = ?
        order by table_type desc, table_schema, table_name
        """,
        [catalog],
    ).fetchall()
    drop: list[tuple[str, str, str]] = []
    for schema, name, kind in rows:
        if kind == "VIEW":
            drop.append((str(schema), str(name), "view"))
        elif (schema, name) not in keep:
            drop.append((str(schema), str(name), "table"))
    return drop
