"""The forwarder's exchange (`gateway.provider_http`) reads an answer as `http.client` reads it, and sends what
`http.client` would send.

Each raw answer is written into one end of a real socket pair and read from the other, once by
`http.client.HTTPResponse` and once by `read_head` + `body_pieces`: status, body, whether the connection is
kept, and which error, must agree. Requests are compared with what `http.client.HTTPConnection` writes.
"""

from __future__ import annotations

import http.client
import socket
import threading
from typing import Any

import pytest

from reqbench.core.llm.gateway import Upstream
from reqbench.core.llm.gateway.provider_http import body_pieces, host_header, read_head, request_bytes
from reqbench.core.llm.gateway.upstream import Forwarder
from tests.support.raw_provider import RawProvider

ANSWERS = {
    "content-length": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2;ext=1\r\nlo\r\n0\r\nX-T: 1\r\n\r\n",
    "chunked in capitals": b"HTTP/1.1 201 Created\r\ntransfer-encoding: CHUNKED\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "chunked wins over a length": b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  b"2\r\nhi\r\n0\r\n\r\n",
    "until the close": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\": 1}",
    "connection close": b"HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.0": b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.0 keep-alive": b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.0 Keep-Alive header": b"HTTP/1.0 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok",
    "100 continue first": b"HTTP/1.1 100 Continue\r\nX: y\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "no content": b"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
    "a negative length": b"HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\nbody",
    "a bad length": b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\nbody",
    "a status without a reason": b"HTTP/1.1 503\r\nContent-Length: 0\r\n\r\n",
    "a short body": b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
    "a bad chunk size": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    "a negative chunk size": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
    "a chunk cut short": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nhello",
    "nothing": b"",
    "a bad status line": b"HTP/1.1 200 OK\r\n\r\n",
    "a status out of range": b"HTTP/1.1 42 Odd\r\n\r\n",
    "a status line over 64 KiB": b"HTTP/1.1 200 " + b"O" * 65536 + b"\r\n\r\n",
    "a header line over 64 KiB": b"HTTP/1.1 200 OK\r\nX: " + b"a" * 65536 + b"\r\n\r\n",
    "101 headers": b"HTTP/1.1 200 OK\r\n" + b"X: a\r\n" * 101 + b"\r\n",
    "100 headers": b"HTTP/1.1 200 OK\r\n" + b"X: a\r\n" * 99 + b"Content-Length: 1\r\n\r\n!",
    "a chunk size line over 64 KiB": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"0" * 65537,
}


def _served(raw: bytes) -> socket.socket:
    """The reading end of a socket pair whose other end wrote `raw` and closed."""
    ours, theirs = socket.socketpair()
    threading.Thread(target=lambda: (theirs.sendall(raw), theirs.close()), daemon=True).start()
    ours.settimeout(10)
    return ours


def _by_http_client(raw: bytes) -> tuple[Any, ...]:
    with _served(raw) as sock:
        response = http.client.HTTPResponse(sock, method="POST")
        try:
            response.begin()
            return response.status, response.read(), response.will_close
        except Exception as exc:  # noqa: BLE001 - which error is the comparison
            return (type(exc).__name__,)


def _by_provider_http(raw: bytes) -> tuple[Any, ...]:
    with _served(raw) as sock, sock.makefile("rb") as reader:
        try:
            head = read_head(reader)
            return head.status, b"".join(body_pieces(reader, head, 3)), head.will_close
        except Exception as exc:  # noqa: BLE001 - which error is the comparison
            return (type(exc).__name__,)


@pytest.mark.parametrize("name", ANSWERS)
def test_an_answer_is_read_as_http_client_reads_it(name: str) -> None:
    assert _by_provider_http(ANSWERS[name]) == _by_http_client(ANSWERS[name])


class _Recorder:
    def __init__(self) -> None:
        self.sent = b""

    def sendall(self, data: bytes) -> None:
        self.sent += data


@pytest.mark.parametrize(("host", "port", "default"), [("127.0.0.1", 8080, 80), ("api.example.com", 443, 443),
                                                        ("::1", 80, 80), ("bücher.example", 81, 80)])
def test_a_request_is_the_bytes_http_client_writes(host: str, port: int, default: int) -> None:
    headers = {"Accept": "*/*", "Accept-Encoding": "gzip, deflate", "Content-Type": "application/json",
               "anthropic-beta": "a,b", "Authorization": "Bearer k"}
    body = b'{"model": "m"}'
    conn = http.client.HTTPConnection(host, port)
    conn.default_port = default
    recorder = _Recorder()
    conn.sock = recorder  # type: ignore[assignment]
    conn.request("POST", "/v1/chat/completions?x=1", body=body, headers=headers)
    assert request_bytes(host_header(host, port, default), "/v1/chat/completions?x=1", body, headers) == recorder.sent


@pytest.mark.parametrize(("name", "value"), [("anthropic-beta", "a\r\nx-api-key: stolen"), ("anthropic-beta", "a\rb"),
                                             ("anthropic-beta", "a\nb"), ("bad:name", "v"), ("x", "caf\u20ac")])
def test_a_header_http_client_refuses_is_refused_and_the_call_is_a_502(name: str, value: str) -> None:
    with pytest.raises(ValueError):
        request_bytes("h", "/", b"", {name: value})

    def serve(conn: socket.socket, provider: RawProvider) -> None:
        while provider.read_request(conn):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    with RawProvider(serve) as provider:
        fwd = Forwarder(Upstream(provider.base_url, "k", attempts=1))
        status, body = fwd.forward("messages", {"model": "m"}, {name: value} if name == "anthropic-beta" else {})
        fwd.close()
    if name == "anthropic-beta":
        assert status == 502 and "upstream unreachable: ValueError" in body["error"]["message"]
        assert provider.requests == []
