"""Benchmark: one request with a huge header against `bvs serve` (one worker): the answer,
its time, and the worker's memory (resident and peak resident, from /proc) before and after.

The header's cost comes before the app (no snapshot is needed: /health answers 503 without
one). ``--http httptools`` runs uvicorn's own httptools protocol, the one `bvs serve` used
before the head limits (pipelines/api/server.py), for the comparison.

    python tests/benchmarks/bench_header.py --megabytes 100
    python tests/benchmarks/bench_header.py --megabytes 100 --http httptools
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from pipelines.api.server import HTTP_PROTOCOL


def memory(pid: int) -> tuple[int, int]:
    """Resident and peak resident memory of ``pid``, in MB."""
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(status["VmRSS"].split()[0]) // 1024, int(status["VmHWM"].split()[0]) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--http", default=HTTP_PROTOCOL, help="uvicorn's http= protocol")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as data:
        (Path(data) / "landing").mkdir()
        code = (
            "import uvicorn; uvicorn.run('pipelines.api.app:create_app', factory=True,"
            f" host='127.0.0.1', port={port}, workers=1, log_level='critical',"
            f" http={args.http!r})"
        )
        server = subprocess.Popen(
            [sys.executable, "-c", code], env={**os.environ, "BVS_DATA_DIR": data}
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    requests.get(f"http://127.0.0.1:{port}/health", timeout=5)
                    break
                except requests.RequestException:
                    assert time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.2)
            before = memory(server.pid)
            started = time.monotonic()
            answer = b""
            with socket.create_connection(("127.0.0.1", port), timeout=600) as conn:
                try:
                    conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ")
                    chunk = b"a" * (1 << 20)
                    for _ in range(args.megabytes):
                        conn.sendall(chunk)
                    conn.sendall(b"\r\n\r\n")
                except OSError:
                    pass  # the server answered before the request was whole
                while piece := conn.recv(65536):
                    answer += piece
            seconds = time.monotonic() - started
            after = memory(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"protocol {args.http}, a {args.megabytes} MB header")
    status = answer.partition(b"\r\n")[0].decode()
    print(f"answer: {status} after {seconds:.2f} s")
    print(f"worker memory MB (resident, peak): before {before}, after {after}")


if __name__ == "__main__":
    main()
