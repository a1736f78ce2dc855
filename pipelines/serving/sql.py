"""``bvs sql``: a read-only SQL shell on the current serving snapshot (DuckDB, in process).

The snapshot is the one ``CURRENT`` names when the shell starts; a publish meanwhile
switches the pointer but not this shell (the file it has open stays readable: retention
unlinks, never truncates). No DuckDB CLI binary is installed (the PyPI one lags the duckdb
package and cannot read its files), so this is the analysts' shell:

* on a terminal: prompts, readline editing and history (``~/.bvs_sql_history``),
  statements ending with ``;`` (several lines allowed), results as tables, and
  ``.tables``, ``.schema [NAME]``, ``.snapshot``, ``.help``, ``.quit``;
* ``-c "SQL"`` or SQL on standard input: for scripts; every statement's result is printed
  (``--format table|csv|json``; ``json`` is one object a line) and the first error ends it
  (exit code 1).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import json
import os
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

import duckdb

from pipelines.settings import Settings

HISTORY = Path("~/.bvs_sql_history")
HELP = """\
SQL statements end with ';' (they may span lines). The marts are in schema marts; the
snapshot's metadata in meta (meta.snapshot, meta.sources, meta.source_failures,
meta.snapshot_tables).
  .tables            every table and view, with its kind
  .schema [NAME]     the columns of a table or view (NAME: marts.entities or entities);
                     without NAME, of every one
  .snapshot          which snapshot this shell reads
  .help              this text
  .quit, .exit       leave (so does Ctrl-D)
Equivalent SQL: select * from information_schema.tables / information_schema.columns."""


class ShellError(Exception):
    """A statement or a dot command that failed (its message is for the user)."""


class Shell:
    """Statements and dot commands against one read-only connection, written to ``out``."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        out: IO[str],
        *,
        fmt: str = "table",
        max_rows: int = 40,
        about: str = "",
    ) -> None:
        self.con, self.out, self.fmt, self.max_rows, self.about = con, out, fmt, max_rows, about
        self.pending: list[str] = []

    @property
    def continuing(self) -> bool:
        """A statement is started and not yet ended by ';'."""
        return bool(self.pending)

    def feed(self, line: str) -> bool:
        """One line of input; False when it asks to leave. Raises ShellError."""
        if not self.pending and line.strip().startswith("."):
            return self.dot(line.strip())
        if not self.pending and not line.strip():
            return True
        self.pending.append(line)
        text = "\n".join(self.pending)
        if text.rstrip().endswith(";"):
            self.pending = []
            self.run(text)
        return True

    def finish(self) -> None:
        """Run a last statement left without ';' (the end of a script or of -c)."""
        if self.pending and "\n".join(self.pending).strip():
            text, self.pending = "\n".join(self.pending), []
            self.run(text)

    def cancel(self) -> None:
        self.pending = []

    def run(self, text: str) -> None:
        try:
            for statement in self.con.extract_statements(text):
                self.show(str(statement.query))
        except duckdb.Error as exc:
            raise ShellError(str(exc)) from exc

    def show(self, query: str, params: list[Any] | None = None) -> None:
        """Run one statement and print its result, if it has one."""
        if self.fmt == "table":
            relation = self.con.sql(query, params=params)
            if relation is not None:
                width = shutil.get_terminal_size((120, 24)).columns
                with contextlib.redirect_stdout(self.out):
                    relation.show(max_rows=self.max_rows, max_width=width)
            self.out.flush()
            return
        cursor = self.con.execute(query, params)
        if cursor.description is None:
            return
        names = [d[0] for d in cursor.description]
        writer = csv.writer(self.out, lineterminator="\n")
        if self.fmt == "csv":
            writer.writerow(names)
        while batch := cursor.fetchmany(10_000):
            if self.fmt == "csv":
                writer.writerows(batch)
                continue
            for row in batch:
                self.out.write(json.dumps(dict(zip(names, row, strict=True)), default=str) + "\n")
        self.out.flush()

    def dot(self, command: str) -> bool:
        name, _, rest = command.partition(" ")
        argument = rest.strip().rstrip(";").strip()
        if name in (".quit", ".exit", ".q"):
            return False
        if name == ".help":
            self.out.write(HELP + "\n")
        elif name == ".tables":
            self.whole(
                "select table_schema || '.' || table_name as name, lower(table_type) as kind"
                " from information_schema.tables"
                " where table_schema not in ('information_schema', 'pg_catalog')"
                " order by table_schema, table_name"
            )
        elif name == ".schema":
            self.schema(argument)
        elif name == ".snapshot":
            self.out.write(self.about + "\n")
        else:
            raise ShellError(f"unknown command {name} (.help lists them)")
        self.out.flush()
        return True

    def schema(self, argument: str) -> None:
        where, params = "table_schema not in ('information_schema', 'pg_catalog')", []
        if argument:
            schema, _, table = argument.rpartition(".")
            where = "table_name = ?" + (" and table_schema = ?" if schema else "")
            params = [table, schema] if schema else [table]
            found = self.con.execute(
                f"select count(*) from information_schema.tables where {where}", params
            ).fetchall()
            if not found[0][0]:
                raise ShellError(f"no table or view {argument!r} (.tables lists them)")
        self.whole(
            "select table_schema || '.' || table_name as name, column_name as column,"
            " data_type as type, is_nullable as nullable"
            f" from information_schema.columns where {where}"
            " order by table_schema, table_name, ordinal_position",
            params,
        )

    def whole(self, query: str, params: list[Any] | None = None) -> None:
        """A dot command's answer, every row (a catalogue, not data)."""
        rows = self.max_rows
        self.max_rows = max(rows, 10_000)
        try:
            self.show(query, params)
        except duckdb.Error as exc:
            raise ShellError(str(exc)) from exc
        finally:
            self.max_rows = rows


def sql_shell(
    settings: Settings,
    command: str | None = None,
    *,
    fmt: str = "table",
    max_rows: int = 40,
    stdin: IO[str] | None = None,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """``bvs sql``: run ``command``, or the statements on ``stdin`` (a script), or, when
    ``stdin`` is a terminal, an interactive shell. The exit code: 0; 1 when a statement
    failed (a script stops at the first) or no snapshot is published."""
    from pipelines.warehouse.snapshot import SnapshotError, open_snapshot

    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr
    try:
        con = open_snapshot(settings)
    except SnapshotError as exc:
        err.write(f"bvs sql: {exc}\n")
        return 1
    about = _about(con)
    shell = Shell(con, out, fmt=fmt, max_rows=max_rows, about=about)
    try:
        if command is not None:
            return _script(shell, command.splitlines(), err)
        if stdin.isatty():
            return _interactive(shell, err)
        return _script(shell, stdin, err)
    finally:
        con.close()


def _about(con: duckdb.DuckDBPyConnection) -> str:
    """Which snapshot the connection reads, from the file itself (``meta.snapshot``): the
    pointer may have moved on since it was opened."""
    paths = con.execute(
        "select path from duckdb_databases() where database_name = current_database()"
    ).fetchall()
    path = paths[0] if paths else None
    try:
        rows = con.execute("select snapshot_id, as_of, built_at from meta.snapshot").fetchall()
        row = rows[0] if rows else None
    except duckdb.Error:
        row = None
    where = f"read-only: {path[0]}" if path else "read-only"
    if row is None:
        return f"the serving snapshot, {where}"
    built = row[2].astimezone(dt.UTC) if hasattr(row[2], "astimezone") else row[2]
    return f"snapshot {row[0]} (as of {row[1]}, built {built:%Y-%m-%d %H:%M} UTC), {where}"


def _script(shell: Shell, lines: Iterable[str], err: IO[str]) -> int:
    try:
        for line in lines:
            if not shell.feed(line.rstrip("\n")):
                return 0
        shell.finish()
    except ShellError as exc:
        err.write(f"bvs sql: {exc}\n")
        return 1
    return 0


def _interactive(shell: Shell, err: IO[str]) -> int:
    history = _readline()
    err.write(f"{shell.about}\n.help for help, .tables, .schema NAME; Ctrl-D to leave\n")
    try:
        while True:
            try:
                line = input("   ...> " if shell.continuing else "bvs sql> ")
            except EOFError:
                err.write("\n")
                return 0
            except KeyboardInterrupt:
                shell.cancel()
                err.write("\n")
                continue
            try:
                if not shell.feed(line):
                    return 0
            except ShellError as exc:
                err.write(f"Error: {exc}\n")
            except KeyboardInterrupt:
                shell.cancel()
                err.write("interrupted\n")
    finally:
        if history is not None:
            _save_history(history)


def _readline() -> Path | None:
    """Line editing and a history kept between sessions (owner-only, as every file)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - a Python without readline: plain input()
        return None
    path = Path(os.environ.get("BVS_SQL_HISTORY") or HISTORY).expanduser()
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    readline.set_history_length(1_000)
    return path


def _save_history(path: Path) -> None:
    import readline

    with contextlib.suppress(OSError):
        readline.write_history_file(path)
