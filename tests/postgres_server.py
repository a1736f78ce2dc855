"""A throwaway PostgreSQL server for tests and benchmarks: 127.0.0.1, a free port, a
temporary data folder, trust authentication, fsync off. `.ci/run` installs PostgreSQL where
it is missing; `postgres_bin_dir()` is None where no binaries exist (the tests then skip).

PostgreSQL refuses to run as root: then the server runs as the `postgres` user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def postgres_bin_dir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class PostgresServer:
    port: int
    psql: str
    data: Path

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` (the psycopg driver)."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def psql_run(self, *args: str, database: str = "postgres") -> str:
        result = subprocess.run(
            [self.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
            + ["-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database]
            + list(args),
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PGCONNECT_TIMEOUT": "10"},
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def run_sql_file(self, sql_file: Path) -> str:
        return self.psql_run("-f", str(sql_file))

    def create_database(self, name: str) -> str:
        """A new empty database (``name``: letters, digits, _); returns its URL."""
        assert name.replace("_", "").isalnum(), name
        self.psql_run("-c", f"create database {name}")
        return self.url(name)


@contextmanager
def postgres_server(*options: str, fsync: bool = False) -> Iterator[PostgresServer]:
    """A PostgreSQL server for the length of the block; ``options``: more ``-c name=value``
    settings for the server; ``fsync``: durable commits as a production server makes them
    (benchmarks), off for tests."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL binaries (initdb, pg_ctl) not found")
    psql = shutil.which("psql") or str(bin_dir / "psql")
    as_user: list[str] = []
    owner: pwd.struct_passwd | None = None
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        as_user = ["runuser", "-u", "postgres", "--"]

    root = Path(tempfile.mkdtemp(prefix="bvs-pg-"))
    root.chmod(0o755)
    data, sockets, log = root / "data", root / "sockets", root / "server.log"
    for folder in (data, sockets):
        folder.mkdir()
    log.touch()
    if owner is not None:
        for path in (data, sockets, log):
            os.chown(path, owner.pw_uid, owner.pw_gid)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*as_user, *args], capture_output=True, text=True, check=False)

    try:
        init = run(
            str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
            "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        assert init.returncode == 0, init.stderr
        started = None
        port = 0
        extra = "".join(f" -c {option}" for option in options)
        for _ in range(5):  # another process may take the free port before the server does
            port = _free_port()
            settings = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1"
            settings += "" if fsync else " -c fsync=off"
            started = run(
                str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o",
                settings + extra, "-w", "-t", "60", "start",
            )  # fmt: skip
            if started.returncode == 0:
                break
            time.sleep(0.2)
        assert started is not None and started.returncode == 0, log.read_text()
        try:
            yield PostgresServer(port=port, psql=psql, data=data)
        finally:
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)
