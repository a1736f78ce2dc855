"""What the HTTP server answers before the app sees a request (pipelines/api/server.py), over
a real socket on 127.0.0.1: a request head over its size or count limit is a 431, a method
the parser does not know a 405 with `Allow`, each in the API's JSON error shape."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
import requests

from pipelines.api.server import MAX_HEAD_BYTES, MAX_HEADERS
from pipelines.settings import Settings, get_settings
from tests.api.http_server import Served, exchange, serve


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The API with no snapshot: these answers come before any route."""
    data = tmp_path_factory.mktemp("limits") / "data"
    (data / "landing").mkdir(parents=True)
    settings: Settings = get_settings(data_dir=data)
    yield from serve(settings)


def head(*lines: str, target: str = "/health", method: str = "GET") -> bytes:
    return (
        "\r\n".join([f"{method} {target} HTTP/1.1", "Host: x", "Connection: close", *lines])
        + "\r\n\r\n"
    ).encode("latin-1")


def padded(total: int) -> bytes:
    """A request head of exactly ``total`` bytes (one long header makes up the size)."""
    bare = len(head("X-Pad: "))
    return head("X-Pad: " + "a" * (total - bare))


def assert_json_error(answer, status: int, starts: str) -> None:  # type: ignore[no-untyped-def]
    assert answer.status == status, answer
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["connection"] == "close"
    message = json.loads(answer.body)["message"]
    assert json.loads(answer.body) == {"message": message}
    assert message.startswith(starts), message


def test_a_head_at_the_size_limit_is_served(server: Served) -> None:
    assert len(padded(MAX_HEAD_BYTES)) == MAX_HEAD_BYTES
    answer = exchange(server.port, padded(MAX_HEAD_BYTES))
    assert answer.status == 503, answer  # /health without a snapshot: the app answered


@pytest.mark.parametrize("pieces", [1, 7, 4096], ids=["in one write", "7 writes", "4096 writes"])
def test_a_head_one_byte_over_the_size_limit_is_a_431(server: Served, pieces: int) -> None:
    request = padded(MAX_HEAD_BYTES + 1)
    size = -(-len(request) // pieces)
    parts = [request[i : i + size] for i in range(0, len(request), size)]
    assert_json_error(exchange(server.port, *parts), 431, "request header fields too large")


def test_a_head_of_100_headers_is_served_and_101_is_a_431(server: Served) -> None:
    # Host and Connection are two of them
    lines = [f"X-H{i}: v" for i in range(MAX_HEADERS - 2)]
    assert exchange(server.port, head(*lines)).status == 503
    answer = exchange(server.port, head(*lines, "X-One-More: v"))
    assert_json_error(answer, 431, "request header fields too large")
    assert f"at most {MAX_HEADERS} header lines" in json.loads(answer.body)["message"]


def test_a_100_mb_header_is_refused_at_the_limit_not_read_whole(server: Served) -> None:
    """The head's first MAX_HEAD_BYTES are read; the 431 comes while the client still sends
    (it used to be read whole, in quadratic time: a 200 after 33 s)."""
    start = time.monotonic()
    chunk = b"a" * (1 << 20)
    request = [head(target="/health").removesuffix(b"\r\n\r\n") + b"\r\nX-Big: "]
    request += [chunk] * 100 + [b"\r\n\r\n"]
    answer = exchange(server.port, *request)
    assert_json_error(answer, 431, "request header fields too large")
    assert time.monotonic() - start < 5


def test_the_connection_after_a_431_is_a_new_one_and_served(server: Served) -> None:
    exchange(server.port, padded(MAX_HEAD_BYTES + 1))
    assert requests.get(f"{server.url}/health", timeout=10).status_code == 503


def test_a_head_over_the_limit_after_a_served_request_on_the_same_connection(
    server: Served,
) -> None:
    """A head that follows another request in the same read is counted from the end of
    that piece of the read: it may reach twice the limit, never more."""
    keep = head(target="/health").replace(b"Connection: close", b"Connection: keep-alive")
    answer = exchange(server.port, keep + padded(2 * MAX_HEAD_BYTES + 1))
    assert answer.status == 503  # the first answer; the 431 follows it
    assert b'"request header fields too large' in answer.body


@pytest.mark.parametrize("method", ["FOO", "BREW", "GETT"])
def test_a_method_the_parser_does_not_know_is_a_405_with_allow(server: Served, method: str) -> None:
    answer = exchange(server.port, head(method=method))
    assert_json_error(answer, 405, "method not allowed: the API is GET only")
    assert answer.headers["allow"] == "GET"


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"])
def test_a_method_the_parser_knows_is_a_405_with_allow(server: Served, method: str) -> None:
    answer = exchange(server.port, head(method=method, target="/api/robot/verify/53004085616"))
    assert_json_error(answer, 405, "method not allowed: the API is GET only")
    assert answer.headers["allow"] == "GET"


def test_bytes_that_are_not_http_are_a_400_not_a_405(server: Served) -> None:
    """The parser reports a TLS hello as a bad method; only a method token is a 405."""
    answer = exchange(server.port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n")
    assert_json_error(answer, 400, "malformed HTTP request")


def test_a_request_whose_body_framing_is_broken_gets_the_400_alone(server: Served) -> None:
    """The refused request itself is not answered by the app as well (its 200 or 503)."""
    request = head("Transfer-Encoding: chunked") + b"zz\r\n"
    answer = exchange(server.port, request)
    assert_json_error(answer, 400, "malformed HTTP request")
    assert answer.body.count(b"HTTP/1.1") == 0
