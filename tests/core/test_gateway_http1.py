"""The gateway's lean HTTP/1.1 side (`gateway.http1`) reads and answers what `http.server` did, byte for byte.

Each raw exchange is sent to a running gateway and to a reference server built on the standard library's
`http.server.BaseHTTPRequestHandler` answering the same route the way the gateway's handler did before
(status, ``Server``, ``Date``, ``Content-Type``, ``Content-Length``, ``Connection: close`` when closing);
the bytes each sends back until it closes must be equal (the ``Date`` values masked). Header fields are
compared with `http.client.parse_headers` (the `email` parser) directly.
"""

from __future__ import annotations

import io
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.client import parse_headers
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from reqbench.core.llm.gateway import Gateway, RowBudget, Upstream
from reqbench.core.llm.gateway.http1 import header_fields
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body


class _Reference(BaseHTTPRequestHandler):
    """The gateway's GET/HEAD routes on `http.server`, as its handler answered them."""

    protocol_version = "HTTP/1.1"
    timeout = 10

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/") in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": []})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_HEAD(self) -> None:
        self._json(200, {})

    def _json(self, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[int, int]]:
    """(the gateway's port, the reference's port)."""
    reference = ThreadingHTTPServer(("127.0.0.1", 0), _Reference)
    threading.Thread(target=reference.serve_forever, daemon=True).start()
    with Gateway(Upstream()) as gw:
        yield int(gw.base_url.rsplit(":", 1)[1].split("/")[0]), reference.server_address[1]
    reference.shutdown()
    reference.server_close()


def exchange(port: int, raw: bytes) -> bytes:
    """Everything the server at `port` sends back to `raw` (sent whole, then the write side closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while piece := sock.recv(65536):
            received += piece
    return re.sub(rb"Date: [^\r\n]*", b"Date: -", received)


GET = b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
EXCHANGES = {
    "one call": GET,
    "three calls kept alive": GET * 3,
    "a route with a query and a slash": b"GET /v1/models/?x=1 HTTP/1.1\r\n\r\n",
    "an unknown route": b"GET /nothing HTTP/1.1\r\n\r\n",
    "a leading double slash": b"GET //v1/models HTTP/1.1\r\n\r\n",
    "HEAD": b"HEAD /v1/models HTTP/1.1\r\n\r\n",
    "Connection: close": b"GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n" + GET,
    "HTTP/1.0 closes": b"GET /v1/models HTTP/1.0\r\n\r\n" + GET,
    "HTTP/1.0 keep-alive": b"GET /v1/models HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n" + GET,
    "HTTP/0.9": b"GET /v1/models\r\n",
    "HTTP/0.9 POST": b"POST /v1/models\r\n",
    "HTTP/2.0": b"GET /v1/models HTTP/2.0\r\n\r\n",
    "a bad version": b"GET /v1/models HTTP/1.x\r\n\r\n",
    "a long version": b"GET /v1/models HTTP/1." + b"1" * 11 + b"\r\n\r\n",
    "four words": b"GET /v1/models extra HTTP/1.1\r\n\r\n",
    "an empty line": b"\r\n" + GET,
    "an unknown method": b"PUT /v1/models HTTP/1.1\r\nContent-Length: 0\r\n\r\n" + GET,
    "a request line over 64 KiB": b"GET /" + b"a" * 65536 + b" HTTP/1.1\r\n\r\n",
    "a header line over 64 KiB": b"GET /v1/models HTTP/1.1\r\nX-Long: " + b"a" * 65536 + b"\r\n\r\n",
    "101 headers": b"GET /v1/models HTTP/1.1\r\n" + b"X-A: b\r\n" * 101 + b"\r\n",
    "100 headers": b"GET /v1/models HTTP/1.1\r\n" + b"X-A: b\r\n" * 99 + b"\r\n" + GET,
    "Expect: 100-continue": b"GET /v1/models HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
    "Expect on HTTP/1.0": b"GET /v1/models HTTP/1.0\r\nExpect: 100-Continue\r\n\r\n",
    "a folded Connection header": b"GET /v1/models HTTP/1.1\r\nConnection:\r\n close\r\n\r\n" + GET,
    "close after a line that is no field": b"GET /v1/models HTTP/1.1\r\nnot a field\r\nConnection: close\r\n\r\n"
                                           + GET,
    "close after a lone CR": b"GET /v1/models HTTP/1.1\r\nX-A: b\rConnection: close\r\n\r\n" + GET,
    "bare LF line ends": b"GET /v1/models HTTP/1.1\nConnection: close\n\n",
    "a request cut short": b"GET /v1/models HTTP/1.1\r\nHost: x\r\n",
    "nothing": b"",
}


@pytest.mark.parametrize("name", EXCHANGES)
def test_the_gateway_answers_as_http_server_did(servers: tuple[int, int], name: str) -> None:
    gateway, reference = servers
    assert exchange(gateway, EXCHANGES[name]) == exchange(reference, EXCHANGES[name])


HEADER_BLOCKS = [
    b"Authorization: Bearer abc\r\nContent-Length: 10\r\n\r\n",
    b"authorization:Bearer  abc \r\nAUTHORIZATION: Bearer second\r\n\r\n",
    b"X-Folded: one\r\n two\r\n\tthree\r\nX-After: yes\r\n\r\n",
    b" leading continuation\r\nX-A: b\r\n\r\n",
    b"X-A: b\r\nno colon here\r\nX-B: lost\r\n\r\n",
    b"X-A: b\r\n: empty name\r\nX-B: kept\r\n\r\n",
    b"From someone\r\nX-A: b\r\n\r\n",
    b"X-A: b\rX-B: c\r\nX-C: d\r\n\r\n",
    b"X-A: b\r\rX-B: after a blank\r\n\r\n",
    b"X A: space in the name\r\nX-B: c\r\n\r\n",
    b"X-\xe9: high byte\r\nX-B: c\r\n\r\n",
    b"X-Latin: caf\xe9\r\n\r\n",
    b"X-Empty:\r\nX-Spaces:    \r\n\r\n",
    b"X-A: b\nX-B: c\n\n",
    b"X-A: b",
    b"\r\n",
]


@pytest.mark.parametrize("block", HEADER_BLOCKS)
def test_header_fields_are_read_as_the_email_parser_reads_them(block: bytes) -> None:
    lines = io.BytesIO(block).readlines()
    expected = {k.lower(): v for k, v in parse_headers(io.BytesIO(block)).items()}
    assert header_fields(lines) == expected


def test_a_post_with_expect_100_continue_is_told_to_go_on_and_answered() -> None:
    with ScriptedOpenAI([Reply(body=chat_body("hello"))]) as upstream, Gateway(Upstream(upstream.base_url, "k")) as gw:
        lease = gw.open_row("row", RowBudget(max_calls=5))
        body = json.dumps({"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}).encode()
        port = int(gw.base_url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer {lease.token}\r\n"
                         f"Expect: 100-continue\r\nContent-Length: {len(body)}\r\n\r\n".encode())
            assert sock.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"  # before a byte of the body
            sock.sendall(body)
            answer = b""
            while b"hello" not in answer:
                piece = sock.recv(65536)
                assert piece, answer
                answer += piece
    assert answer.startswith(b"HTTP/1.1 200 OK\r\nServer: BaseHTTP/")
