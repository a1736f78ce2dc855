"""The site fetch against servers that close connections the way real ones do: without
saying so, and late (a busy machine), or before answering at all."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipelines.live import web
from pipelines.live.guard import Guard


class Lingering(BaseHTTPRequestHandler):
    """Answers a redirect to itself, HTTP/1.1 without ``Connection: close``, and closes the
    connection only a moment later: urllib3 pools it as alive meanwhile."""

    protocol_version = "HTTP/1.1"
    seen: list[int]
    drop: bool = False

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append(self.client_address[1])
        if self.drop:
            self.close_connection = True
            return  # closes without a status line
        self.send_response(302)
        self.send_header("Location", "/again")
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.wfile.flush()
        time.sleep(0.05)


@pytest.fixture
def server() -> Iterator[tuple[ThreadingHTTPServer, type[Lingering]]]:
    handler = type("Handler", (Lingering,), {"seen": []})
    s = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    s.daemon_threads = True
    threading.Thread(target=s.serve_forever, daemon=True).start()
    yield s, handler
    s.shutdown()
    s.server_close()


def fetch(port: int) -> web.SiteFindings:
    # nothing listens on port 1: the HTTPS attempt fails at once and HTTP is tried
    return web.fetch("loop.example", lambda _: ["127.0.0.1"], timeout=5, guard=Guard(True),
                     https_port=1, http_port=port)  # fmt: skip


def test_a_redirect_chain_outlives_connections_closed_without_notice(
    server: tuple[ThreadingHTTPServer, type[Lingering]],
) -> None:
    s, handler = server
    found = fetch(s.server_address[1])
    assert (found.redirects, found.status) == (web.MAX_REDIRECTS, 302)
    assert found.error == "https: ConnectionError"  # nothing listens there
    # every hop on a connection of its own, none written to a closed one and lost
    assert len(handler.seen) == web.MAX_REDIRECTS + 1


def test_a_server_that_drops_every_request_is_asked_twice_then_reported(
    server: tuple[ThreadingHTTPServer, type[Lingering]],
) -> None:
    s, handler = server
    handler.drop = True
    found = fetch(s.server_address[1])
    assert found.live is False and found.redirects == 0
    assert found.error == "https: ConnectionError; http: ConnectionError"
    assert len(handler.seen) == 2


@pytest.mark.parametrize(
    ("content_type", "encoding"),
    [
        (None, "utf-8"),
        ("text/html", "ISO-8859-1"),  # HTTP/1.1's default for text/*
        ("text/html; charset=UTF-8", "utf-8"),
        ('text/html; charset="windows-1252"', "windows-1252"),
        ("application/xhtml+xml", "utf-8"),
    ],
)
def test_a_page_is_read_in_the_charset_its_answer_names(
    content_type: str | None, encoding: str
) -> None:
    assert web.charset(content_type) == encoding
