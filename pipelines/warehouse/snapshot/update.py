"""A week's snapshot written from the current one: the current file cloned, then only the
tables that changed written into it.

A realistic week changes about one ABN in a hundred, but the tables that hold a row per ABN
(``verifications``: 131 columns) are most of a snapshot's bytes, and copying a table into a
DuckDB file compresses every value again. So when a current snapshot exists:

1. **clone** its file (``clone_file``: a reflink, which shares the blocks, where the file
   system has them (XFS, Btrfs); else a byte copy, about a second per GB);
2. **plan** each table (``plan_tables``), reading both sides, writing nothing:

   * ``kept``: a table without a key whose row count and ``sum(hash(row))`` equal the
     clone's;
   * ``updated``: a table with a key (the model's ``meta.publish_key``, passed in as
     ``keys``: the table's grain, the columns of one of its uniqueness tests, two nulls
     counting equal as they do there; tests/test_dbt_manifest.py holds every key to one)
     whose rows changed for at most ``UPDATE_MAX_SHARE`` of its keys, this week
     and summed over the weeks since it was last copied whole. The changed
     keys are those whose row hash differs, leaving out the fixed-width columns that hold one
     value in every row of the warehouse's table (``as_of_date``: set on every row
     afterwards, not a changed row each). A table with an ``input_hash`` column (a model
     built incrementally, ``sliced_table``: the hash of everything a key's rows are
     computed from) is compared on that column alone, not on a hash of every column: 0.3
     against 2.5 s a side for ``verifications`` (131 columns) at 2 M ABNs. A row changes
     while its input hash does not only when the model's code changed (it was then built
     whole): the code the warehouse's table was built with (``meta.model_versions``) is
     recorded with the table in the snapshot, and when it is not the one the clone's table
     was built with, or either is unknown, the check after the update (4., below) compares
     the tables whole. A table whose builds recorded the keys they wrote since the clone's
     snapshot was published (``written_since``: ``meta.<table>__unpublished_keys``,
     written by the ``sliced_table`` materialisation and the search index's post-hook in
     the transaction of their rows, emptied by ``mark_published`` once a publish's
     snapshot is current) is not hashed at all: its changed keys are those of the rows, on
     either side, of the keys recorded;
   * ``copied``: every other table: new, its columns changed, no key, or too much changed;

   a table stored in an order (``orders``: the model's ``meta.publish_order``, the search
   index) is copied in that order, and its storage is then one sorted run, which the
   lookups' zone maps prune to a row group or two. An update keeps one run after it: the
   rows written since the copy (``sorted_rows``, recorded with the table, is where they
   begin) are written again with the changed keys' rows, as one run in that order, so a
   lookup reads at most one run more, however many weeks updated the table;

3. **drop** what is copied again, the views and the metadata tables, and checkpoint, so the
   copies reuse those blocks and the file does not grow;
4. **write**, in one transaction: the copies; for an update, the changed keys' rows deleted
   and the warehouse's inserted (in key order; keys compared null-safe), the one-value
   columns set; then the updated table is checked against the warehouse and copied whole
   if it differs. Keys found on every column, or on an input hash under the code the
   clone's table was built with, need only equal row counts; else the whole table is
   compared (row count and ``sum(hash(row))``: 1.9 s a side for ``verifications`` at 2 M
   ABNs).

The clone's comments are cleared before the warehouse's are written (``clear_comments``),
so a kept table does not keep a description the warehouse dropped.
``meta.snapshot_tables`` records what each table was and why (``record``). The warehouse is
read in two transactions (plan, write): the publish runs under the writer lock, so nothing
writes the warehouse between them.

The file is started afresh instead (``clone_reason``) when there is no current snapshot,
when it cannot be read, or when more than ``FREE_MAX_SHARE`` of its blocks are free.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .core import duckdb_setting, qualified, quote, transaction

log = logging.getLogger(__name__)

# A keyed table with more of its keys changed than this, this week or summed over the weeks
# since it was last copied whole, is copied whole: past it a copy is cheaper than the delete
# and insert, and the copy writes the table in the warehouse's order, without the appended
# runs (a lookup by key reads every appended row group, whose keys span the whole range).
# The warehouse's order is the model's: `verifications`, built in slices, is in no ABN order.
UPDATE_MAX_SHARE = 0.10
# A current snapshot with more of its blocks free than this is not cloned: the new file is
# written afresh, compact.
FREE_MAX_SHARE = 0.25

_FIXED_WIDTH = frozenset(
    {"DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "BOOLEAN", "TINYINT", "SMALLINT",
     "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "HUGEINT",
     "FLOAT", "DOUBLE"}
)  # fmt: skip
_FICLONE = 0x40049409  # linux/fs.h: _IOW(0x94, 9, int)
# The column of an incrementally built model (macros/materializations/sliced_table.sql)
# that hashes what each key's rows are computed from.
INPUT_HASH = "input_hash"
# The warehouse's records of the keys a build wrote since the last publish
# (macros/materializations/written_keys.sql), and the snapshot they are counted from.
UNPUBLISHED_SUFFIX = "__unpublished_keys"
UNPUBLISHED_SINCE = "unpublished_keys_since"

SNAPSHOT_TABLES_DDL = """
create table {snap}.meta.snapshot_tables (
    table_name varchar not null,        -- schema.table
    method varchar not null,            -- copied | updated | kept
    reason varchar not null,
    rows_written bigint not null,       -- copied: every row; updated: the changed keys' rows
    rows_written_since_copy bigint not null, -- updated rows since the table was last copied
    code_hash varchar,  -- the code the warehouse's table was built with (meta.model_versions)
    seconds double,     -- the publish's time on the table: deciding how and writing it (the
                        -- commit of every table's rows at once is not in it)
    sorted_rows bigint  -- a table stored in an order: the rows of the sorted run its storage
                        -- starts with (rowid below it); the rows an update wrote follow it
)
"""


@dataclass
class TablePlan:
    schema: str
    table: str
    method: str  # copied | updated | kept
    reason: str
    key: tuple[str, ...] = ()
    changed_keys: str = ""  # the temporary table of an update's changed keys
    constant_columns: tuple[str, ...] = ()
    rows_written: int = 0
    rows_written_since_copy: int = 0
    order: tuple[str, ...] = ()  # the order a whole copy is written in (publish_order)
    # the changed keys are every key whose row differs: found on every column but the
    # constant ones, or on an input hash under unchanged code (else the update is checked
    # against the warehouse's whole table)
    keys_complete: bool = False
    code_hash: str | None = None  # meta.model_versions: the code the table was built with
    seconds: float = 0.0  # the publish's time on the table: planning and writing it
    # a table stored in an order: the rows of the sorted run its storage starts with
    sorted_rows: int | None = None

    @property
    def name(self) -> str:
        return f"{self.schema}.{self.table}"


def clone_file(source: Path, target: Path) -> str:
    """``target`` made a copy of ``source``: a reflink where the file system can share the
    blocks, else a byte copy. Returns ``reflink`` or ``copy``."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        try:
            fcntl.ioctl(dst.fileno(), _FICLONE, src.fileno())
            return "reflink"
        except OSError:
            pass
    shutil.copyfile(source, target)
    return "copy"


def clone_reason(cur: duckdb.DuckDBPyConnection, alias: str) -> str | None:
    """Why the clone attached as ``alias`` is not to be updated, or None when it is."""
    rows = cur.execute(
        "select total_blocks, free_blocks from pragma_database_size() where database_name = ?",
        [alias],
    ).fetchall()
    if not rows:
        return "the current snapshot's size is unknown"
    total, free = (int(v or 0) for v in rows[0])
    if total and free > FREE_MAX_SHARE * total:
        return f"the current snapshot has {free} of its {total} blocks free"
    return None


def _columns(cur: duckdb.DuckDBPyConnection, catalog: str, schema: str, table: str) -> list:
    return cur.execute(
        """
        select column_name, data_type from duckdb_columns()
        where database_name = ? and schema_name = ? and table_name = ?
        order by column_index
        """,
        [catalog, schema, table],
    ).fetchall()


def _count(cur: duckdb.DuckDBPyConnection, relation: str) -> int:
    rows = cur.execute(f"select count(*) from {relation}").fetchall()
    return int(rows[0][0]) if rows else 0


def _fingerprint(cur: duckdb.DuckDBPyConnection, relation: str) -> tuple:
    rows = cur.execute(f"select count(*), sum(hash(t)) from {relation} as t").fetchall()
    return tuple(rows[0]) if rows else ()


def _constant_columns(
    cur: duckdb.DuckDBPyConnection, relation: str, columns: Sequence[tuple[str, str]]
) -> tuple[str, ...]:
    """The columns of ``relation`` of a fixed-width type (a date stamped on every row, such as
    ``as_of_date``) that hold one value, not null, in every row. Text and nested columns are
    not tested: reading every string of a wide table costs more than the rows it saves."""
    fixed = [name for name, kind in columns if kind in _FIXED_WIDTH]
    if not fixed:
        return ()
    tests = ", ".join(
        f"count({quote(c)}) = count(*) and min({quote(c)}) = max({quote(c)})" for c in fixed
    )
    rows = cur.execute(f"select {tests} from {relation}").fetchall()
    return tuple(c for c, constant in zip(fixed, rows[0], strict=True) if constant)


@dataclass(frozen=True)
class PreviousWrites:
    """What the clone's ``meta.snapshot_tables`` says of one table."""

    since_copy: int = 0  # the rows rewritten by updates since it was copied whole
    code_hash: str | None = None  # the code it was built with (None where unknown)
    sorted_rows: int | None = None  # stored in an order: its sorted run (None: unknown)


def previous_writes(cur: duckdb.DuckDBPyConnection, alias: str) -> dict[str, PreviousWrites]:
    """Per table of the clone's own ``meta.snapshot_tables``, what it says of the table
    (empty for a snapshot written before the table existed; a column it lacks, unknown)."""
    with contextlib.suppress(duckdb.CatalogException):
        columns = {c for c, _ in _columns(cur, alias, "meta", "snapshot_tables")}
        code = "code_hash" if "code_hash" in columns else "null"
        sorted_rows = "sorted_rows" if "sorted_rows" in columns else "null"
        rows = cur.execute(
            f"select table_name, rows_written_since_copy, {code}, {sorted_rows}"
            f" from {quote(alias)}.meta.snapshot_tables"
        ).fetchall()
        return {
            str(name): PreviousWrites(int(since), code_hash, None if run is None else int(run))
            for name, since, code_hash, run in rows
        }
    return {}


def code_hashes(cur: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, str]:
    """Model -> the code its table was built with, from the warehouse's
    ``meta.model_versions`` (the models built incrementally record it; empty without it)."""
    with contextlib.suppress(duckdb.CatalogException):
        rows = cur.execute(
            f"select model, code_hash from {quote(catalog)}.meta.model_versions"
        ).fetchall()
        return {str(model): str(code) for model, code in rows}
    return {}


def _meta_tables(cur: duckdb.DuckDBPyConnection, catalog: str) -> list[str]:
    return [
        str(name)
        for (name,) in cur.execute(
            "select table_name from duckdb_tables()"
            " where database_name = ? and schema_name = 'meta'",
            [catalog],
        ).fetchall()
    ]


def written_since(cur: duckdb.DuckDBPyConnection, catalog: str, alias: str) -> dict[str, str]:
    """Table -> the column of the keys its builds recorded as written since the clone
    attached as ``alias`` was published (``meta.<table>__unpublished_keys``): every row of
    the table that differs from the clone's holds one of those keys on one side or the
    other.

    Only records that can say so: the warehouse's ``meta.unpublished_keys_since`` names the
    clone's own snapshot (the publish that emptied the records made it current; a clone of
    any other snapshot, one rolled back to or written before the records existed, gets
    none), the record has one column, and no whole build since (a null key). A table
    without a record is not in it: its model records nothing."""
    wh, snap = quote(catalog), quote(alias)
    try:
        published = cur.execute(f"select snapshot_id from {snap}.meta.snapshot").fetchall()
        since = cur.execute(f"select snapshot_id from {wh}.meta.{UNPUBLISHED_SINCE}").fetchall()
    except duckdb.CatalogException:
        return {}
    if len(published) != 1 or since != published:
        return {}
    found: dict[str, str] = {}
    for name in _meta_tables(cur, catalog):
        if not name.endswith(UNPUBLISHED_SUFFIX):
            continue
        columns = _columns(cur, catalog, "meta", name)
        if len(columns) != 1:
            continue
        column = str(columns[0][0])
        whole = cur.execute(
            f"select count(*) from {wh}.meta.{quote(name)} where {quote(column)} is null"
        ).fetchall()
        if whole[0][0] == 0:
            found[name.removesuffix(UNPUBLISHED_SUFFIX)] = column
    return found


def mark_published(cur: duckdb.DuckDBPyConnection, snapshot_id: str) -> int:
    """Once ``snapshot_id`` is current and holds the warehouse's tables: every record of the
    keys written since a publish emptied, and ``snapshot_id`` named as the snapshot they
    count from (``written_since``), in one transaction. The number of records emptied."""
    row = cur.execute("select current_database()").fetchone()
    catalog = str(row[0]) if row else ""
    with transaction(cur):
        cur.execute("create schema if not exists meta")
        records = [n for n in _meta_tables(cur, catalog) if n.endswith(UNPUBLISHED_SUFFIX)]
        for name in records:
            cur.execute(f"delete from meta.{quote(name)}")
        cur.execute(
            f"create or replace table meta.{UNPUBLISHED_SINCE} as"
            " select cast(? as varchar) as snapshot_id, now() as published_at",
            [snapshot_id],
        )
    return len(records)


def plan_tables(
    cur: duckdb.DuckDBPyConnection,
    catalog: str,
    alias: str,
    wanted: Sequence[tuple[str, str]],
    keys: Mapping[str, Sequence[str]],
    orders: Mapping[str, Sequence[str]] | None = None,
    codes: Mapping[str, str] | None = None,
) -> list[TablePlan]:
    """How each of ``wanted`` (tables, not views) gets into the clone attached as ``alias``;
    creates the temporary tables of the updates' changed keys. Writes nothing to either
    file. A table in ``orders`` with a key is updated with the run after its sorted one
    written again (the module's docstring), and copied whole in its order when it has no
    key or its sorted run is not recorded. ``codes`` (``code_hashes``): the code each
    warehouse table was built with."""
    previous = previous_writes(cur, alias)
    written = written_since(cur, catalog, alias)
    plans: list[TablePlan] = []
    for number, (schema, table) in enumerate(wanted):
        started = time.perf_counter()
        plan = _plan_table(
            cur, catalog, alias, schema, table, number, keys, orders or {}, codes or {},
            previous, written,
        )  # fmt: skip
        plan.seconds = time.perf_counter() - started
        plans.append(plan)
    return plans


def _plan_table(
    cur: duckdb.DuckDBPyConnection,
    catalog: str,
    alias: str,
    schema: str,
    table: str,
    number: int,
    keys: Mapping[str, Sequence[str]],
    orders: Mapping[str, Sequence[str]],
    codes: Mapping[str, str],
    previous: Mapping[str, PreviousWrites],
    written: Mapping[str, str],
) -> TablePlan:
    """``plan_tables`` for one table (``number``: its place, naming its changed keys' table)."""
    wh, snap = quote(catalog), quote(alias)
    name = f"{schema}.{table}"
    source = f"{wh}.{qualified(schema, table)}"
    target = f"{snap}.{qualified(schema, table)}"
    columns = _columns(cur, catalog, schema, table)
    existing = _columns(cur, alias, schema, table)
    if not existing:
        return TablePlan(schema, table, "copied", "not in the current snapshot")
    if existing != columns:
        return TablePlan(schema, table, "copied", "its columns changed")
    key = tuple(keys.get(name, ()))
    then = previous.get(name, PreviousWrites())
    if not key:
        # counted first: a count is read from the file's metadata, a hash reads every row
        same = _count(cur, source) == _count(cur, target)
        if same and _fingerprint(cur, source) == _fingerprint(cur, target):
            return TablePlan(schema, table, "kept", "no row changed", sorted_rows=then.sorted_rows)
        why = "stored in its order" if name in orders else "has no key"
        return TablePlan(schema, table, "copied", f"it changed and {why}")
    rows = _count(cur, source)
    constant = _constant_columns(cur, source, [c for c in columns if c[0] not in key])
    names = {c for c, _ in columns}
    on = ", ".join(quote(c) for c in key)
    changed_keys = f"bvs_publish_changed_{number}"
    recorded = written.get(table)
    if recorded is not None and recorded in names:
        # the rows of the keys the builds wrote, on either side: no row is hashed
        record = f"{quote(catalog)}.meta.{quote(table + UNPUBLISHED_SUFFIX)}"
        in_record = f"{quote(recorded)} in (select {quote(recorded)} from {record})"
        cur.execute(
            f"""
            create or replace temporary table {changed_keys} as
            select {on} from {source} where {in_record}
            union
            select {on} from {target} where {in_record}
            """
        )
        complete, found_by = True, ", found by the keys the builds wrote"
    else:
        if INPUT_HASH in names and INPUT_HASH not in key:
            row_hash = quote(INPUT_HASH)
        else:
            row_hash = f"hash({', '.join(quote(c) for c, _ in columns if c not in constant)})"
        same_key = " and ".join(
            f"new_rows.{quote(c)} is not distinct from old_rows.{quote(c)}" for c in key
        )
        either = ", ".join(
            f"coalesce(new_rows.{quote(c)}, old_rows.{quote(c)}) as {quote(c)}" for c in key
        )
        cur.execute(
            f"""
            create or replace temporary table {changed_keys} as
            select {either}
            from (select {on}, {row_hash} as row_hash from {source}) as new_rows
            full outer join (select {on}, {row_hash} as row_hash from {target}) as old_rows
                on {same_key}
            where new_rows.row_hash is distinct from old_rows.row_hash
            """
        )
        code_now = codes.get(table)
        complete = row_hash != quote(INPUT_HASH) or (
            code_now is not None and code_now == then.code_hash
        )
        found_by = ""
    changed = _count(cur, changed_keys)
    since_copy = then.since_copy + changed
    plan = TablePlan(
        schema, table, "updated", f"{changed} of {rows} keys changed{found_by}", key,
        changed_keys, constant, changed, since_copy, keys_complete=complete,
        sorted_rows=then.sorted_rows,
    )  # fmt: skip
    if name in orders and then.sorted_rows is None:
        plan.method, plan.reason = "copied", "stored in its order, its sorted run not recorded"
    elif name in orders and changed and since_copy <= UPDATE_MAX_SHARE * max(rows, 1):
        # the run after the sorted one is written again with the changed keys' rows
        cur.execute(
            f"insert into {changed_keys} select {on} from {target}"
            f" where rowid >= {then.sorted_rows} except select {on} from {changed_keys}"
        )
        plan.rows_written = _count(cur, changed_keys)
        plan.reason += f", {plan.rows_written - changed} more rows of the run after the sorted one"
    if changed > UPDATE_MAX_SHARE * max(rows, 1):
        plan.method, plan.reason = "copied", f"{changed} of {rows} keys changed"
    elif since_copy > UPDATE_MAX_SHARE * max(rows, 1):
        plan.method = "copied"
        plan.reason = f"{since_copy} rows rewritten since it was copied whole, of {rows}"
    return plan


def drop_for_rewrite(
    cur: duckdb.DuckDBPyConnection,
    snap: str,
    plans: Sequence[TablePlan],
    drop_also: Sequence[tuple[str, str, str]],
) -> None:
    """Drop from the clone the tables to copy again and ``drop_also`` ((schema, name, kind):
    the views, the metadata tables, what is no longer published), then checkpoint: the
    copies then reuse the freed blocks. The checkpoint does not vacuum, as the writes'
    do not (``build_snapshot_file``): it would merge the row groups around the rows the
    clone's own updates deleted, every row in them decompressed and compressed again (at
    2 M ABNs 4 s of a realistic week's publish, against 0.02 s)."""
    # (the warehouse's connections checkpoint at every commit: the drops' commit too)
    with duckdb_setting(cur, "max_vacuum_tasks", 0):
        with transaction(cur):
            for schema, name, kind in drop_also:
                cur.execute(f"drop {kind} if exists {snap}.{qualified(schema, name)}")
            for plan in plans:
                if plan.method == "copied":
                    table = qualified(plan.schema, plan.table)
                    cur.execute(f"drop table if exists {snap}.{table}")
        cur.execute(f"checkpoint {snap}")


def write_table(cur: duckdb.DuckDBPyConnection, catalog: str, snap: str, plan: TablePlan) -> None:
    """Write one table into the clone as planned, inside the caller's transaction."""
    source = f"{quote(catalog)}.{qualified(plan.schema, plan.table)}"
    target = f"{snap}.{qualified(plan.schema, plan.table)}"
    if plan.method == "kept":
        return
    if plan.method == "updated":
        # null-safe: a key column may be null in some rows (the table's grain, as its
        # uniqueness test groups it, counts two nulls equal)
        same = " and ".join(f"t.{quote(c)} is not distinct from k.{quote(c)}" for c in plan.key)
        order = ", ".join(f"t.{quote(c)}" for c in plan.order or plan.key)
        cur.execute(f"delete from {target} as t using {plan.changed_keys} as k where {same}")
        cur.execute(
            f"insert into {target} select t.* from {source} as t "
            f"semi join {plan.changed_keys} as k on {same} order by {order}"
        )
        for column in plan.constant_columns:
            value = f"(select any_value({quote(column)}) from {source})"
            cur.execute(
                f"update {target} set {quote(column)} = {value} "
                f"where {quote(column)} is distinct from {value}"
            )
        # Complete keys of the table's grain give the warehouse's rows, and the counts
        # confirm it; else rows can differ under the same input hash (new code), so the
        # table is compared whole.
        if plan.keys_complete:
            if _count(cur, source) == _count(cur, target):
                return
        elif _fingerprint(cur, source) == _fingerprint(cur, target):
            return
        log.warning("%s: the update did not give the warehouse's table; copied whole", plan.name)
        plan.method, plan.reason = "copied", "an update did not give the warehouse's table"
        cur.execute(f"drop table {target}")
    order = f" order by {', '.join(quote(c) for c in plan.order)}" if plan.order else ""
    cur.execute(f"create table {target} as select * from {source}{order}")
    plan.rows_written = _count(cur, source)
    plan.rows_written_since_copy = 0
    plan.sorted_rows = plan.rows_written if plan.order else None


def clear_comments(cur: duckdb.DuckDBPyConnection, catalog: str, snap: str) -> None:
    """Remove the comments the clone's tables and columns carry (a kept or updated table keeps
    last week's), so that the warehouse's are the only ones written after."""
    tables = cur.execute(
        "select schema_name, table_name from duckdb_tables()"
        " where database_name = ? and comment is not null",
        [catalog],
    ).fetchall()
    columns = cur.execute(
        "select schema_name, table_name, column_name from duckdb_columns()"
        " where database_name = ? and comment is not null",
        [catalog],
    ).fetchall()
    for schema, table in tables:
        cur.execute(f"comment on table {snap}.{qualified(schema, table)} is null")
    for schema, table, column in columns:
        cur.execute(f"comment on column {snap}.{qualified(schema, table, column)} is null")


def record(cur: duckdb.DuckDBPyConnection, snap: str, plans: Sequence[TablePlan]) -> None:
    """``meta.snapshot_tables``: how each table got into this snapshot."""
    cur.execute(SNAPSHOT_TABLES_DDL.format(snap=snap))
    if plans:
        cur.executemany(
            f"insert into {snap}.meta.snapshot_tables values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                [
                    p.name, p.method, p.reason, p.rows_written, p.rows_written_since_copy,
                    p.code_hash, round(p.seconds, 3), p.sorted_rows if p.order else None,
                ]
                for p in sorted(plans, key=lambda p: p.name)
            ],  # fmt: skip
        )


def drop_changed_keys(cur: duckdb.DuckDBPyConnection, plans: Sequence[TablePlan]) -> None:
    for plan in plans:
        if plan.changed_keys:
            with contextlib.suppress(duckdb.Error):
                cur.execute(f"drop table if exists {plan.changed_keys}")
