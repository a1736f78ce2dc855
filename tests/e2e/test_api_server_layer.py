"""The API as `bvs serve` runs it (uvicorn, one worker, on 127.0.0.1): what the HTTP server
answers before the app sees a request, and a worker with no requests following a publish.

uvicorn answers a request its parser cannot read itself; `bvs serve` gives it protocol
classes whose answer is the API's `{"message"}` (pipelines/api/server.py). Each class of
malformed request below reached uvicorn's plain-text `400 Invalid HTTP request received.`
before. A HEAD request is a 405 like any method but GET; HTTP forbids a body in an answer
to HEAD, so it carries the JSON error's headers only (docs/api.md, "Errors").
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import requests
from api_server import data_copy, free_port

from pipelines.settings import Settings, get_settings
from pipelines.warehouse.snapshot import current_snapshot, publish_snapshot
from pipelines.warehouse.verify_lookup import build_verify_lookup

pytestmark = pytest.mark.slow

BVS = str(Path(sys.executable).with_name("bvs"))


@dataclass
class Served:
    url: str
    port: int
    pid: int
    settings: Settings


@pytest.fixture(scope="module")
def server(pipeline_world: dict, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = data_copy(pipeline_world["data"], tmp_path_factory.mktemp("server") / "data")
    port = free_port()
    env = {**os.environ, "BVS_DATA_DIR": str(data), "BVS_API_WORKERS": "1"}
    process = subprocess.Popen(
        [BVS, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{url}/health", timeout=10).status_code == 200:
                    break
            except requests.RequestException:  # not listening yet, or still opening
                pass
            assert process.poll() is None and time.monotonic() < deadline, "bvs serve did not start"
            time.sleep(0.2)
        settings = get_settings(data_dir=data, warehouse_path=data / "warehouse.duckdb")
        yield Served(url, port, process.pid, settings)
    finally:
        process.terminate()
        process.wait(timeout=30)


def _raw(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send bytes as they are; the status line, headers and body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


MALFORMED = {
    "bytes that are not HTTP": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
    "an unknown HTTP version": b"GET /health HTTP/7.1\r\nHost: x\r\n\r\n",
    "a control character in the path": b"GET /hea\x01lth HTTP/1.1\r\nHost: x\r\n\r\n",
    "a header line without a colon": b"GET /health HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n",
    "a space before a header's colon": b"GET /health HTTP/1.1\r\nHost : x\r\n\r\n",
    "a Content-Length that is not a number": (
        b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n"
    ),
    "two different Content-Lengths": (
        b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"
    ),
    "a chunk size that is not hexadecimal": (
        b"GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
    ),
}


@pytest.mark.parametrize("request_bytes", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_request_the_server_cannot_parse_gets_a_json_400(
    server: Served, request_bytes: bytes
) -> None:
    status, headers, body = _raw(server.port, request_bytes)
    assert status.startswith("HTTP/1.1 400"), (status, body)
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert json.loads(body) == {"message": json.loads(body)["message"]}
    assert json.loads(body)["message"].startswith("malformed HTTP request")


def test_the_server_goes_on_answering_after_malformed_requests(server: Served) -> None:
    for request_bytes in MALFORMED.values():
        _raw(server.port, request_bytes)
    assert requests.get(f"{server.url}/health", timeout=10).status_code == 200


def test_head_is_refused_with_the_json_errors_headers_and_no_body(server: Served) -> None:
    """HTTP (RFC 9110 9.3.2) forbids content in an answer to HEAD: the 405 says what it is
    in its headers, as the GET-only API's other refusals do in their body."""
    status, headers, body = _raw(
        server.port, b"HEAD /api/robot/verify/53004085616 HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    assert status.startswith("HTTP/1.1 405")
    assert headers["content-type"] == "application/json"
    assert headers["allow"] == "GET"
    assert body == b""
    as_get = requests.post(f"{server.url}/api/robot/verify/53004085616", timeout=10)
    assert as_get.status_code == 405 and "GET only" in as_get.json()["message"]


def _open_snapshots(pid: int, directory: Path) -> set[str]:
    """The snapshot files the process holds open (deleted ones included)."""
    names = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(directory)) and ".duckdb" in target:
            names.add(Path(target.removesuffix(" (deleted)")).name)
    return names


def test_a_worker_with_no_requests_switches_to_a_new_snapshot(server: Served) -> None:
    """Between requests the worker follows the pointer: after a publish it serves the new
    snapshot and lets the old file go without a request to wake it."""
    directory = server.settings.serving_dir / "snapshots"
    old = current_snapshot(server.settings)
    assert old is not None and _open_snapshots(server.pid, directory) == {old.path.name}
    writer = duckdb.connect(str(server.settings.warehouse))
    try:
        new = publish_snapshot(
            writer, server.settings, as_of=dt.date(2026, 11, 20),
            sidecars={"verify": build_verify_lookup},
        )  # fmt: skip
    finally:
        writer.close()
    deadline = time.monotonic() + 20
    while _open_snapshots(server.pid, directory) != {new.path.name}:
        assert time.monotonic() < deadline, _open_snapshots(server.pid, directory)
        time.sleep(0.1)
    health = requests.get(f"{server.url}/health", timeout=10).json()
    assert health["snapshot"]["snapshot_id"] == new.snapshot_id
