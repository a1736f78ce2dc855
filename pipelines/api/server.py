"""The HTTP server's own answers, in the API's error shape (CONTRACT "API": ``{"message"}``).

``bvs serve`` runs uvicorn with ``http=HTTP_PROTOCOL``: uvicorn's httptools protocol
(httptools is a dependency, and uvicorn's default when installed) with these changes, each
answered before the app sees the request, as JSON, and the connection then closed:

* a request uvicorn's parser cannot read (bytes that are not HTTP, a malformed request line
  or header, a bad Content-Length or chunk): 400, where uvicorn answers
  ``400 Invalid HTTP request received.`` in plain text;
* a method the parser does not know (``FOO /health``): 405 with ``Allow: GET``, as the app
  answers a method it knows (POST, HEAD...) on its paths;
* a request head (request line and headers) over ``MAX_HEAD_BYTES`` bytes, or with more than
  ``MAX_HEADERS`` header lines: 431. The bytes of a head are counted as they arrive, and
  the parser is never given more than ``MAX_HEAD_BYTES`` of one: httptools gathers a header
  that arrives in pieces by concatenating them, so without the limit a 100 MB header was
  read whole, in quadratic time, and then answered. (A head that arrives behind another
  request in the same read is counted from the end of the parser's piece that held the end
  of that request: it may reach twice the limit, never more.)

After such an answer the server stops reading requests from the connection but goes on
draining what the client still sends for up to ``LINGER_SECONDS`` (at most
``LINGER_BYTES``), so a client still sending its oversized head reads the 431 rather than a
connection reset. docs/api.md ("Errors", "Limits") lists these answers.
"""

from __future__ import annotations

import asyncio
import re

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

MALFORMED = "malformed HTTP request: it could not be parsed (request line, headers or body framing)"
METHOD_NOT_ALLOWED = "method not allowed: the API is GET only"
HTTP_PROTOCOL = "pipelines.api.server:ApiHttpProtocol"

MAX_HEAD_BYTES = 32 * 1024  # the request line and every header line, with their CRLFs
MAX_HEADERS = 100
LINGER_SECONDS = 2.0
LINGER_BYTES = 256 * 1024 * 1024

# a request line's start: an HTTP token (RFC 9110 5.6.2) and a space, after any empty lines
_METHOD = re.compile(rb"(?:\r?\n)*[!#$%&'*+.^_`|~0-9A-Za-z-]+ ")
_START = 64  # bytes of a request head kept to tell an unknown method from bytes not HTTP

HEAD_TOO_LARGE = (
    "request header fields too large: the request line and headers may take at most"
    f" {MAX_HEAD_BYTES} bytes"
)
TOO_MANY_HEADERS = f"request header fields too large: at most {MAX_HEADERS} header lines"


class HeadRefused(Exception):
    """A request head over a limit: raised while it is read, answered with a 431."""


class ApiHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the API's limits on a request head, a 405 for a
    method the parser does not know, and its own answers in JSON."""

    # bytes of the current request head read so far; None while a body is read
    _head_bytes: int | None = 0
    _head_start = b""  # its first bytes
    _headers = 0
    _draining = 0  # bytes drained after a refusal; -1: not refused
    # a refusal waiting for the answers to the requests before it on the connection
    _pending: tuple[int, str, list[tuple[bytes, bytes]] | None] | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_bytes, self._headers, self._draining, self._pending = 0, 0, -1, None
        self._head_start = b""

    def data_received(self, data: bytes) -> None:
        if self._draining >= 0:  # refused: what the client still sends is dropped
            self._draining += len(data)
            if self._draining > LINGER_BYTES:
                self.transport.close()
            return
        self._unset_keepalive_if_required()
        try:
            self._feed(memoryview(data))
        except HeadRefused as exc:
            self._refuse(431, str(exc))
        except httptools.HttpParserCallbackError as exc:
            if isinstance(exc.__context__, HeadRefused):
                self._refuse(431, str(exc.__context__))
            else:
                self._refuse(400, MALFORMED)
        except httptools.HttpParserInvalidMethodError:
            if _METHOD.match(self._head_start):  # a method, one the parser does not know
                self._refuse(405, METHOD_NOT_ALLOWED, [(b"allow", b"GET")])
            else:  # not a request line at all
                self._refuse(400, MALFORMED)
        except httptools.HttpParserError:
            self._refuse(400, MALFORMED)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()

    def _feed(self, data: memoryview) -> None:
        """Give the parser at most what is left of the head limit at a time (and a body in
        pieces of that size), so a head is counted from its first byte whatever the reads."""
        while data:
            if self._head_bytes is None:
                room = MAX_HEAD_BYTES
            else:
                room = MAX_HEAD_BYTES - self._head_bytes
                if room <= 0:
                    raise HeadRefused(HEAD_TOO_LARGE)
            piece, data = data[:room], data[room:]
            if self._head_bytes is not None:
                if self._head_bytes < _START:
                    self._head_start += bytes(piece[: _START - self._head_bytes])
                self._head_bytes += len(piece)
            self.parser.feed_data(piece)

    def on_message_begin(self) -> None:
        self._headers = 0
        super().on_message_begin()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers += 1
        if self._headers > MAX_HEADERS:
            raise HeadRefused(TOO_MANY_HEADERS)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._head_bytes = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._head_bytes, self._head_start = 0, b""
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, MALFORMED)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._pending is None or not self.cycle.response_complete:
            return
        if self.transport.is_closing():  # the client's last request asked to close
            self._pending = None
        else:
            self._answer(*self._pending)

    def _refuse(
        self, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
    ) -> None:
        """Answer, then stop reading requests. A refused head waits for the answers to the
        requests before it on the connection (pipelined); a request refused in its body
        (its framing) is answered at once, and the app's answer to it is dropped."""
        self._draining = 0
        in_flight = self.cycle is not None and not self.cycle.response_complete
        if in_flight and self._head_bytes is not None:
            self._pending = (status, message, headers)
            return
        if in_flight:
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self._answer(status, message, headers)

    def _answer(self, status: int, message: str, headers: list[tuple[bytes, bytes]] | None) -> None:
        self._pending = None
        self._unset_keepalive_if_required()
        body = orjson.dumps({"message": message})
        head = [STATUS_LINE[status]]
        head += [
            name + b": " + value + b"\r\n"
            for name, value in [*self.server_state.default_headers, *(headers or [])]
        ]
        head += [
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n",
            b"\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.close)
        else:
            self.transport.close()
