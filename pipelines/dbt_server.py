"""A warm dbt: one process with dbt imported that forks a child for each dbt command.

Starting dbt costs about 2 s before it does anything (importing dbt-core and the DuckDB
adapter), more than the work of a new market day (docs/market.md, "Speed"). ``bvs
dbt-server`` pays that once: it imports dbt, listens on a Unix socket and, for each command,
forks a child that already has dbt in memory. The child takes the caller's arguments,
environment, working directory and standard streams, runs dbt's own command line, and
exits with dbt's exit code. It is dbt's CLI in a fresh process, minus the import: the same
output (dagster-dbt reads its JSON log lines), the same artifacts, the same exit codes.

``bvs-dbt`` is the client, and the ``dbt`` that Dagster runs (``DbtCliResource``). With
``BVS_DBT_SERVER`` naming the socket of a running server, it hands the command over and
relays signals (an interrupted run stops dbt); otherwise, or when the server is gone or
stale, it becomes the real ``dbt`` (``exec``), so a missing server costs speed, never a
run. The server is stale once dbt, its adapter or Dagster is reinstalled: it answers no
more commands and exits. A client killed outright (it cannot relay SIGKILL) closes its
connection, and the server kills the command with it.

``bvs ledger run`` is served the same way (``pipelines.entry``, the ``bvs`` command): the
server has Dagster and dagster-dbt imported too (about 5 s of a nightly ledger run,
docs/ledgers.md "Speed"), and the child runs ``python -m pipelines.cli`` with the project's
own modules imported afresh, so an edited file counts at once; a ``bvs`` of another
checkout is told to run itself. Only third-party modules that start no thread are warmed
(pandas, pyarrow and polars start theirs on import; a fork would copy none of them).

The client imports only the standard library (it starts in about 30 ms). The server forks
while it has a single thread, so a child inherits no lock held by another thread.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

SERVER_ENV = "BVS_DBT_SERVER"  # the socket's path; unset: run dbt directly
_LENGTH = struct.Struct("!Q")
_INT = struct.Struct("!i")
MAX_REQUEST_BYTES = 16 << 20  # arguments and environment; anything larger is not a client
STALE = -1  # sent instead of a child's pid: the server will not run the command
# the distributions whose reinstall makes a running server stale
FINGERPRINTED = (
    *("dbt-core", "dbt-adapters", "dbt-common", "dbt-duckdb", "duckdb"),
    *("dagster", "dagster-dbt", "dagster-shared", "sqlalchemy", "alembic"),
)
# the bvs commands the server runs: the nightly ledger run, whose own work is seconds
WARM_BVS_COMMANDS = {("ledger", "run")}
# this checkout's package: a server runs the bvs commands of its own checkout only
PACKAGE = Path(__file__).resolve().parent


def dbt_executable(name: str = "dbt") -> str:
    """This environment's ``name`` (``dbt``, or its warm client ``bvs-dbt``), else its ``dbt``.

    The one place the project finds dbt. It looks beside the running Python's environment
    (``sys.prefix``; ``sys.executable`` may be a resolved symlink out of it), not on
    ``PATH``, so ``.venv/bin/dagster dev`` from a shell that never activated the
    environment runs this environment's dbt; outside an environment, the ``dbt`` on PATH.
    """
    for candidate in dict.fromkeys((name, "dbt")):
        path = Path(sys.prefix) / "bin" / candidate
        if path.exists():
            return str(path)
    return shutil.which("dbt") or "dbt"


# ------------------------------------------------------------------------------- client


def _recv_exactly(conn: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _exec_dbt(argv: Sequence[str]) -> int:
    dbt = dbt_executable()
    os.execv(dbt, [dbt, *argv])  # noqa: S606  (this environment's dbt, the caller's arguments)
    return 1  # not reached


def hand_over(prog: str, args: list[str], **extra: str) -> int | None:
    """Run ``prog ARGS`` in the warm server, with this process's environment, folder and
    standard streams, relaying the signals that stop it: its exit code, or None when there
    is no server to run it (none named, gone, stale, or one of another checkout)."""
    path = os.environ.get(SERVER_ENV)
    if not path:
        return None
    request = {"prog": prog, "argv": args, "cwd": os.getcwd(), "env": dict(os.environ), **extra}
    payload = json.dumps(request).encode()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        socket.send_fds(conn, [_LENGTH.pack(len(payload))], [0, 1, 2])
        conn.sendall(payload)
        head = _recv_exactly(conn, _INT.size)
    except OSError:  # no server there (not started, gone), or a stream closed
        conn.close()
        return None
    with conn:
        if head is None or (pid := _INT.unpack(head)[0]) <= 0:  # STALE, or no answer
            return None
        relayed = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

        def relay(signum: int, _frame: object) -> None:  # an interrupted client interrupts it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

        for signum in relayed:
            signal.signal(signum, relay)
        tail = _recv_exactly(conn, _INT.size)
        if tail is None:
            print(f"{prog}: the process {pid} ended without an exit code", file=sys.stderr)
            return 1
        return int(_INT.unpack(tail)[0])


def client_main(argv: Sequence[str] | None = None) -> int:
    """``bvs-dbt ARGS``: run ``dbt ARGS`` in the warm server if there is one, else exec dbt.

    It dies with the run that started it (SIGTERM when its parent dies, which it relays to
    the warm dbt, and which the exec'd dbt inherits): a killed run leaves no dbt writing the
    warehouse."""
    from pipelines.processes import die_with_parent

    if argv is None:
        die_with_parent(signal.SIGTERM)
    args = list(sys.argv[1:] if argv is None else argv)
    code = hand_over("dbt", args)
    return _exec_dbt(args) if code is None else code


# ------------------------------------------------------------------------------- server


def _fingerprint() -> tuple[tuple[str, int], ...]:
    """The installed dbt distributions' metadata folders and their times: a reinstall
    changes them."""
    from importlib import metadata

    found = []
    for name in FINGERPRINTED:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        folder = Path(str(dist._path))  # type: ignore[attr-defined]  # its .dist-info folder
        with contextlib.suppress(OSError):
            found.append((str(folder), folder.stat().st_mtime_ns))
    return tuple(found)


WARM_MODULES = (  # what a dbt command of this project imports (measured: sys.modules)
    "dbt.cli.main",
    "dbt.adapters.duckdb",
    "dbt.adapters.duckdb.impl",
    "dbt.compilation",
    "dbt.parser.manifest",
    "dbt.parser.sql",
    "dbt.task.build",
    "dbt.task.run",
    "dbt.task.seed",
    "dbt.task.test",
    "dbt_common.clients.agate_helper",
    "multiprocessing.dummy",
    "multiprocessing.pool",
    "babel.dates",
    "sqlparse",
)
# what ``bvs ledger run`` imports beyond dbt and that starts no thread (pandas, pyarrow and
# polars start theirs on import: a fork would copy them without their threads)
WARM_BVS_MODULES = (
    "dagster",
    "dagster_dbt",
    "dagster._core.execution.execute_in_process",
    "dagster._core.instance.factory",
    "dagster._core.storage.sqlite_storage",
    "dagster._core.storage.runs.sqlite",
    "dagster._core.storage.event_log.sqlite",
    "dagster._core.storage.schedules.sqlite",
    "dagster._core.storage.local_compute_log_manager",
    "dagster._core.workspace.context",
    "dagster._daemon",
    "dbt.graph.selector",
    "sqlalchemy",
    "alembic",
    "structlog",
    "fsspec",
    "upath",
    "pydantic_settings",
    "watchdog.observers",
)


def _threads() -> int:
    """Threads of this process, native ones included (Linux); else Python's."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _warm(project_dir: Path | None, env: Mapping[str, str], *, bvs: bool = True) -> None:
    """Import what dbt commands import (and, with ``bvs``, what ``bvs ledger run`` imports:
    about 5 s more to start), then parse ``project_dir`` once in a scratch target folder:
    dbt generates its (de)serialisation code and JSON schemas the first time a process uses
    them (about 2 s a command, measured), and every forked child inherits them. A failed
    parse only leaves the children slower."""
    import importlib

    for name in (*WARM_MODULES, *(WARM_BVS_MODULES if bvs else ())):
        with contextlib.suppress(ImportError):  # a module a later dbt moved: only slower
            importlib.import_module(name)
    if project_dir is None:
        return
    from dbt.cli.main import dbtRunner

    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="bvs-dbt-warm-") as scratch:
        partial = project_dir / "target" / "partial_parse.msgpack"
        if partial.exists():  # read as the children's commands read theirs
            shutil.copy2(partial, scratch)
        os.environ.update(env)
        try:
            folders = ["--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
            scratch_args = ["--target-path", scratch, "--log-path", scratch, "--quiet"]
            scratch_args += ["--log-level-file", "none"]  # no log file held open
            # no static parser: it is Rust with a thread pool of its own, which a forked
            # child would inherit without its threads (the children's commands use it)
            no_threads = "--no-static-parser"
            result = dbtRunner().invoke(["parse", *folders, *scratch_args, no_threads])
        finally:
            os.environ.clear()
            os.environ.update(saved)
    if not result.success:
        print(f"dbt server: warming up with dbt parse failed: {result.exception}", file=sys.stderr)


def _handle(conn: socket.socket, fds: list[int], request: dict) -> None:
    """In a forked handler: fork the command's process, tell the client its pid, wait for it
    to exit (so whatever it held, such as the warehouse's lock, is released), send its exit
    code, exit."""
    code, started = 1, False
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # this process waits for its child
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        pid = os.fork()
        if pid == 0:
            conn.close()
            _run_command(fds, request)
        for fd in fds:  # the command has them: the client's pipes close when it exits
            os.close(fd)
        conn.sendall(_INT.pack(pid))
        started = True
        code = os.waitstatus_to_exitcode(_wait_or_follow_client(conn, pid))
        code = 128 - code if code < 0 else code  # killed by a signal: as a shell reports it
    finally:
        with contextlib.suppress(OSError):  # not started (no fork): the client runs it
            conn.sendall(_INT.pack(code if started else STALE))
        os._exit(0)


def _wait_or_follow_client(conn: socket.socket, pid: int) -> int:
    """Wait for the command's process (its wait status). A client sends nothing after its
    request and, stopped by a signal, relays it and waits for the command: a client whose
    connection closes first was killed, so the command is killed too (SIGKILL, as its
    client was), as a command run directly dies with a killed run."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux 5.3+: wait alone
        return os.waitpid(pid, 0)[1]
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(conn.fileno(), select.POLLIN | select.POLLHUP)
        while True:
            ready = {fd for fd, _events in poller.poll()}
            if pidfd in ready:
                break
            if not conn.recv(1, socket.MSG_PEEK):  # the client is gone
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                break
            poller.unregister(conn.fileno())  # bytes a client should not send: ignored
    finally:
        os.close(pidfd)
    return os.waitpid(pid, 0)[1]


def _run_command(fds: list[int], request: dict) -> None:
    """In the forked process: become the caller's ``dbt ARGS`` (or ``bvs ARGS``), then exit
    as that command does."""
    from pipelines.processes import exit_now  # before a bvs command re-imports the project

    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        prog = request.get("prog", "dbt")
        sys.argv = [prog, *request["argv"]]
        try:
            if prog == "bvs":
                _bvs(request["argv"])
                code = 0
            else:
                from dbt.cli.main import cli

                cli(args=request["argv"], prog_name="dbt")
                code = 0
        except SystemExit as exc:
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except KeyboardInterrupt:
            code = 130
    finally:
        # what a normal interpreter exit does (exit handlers: multiprocessing's clean-up,
        # logging; then the streams), without unwinding the server's own frames
        exit_now(code)


def _bvs(argv: list[str]) -> None:
    """``bvs ARGS`` with this checkout's code as it is now (``python -m pipelines.cli``): the
    project's modules the server imported for itself are imported again, so an edited file
    is read as a new command would read it; only third-party packages are kept warm. Ends
    with the command's ``SystemExit``."""
    for name in [m for m in sys.modules if m == "pipelines" or m.startswith("pipelines.")]:
        del sys.modules[name]
    runpy.run_module("pipelines.cli", run_name="__main__", alter_sys=True)


def _receive(conn: socket.socket) -> tuple[list[int], dict] | None:
    """A client's streams and request ({"prog": "dbt" or "bvs", "argv": [...], "cwd": ...,
    "env": {...}}, and a bvs command's "package"), or None (and nothing kept open) when what
    came is not one."""
    fds: list[int] = []
    try:
        head, fds, _flags, _addr = socket.recv_fds(conn, _LENGTH.size, 3)
        size = _LENGTH.unpack(head)[0] if len(head) == _LENGTH.size else MAX_REQUEST_BYTES + 1
        body = _recv_exactly(conn, size) if size <= MAX_REQUEST_BYTES else None
        request = json.loads(body) if body is not None else None
        if (
            len(fds) == 3
            and isinstance(request, dict)
            and isinstance(request.get("argv"), list)
            and isinstance(request.get("cwd"), str)
            and isinstance(request.get("env"), dict)
            and (
                request.get("prog", "dbt") == "dbt"
                or (
                    request.get("prog") == "bvs"
                    and tuple(request["argv"][:2]) in WARM_BVS_COMMANDS
                    and isinstance(request.get("package"), str)
                )
            )
        ):
            return fds, request
    except (OSError, ValueError):
        pass
    for fd in fds:
        os.close(fd)
    return None


def serve(
    path: Path,
    *,
    project_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    ready: bool = True,
    warm_bvs: bool = True,
) -> int:
    """Listen on ``path`` and run each command in a forked child until stopped or stale.
    ``project_dir``: a dbt project to warm up with (parsed once, with ``env`` added).
    ``warm_bvs``: Dagster imported too, for ``bvs ledger run`` (without it, that command
    still runs here, importing Dagster itself)."""
    _warm(project_dir, env or {}, bvs=warm_bvs)
    if _threads() > 1:
        raise RuntimeError("warming up dbt left threads running: the server cannot fork")
    fingerprint = _fingerprint()
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if ready:
        print(f"dbt server ready on {path} (pid {os.getpid()})", flush=True)
    try:
        while True:
            conn, _ = listener.accept()
            with conn:
                received = _receive(conn)
                if received is None:
                    continue
                fds, request = received
                try:
                    if _fingerprint() != fingerprint:
                        conn.sendall(_INT.pack(STALE))
                        print(
                            "dbt or Dagster was reinstalled: the dbt server stops",
                            file=sys.stderr,
                        )
                        return 0
                    if request.get("prog") == "bvs" and request["package"] != str(PACKAGE):
                        conn.sendall(_INT.pack(STALE))  # another checkout's: it runs itself
                        continue
                    sys.stdout.flush()
                    sys.stderr.flush()
                    if _threads() > 1:  # a fork would copy another thread's locks
                        raise RuntimeError("the dbt server must fork from a single thread")
                    try:
                        pid = os.fork()
                    except OSError as exc:  # no process to spare: the client runs dbt itself
                        print(f"dbt server: cannot fork: {exc}", file=sys.stderr, flush=True)
                        with contextlib.suppress(OSError):
                            conn.sendall(_INT.pack(STALE))
                        continue
                    if pid == 0:
                        listener.close()
                        _handle(conn, fds, request)
                    command = " ".join([request.get("prog", "dbt"), *request["argv"]])
                    print(f"{command} (pid {pid})", file=sys.stderr, flush=True)
                finally:
                    for fd in fds:
                        os.close(fd)
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
