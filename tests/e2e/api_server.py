"""The API server the HTTP tests talk to: uvicorn in a thread on 127.0.0.1 with the protocol
`bvs serve` gives it (pipelines/api/server.py), a fake clock."""

from __future__ import annotations

import datetime as dt
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import requests
import uvicorn

from pipelines.api.app import create_app
from pipelines.api.server import HTTP_PROTOCOL
from pipelines.settings import Settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key


class Clock:
    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Api:
    url: str
    settings: Settings
    clock: Clock
    session: requests.Session

    def key(self, plan: str = "individual", name: str = "test") -> str:
        with state_store(self.settings) as engine:
            secret, _ = create_key(engine, name, plan)
        return secret

    def get(self, path: str, key: str | None = None, **params: object) -> requests.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return self.session.get(self.url + path, params=params, headers=headers, timeout=30)


def data_copy(source: Path, target: Path) -> Path:
    """The published serving folder (and the warehouse, to publish again) in a new place."""
    target.mkdir(parents=True)
    shutil.copytree(source / "serving", target / "serving")
    shutil.copy2(source / "warehouse.duckdb", target / "warehouse.duckdb")
    return target


def serve(settings: Settings, clock: Clock) -> Iterator[Api]:
    port = free_port()
    app = create_app(settings, clock=clock)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="off",
            http=HTTP_PROTOCOL,  # as `bvs serve` runs it
        )  # fmt: skip
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    with requests.Session() as session:
        yield Api(f"http://127.0.0.1:{port}", settings, clock, session)
    server.should_exit = True
    thread.join(timeout=10)
