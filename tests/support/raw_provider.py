"""A provider on 127.0.0.1 that answers on raw sockets, for tests of how the gateway reads a provider's answer.

`ScriptedOpenAI` answers like a well-behaved server; the wire-level behaviours a forwarder must survive --
a kept-alive connection closed without a word, an answer trickled a byte at a time, an endless chunked
body, a compressed body -- need the bytes under the test's control. Each connection is handed to
``serve(conn, requests)``, a function of the test, in a thread of its own; `read_request` reads one HTTP/1.1
request (head and ``Content-Length`` body) and records it in ``requests``.

    with RawProvider(lambda conn, seen: ...) as provider:
        Forwarder(Upstream(provider.base_url, "k")).forward("chat", {...}, {})
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any, Self

Serve = Callable[[socket.socket, "RawProvider"], None]


class LoopbackServer:
    """A listening socket on 127.0.0.1 whose connections are each handed to `handle` in a thread of their own;
    leaving the ``with`` block closes it and every connection it kept (``self._open``)."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def __enter__(self) -> Self:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._sock.close()
        with self._lock:
            for conn in self._open:
                conn.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn: socket.socket) -> None:
        raise NotImplementedError


class RawProvider(LoopbackServer):
    def __init__(self, serve: Serve) -> None:
        super().__init__()
        self.serve = serve
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        """(request line, headers with lower-case names, body) of every request read."""
        self.connections = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def handle(self, conn: socket.socket) -> None:
        with self._lock:
            self.connections += 1
            self._open.append(conn)
        self._run(conn)

    def _run(self, conn: socket.socket) -> None:
        try:
            self.serve(conn, self)
        except OSError:
            pass
        finally:
            conn.close()

    def read_request(self, conn: socket.socket) -> bool:
        """Read one request from `conn` into `requests`; False when the client closed the connection."""
        data = b""
        while b"\r\n\r\n" not in data:
            piece = conn.recv(65536)
            if not piece:
                return False
            data += piece
        head, body = data.split(b"\r\n\r\n", 1)
        line, *fields = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (f.split(":", 1) for f in fields)}
        while len(body) < int(headers.get("content-length", "0")):
            body += conn.recv(65536)
        with self._lock:
            self.requests.append((line, headers, body))
        return True


def response(body: bytes, status: str = "200 OK", headers: str = "Content-Type: application/json\r\n") -> bytes:
    """A complete HTTP/1.1 answer with a ``Content-Length``."""
    return f"HTTP/1.1 {status}\r\n{headers}Content-Length: {len(body)}\r\n\r\n".encode() + body
