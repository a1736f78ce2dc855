"""The HTTP server's own answers in the API's error shape (CONTRACT "API": ``{"message"}``).

A request uvicorn's parser cannot read (bytes that are not HTTP, a malformed request line
or header, a bad Content-Length or chunk) never reaches the app: uvicorn answers it itself,
``400 Invalid HTTP request received.`` in plain text, and closes the connection. The
protocol class here is uvicorn's httptools protocol (httptools is a dependency, and
uvicorn's default when installed) with that one answer in JSON; ``bvs serve`` runs uvicorn
with ``http=HTTP_PROTOCOL``. What the server layer still answers outside the contract is
listed in docs/api.md ("Errors").
"""

from __future__ import annotations

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MALFORMED = "malformed HTTP request: it could not be parsed (request line, headers or body framing)"
HTTP_PROTOCOL = "pipelines.api.server:JsonErrorsHttpToolsProtocol"


class JsonErrorsHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, its parse-error answer in JSON."""

    def send_400_response(self, msg: str) -> None:
        body = orjson.dumps({"message": MALFORMED})
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        head += [
            name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers
        ]
        head += [
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n",
            b"\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()
