"""The API as `bvs serve` runs it (uvicorn with pipelines.api.server's protocol), in a thread
on 127.0.0.1, for the tests of this folder; and a raw HTTP exchange over a socket."""

from __future__ import annotations

import datetime as dt
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import uvicorn

from pipelines.api.app import create_app
from pipelines.api.server import HTTP_PROTOCOL
from pipelines.settings import Settings


@dataclass
class Served:
    url: str
    port: int
    settings: Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(settings: Settings, clock: dt.datetime | None = None) -> Iterator[Served]:
    port = free_port()
    app = create_app(settings, clock=(lambda: clock) if clock else None)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", http=HTTP_PROTOCOL
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield Served(f"http://127.0.0.1:{port}", port, settings)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def exchange(port: int, *parts: bytes, timeout: float = 10) -> Answer:
    """Send ``parts`` as they are (stopping if the server stops reading), then read the
    answer to the end of the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        try:
            for part in parts:
                conn.sendall(part)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered before the request was whole
        answer = b""
        try:
            while chunk := conn.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return Answer(int(status.split()[1]) if status else 0, headers, body)
