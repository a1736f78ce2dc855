"""`bvs sql`: a read-only SQL shell on the current serving snapshot (issue 36, item 3). The
documented `duckdb -readonly "data/serving/snapshots/$(cat data/serving/CURRENT)"` could not
work (CURRENT is JSON, and no DuckDB shell is installed)."""

from __future__ import annotations

import json
import os
import pty
import select
import stat
import subprocess
import time
from pathlib import Path

from pipelines.settings import Settings
from tests.published import BVS, a_run_holding_the_warehouse, bvs, publish


def test_a_query_prints_a_table_csv_or_json_lines(settings: Settings) -> None:
    publish(settings)
    table = bvs(settings, "sql", "-c", "select count(*) as companies from marts.companies")
    assert table.returncode == 0, table.stderr
    assert "companies" in table.stdout and "│" in table.stdout and " 3 " in table.stdout

    csv = bvs(
        settings,
        "sql",
        "--format",
        "csv",
        stdin="select abn, name from marts.companies\norder by abn;\n",
    )
    assert csv.stdout.splitlines() == [
        "abn,name",
        "55555555550,Company 0",
        "55555555551,Company 1",
        "55555555552,Company 2",
    ]

    lines = bvs(settings, "sql", "--format", "json", "-c", "select 1 as a; select 'x' as b")
    assert [json.loads(line) for line in lines.stdout.splitlines()] == [{"a": 1}, {"b": "x"}]


def test_errors_and_writes_end_the_script_with_exit_1(settings: Settings) -> None:
    info = publish(settings)
    wrong = bvs(settings, "sql", "-c", "select nosuch from marts.companies; select 1")
    assert wrong.returncode == 1 and "nosuch" in wrong.stderr and wrong.stdout == ""
    write = bvs(settings, "sql", "-c", "delete from marts.companies")
    assert write.returncode == 1 and "read-only" in write.stderr
    assert (
        bvs(
            settings, "sql", "-c", "select count(*) from marts.companies", "--format", "csv"
        ).stdout.splitlines()[1]
        == "3"
    )
    assert info.path.is_file()


def test_without_a_snapshot_it_says_so(settings: Settings) -> None:
    done = bvs(settings, "sql", "-c", "select 1")
    assert done.returncode == 1 and "no serving snapshot published yet" in done.stderr


def test_it_works_while_a_run_holds_the_warehouse(settings: Settings) -> None:
    publish(settings)
    with a_run_holding_the_warehouse(settings):
        done = bvs(
            settings, "sql", "--format", "csv", "-c", "select count(*) as n from marts.companies"
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["n", "3"]


def test_a_shell_reads_the_snapshot_it_started_on_while_a_new_one_is_published(
    settings: Settings,
) -> None:
    publish(settings, companies=3)
    shell = subprocess.Popen(
        [BVS, "sql", "--format", "csv"],
        env={**os.environ, "BVS_DATA_DIR": str(settings.data_dir)},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert shell.stdin is not None and shell.stdout is not None
    query = "select count(*) as n from marts.companies;\n"
    try:
        shell.stdin.write(query)
        shell.stdin.flush()
        assert [shell.stdout.readline().strip() for _ in range(2)] == ["n", "3"]

        publish(settings, companies=5)  # the pointer moves on
        shell.stdin.write(query)
        shell.stdin.flush()
        assert [shell.stdout.readline().strip() for _ in range(2)] == ["n", "3"]
    finally:
        shell.stdin.close()
        assert shell.wait(timeout=60) == 0, shell.stderr.read() if shell.stderr else ""
    assert bvs(settings, "sql", "--format", "csv", "-c", query).stdout.splitlines() == ["n", "5"]


def test_on_a_terminal_it_prompts_keeps_history_and_knows_dot_commands(
    settings: Settings, tmp_path: Path
) -> None:
    info = publish(settings)
    history = tmp_path / "history"
    primary, secondary = pty.openpty()
    shell = subprocess.Popen(
        [BVS, "sql"],
        env={**os.environ, "BVS_DATA_DIR": str(settings.data_dir), "BVS_SQL_HISTORY": str(history),
             "TERM": "dumb"},
        stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True,
    )  # fmt: skip
    os.close(secondary)
    seen, start = b"", 0

    def read_until(text: bytes, timeout: float = 60) -> None:
        """Wait for ``text`` after what the last wait found."""
        nonlocal seen, start
        end = time.monotonic() + timeout
        while text not in seen[start:]:
            assert time.monotonic() < end, seen.decode(errors="replace")
            ready, _, _ = select.select([primary], [], [], 1)
            if ready:
                try:
                    seen += os.read(primary, 65536)
                except OSError:  # the shell has ended
                    break
        assert text in seen[start:], seen.decode(errors="replace")
        start = seen.index(text, start) + len(text)

    def send(line: bytes) -> None:
        read_until(b"> ")  # a prompt
        os.write(primary, line)

    try:
        read_until(f"snapshot {info.snapshot_id}".encode())
        send(b"select 40 +\n")
        read_until(b"   ...> ")  # the statement goes on until ';'
        os.write(primary, b"2 as answer;\n")
        read_until(b"answer")
        read_until(b" 42 ")
        send(b".tables\n")
        read_until(b"marts.first_company")
        send(b".schema companies\n")
        read_until(b"VARCHAR")
        send(b"select nosuch;\n")
        read_until(b"Error: Binder Error")
        send(b"\x04")  # Ctrl-D
        assert shell.wait(timeout=60) == 0
    finally:
        if shell.poll() is None:
            shell.kill()
        os.close(primary)
    assert "2 as answer;" in history.read_text()
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
