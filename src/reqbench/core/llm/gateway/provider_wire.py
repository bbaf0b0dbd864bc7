"""The gateway's HTTP/1.1 connections to the provider: kept alive, shared by every gateway thread, bounded.

One `ProviderWire` per gateway asks one provider (scheme, host, port of the upstream base URL) over its own
sockets (TLS by the shared context), each exchange spoken by `provider_http` (`http.client`'s rules without
its cost): a call takes an idle kept-alive connection (or opens one), sends one POST, reads the answer and
gives the connection back. The idle connections are a stack under one lock held only
to push or pop -- no scan of every connection per call, the cost that made httpx's pool the gateway's
bottleneck -- so there is one connection per call in flight however many rows call at once, and a connection
idle for `KEEPALIVE_IDLE` seconds is closed rather than reused. A kept-alive connection the provider closed
meanwhile is noticed before it is used (it reads as ready: the end of the stream) and, if it closes between
that look and the request, the request is sent again once on a fresh connection.

What a provider can make the gateway hold is bounded (a `WireError` says which bound): one answer's bytes
(`max_answer`, counted after decompression) and one attempt's time (`timeout`: one deadline for the request,
status line, headers and body, not a limit per read, so a provider trickling a byte a second cannot hold a
call past it; `_reap` shuts the socket down at the deadline; connecting has its own ``min(30 s, timeout)``).
Redirects are never followed: a 3xx is an answer like any other, and the key goes to no other host.
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass
from io import BufferedReader
from urllib.parse import urlsplit

from reqbench.core.llm.gateway.provider_http import Head, body_pieces, host_header, read_head, request_bytes

KEEPALIVE_IDLE = 5.0
"""Seconds an idle connection is kept for the next call (as httpx's ``keepalive_expiry`` was)."""
READ_SIZE = 64 * 1024
REAP_EVERY = 0.25
"""Seconds between two looks for exchanges past their deadline (how late a deadline can cut)."""
STALE_ERRORS = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)
"""What a kept-alive connection the provider closed raises when a request is sent on it."""


class WireError(Exception):
    """The exchange failed before a complete answer arrived; `kind` names how (said in the error body)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes


class _Connection:
    """One connection to the provider: its socket (plain or TLS). Hashable by identity."""

    __slots__ = ("sock",)

    def __init__(self, sock: socket.socket) -> None:
        self.sock: socket.socket | None = sock

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()


@dataclass
class _Idle:
    conn: _Connection
    since: float


class ProviderWire:
    """Kept-alive connections to the origin of `base_url` (module docstring). Thread-safe."""

    def __init__(self, base_url: str, *, timeout: float, max_answer: int, tls: ssl.SSLContext | None) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise WireError("UnsupportedProtocol", f"upstream base URL {base_url!r} is not http(s)://host")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.host_header = host_header(self.host, self.port, 443 if self.https else 80)
        self.timeout = timeout
        self.connect_timeout = min(30.0, timeout)
        self.max_answer = max_answer
        self._tls = tls
        self._idle: deque[_Idle] = deque()
        self._flight: dict[_Connection, float] = {}
        """Connections in an exchange -> the moment it must be over (`_reap` cuts it there)."""
        self._expired: set[_Connection] = set()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._reaper: threading.Thread | None = None

    def post(self, target: str, body: bytes, headers: dict[str, str]) -> Answer:
        """Send one POST of `body` to `target` (path and query) and read its whole answer."""
        deadline = time.monotonic() + self.timeout
        try:
            request = request_bytes(self.host_header, target, body, headers)
        except ValueError as exc:  # a header `http.client` would not send either (a line break in a value)
            raise WireError(type(exc).__name__, str(exc)) from exc
        conn, reused = self._take()
        reader: BufferedReader | None = None
        try:
            try:
                reader, head = self._exchange(conn, request, deadline)
            except STALE_ERRORS:
                if not reused or self._over(conn):
                    raise
                self._drop(conn)  # the provider closed it while it was idle: once more, on a fresh one
                conn = self._open()
                reader, head = self._exchange(conn, request, deadline)
            answer = Answer(head.status, self._read(reader, head))
            if self._over(conn):  # cut at its deadline: what was read may be a fragment
                raise WireError("Timeout", f"no complete answer within {self.timeout:g} s")
        except WireError:
            self._drop(conn)
            raise
        except zlib.error as exc:
            self._drop(conn)
            raise WireError("DecodingError", str(exc)) from exc
        except (OSError, http.client.HTTPException, ValueError) as exc:
            expired = self._over(conn)
            self._drop(conn)
            if expired:
                raise WireError("Timeout", f"no complete answer within {self.timeout:g} s") from exc
            raise WireError(type(exc).__name__, str(exc)) from exc
        finally:
            if reader is not None:
                reader.close()
        self._give_back(conn, head)
        return answer

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            idle, self._idle = list(self._idle), deque()
        for item in idle:
            item.conn.close()

    # -- one exchange --------------------------------------------------------------------------------

    def _exchange(self, conn: _Connection, request: bytes, deadline: float) -> tuple[BufferedReader, Head]:
        """Send `request` on `conn` and read the answer's head: (the reader of the rest, the head)."""
        with self._lock:
            self._flight[conn] = deadline
        sock = conn.sock
        if sock is None:
            raise ConnectionResetError("the connection was closed")
        sock.sendall(request)
        reader = sock.makefile("rb")
        try:
            return reader, read_head(reader)
        except BaseException:
            reader.close()
            raise

    def _read(self, reader: BufferedReader, head: Head) -> bytes:
        """The answer's body, decompressed, refused past `max_answer` bytes."""
        encoding = head.encoding
        inflate = None
        if encoding in ("gzip", "x-gzip", "deflate"):
            inflate = zlib.decompressobj(31 if "gzip" in encoding else 15)
        elif encoding != "identity":
            raise WireError("DecodingError", f"unsupported content-encoding {encoding!r}")
        if inflate is None and head.length is not None and head.length > self.max_answer:
            raise WireError("AnswerTooLarge", f"the provider announced {head.length} bytes, over the "
                            f"gateway's bound of {self.max_answer}")
        parts: list[bytes] = []
        size = 0
        for chunk in body_pieces(reader, head, READ_SIZE):
            if inflate is not None:
                chunk = inflate.decompress(chunk, self.max_answer + 1 - size)
                size += len(inflate.unconsumed_tail)  # output capped: what is left is over the bound
            size += len(chunk)
            if size > self.max_answer:
                raise WireError("AnswerTooLarge", f"the provider's answer passed the gateway's bound of "
                                f"{self.max_answer} bytes")
            parts.append(chunk)
        if inflate is not None:
            parts.append(inflate.flush())
            if size + len(parts[-1]) > self.max_answer:
                raise WireError("AnswerTooLarge", f"the provider's answer passed the gateway's bound of "
                                f"{self.max_answer} bytes")
        return b"".join(parts)

    # -- connections -----------------------------------------------------------------------------------

    def _take(self) -> tuple[_Connection, bool]:
        """(connection, whether it is a kept-alive one): the most recently used idle one still open."""
        now = time.monotonic()
        while True:
            with self._lock:
                while self._idle and now - self._idle[0].since > KEEPALIVE_IDLE:
                    self._idle.popleft().conn.close()  # the oldest first; left unused too long
                item = self._idle.pop() if self._idle else None
            if item is None:
                return self._open(), False
            if not _closed_by_peer(item.conn):
                return item.conn, True
            item.conn.close()

    def _give_back(self, conn: _Connection, head: Head) -> None:
        with self._lock:
            self._flight.pop(conn, None)
            cut = conn in self._expired  # answered just as its deadline passed: not used again
            self._expired.discard(conn)
            if not cut and conn.sock is not None and not head.will_close and not self._closing.is_set():
                self._idle.append(_Idle(conn, time.monotonic()))
                return
        conn.close()

    def _drop(self, conn: _Connection) -> None:
        with self._lock:
            self._flight.pop(conn, None)
            self._expired.discard(conn)
        conn.close()

    def _over(self, conn: _Connection) -> bool:
        with self._lock:
            return conn in self._expired

    def _open(self) -> _Connection:
        """A new connection (TCP_NODELAY; TLS with the shared context, the host's name checked)."""
        self._start_reaper()
        sock: socket.socket | None = None
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.https:
                tls = self._tls if self._tls is not None else ssl.create_default_context()
                sock = tls.wrap_socket(sock, server_hostname=self.host)
        except OSError as exc:
            if sock is not None:
                sock.close()
            raise WireError(type(exc).__name__, str(exc)) from exc
        sock.settimeout(self.timeout)  # per read or write; `_reap` bounds the whole exchange
        return _Connection(sock)

    def _start_reaper(self) -> None:
        with self._lock:
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap, name="reqbench-gateway-deadlines", daemon=True)
                self._reaper.start()

    def _reap(self) -> None:
        """Cut every exchange still going at its deadline (a socket shut down wakes the thread reading it)."""
        while not self._closing.wait(REAP_EVERY):
            now = time.monotonic()
            with self._lock:
                late = [conn for conn, deadline in self._flight.items() if deadline <= now]
                for conn in late:
                    del self._flight[conn]
                    self._expired.add(conn)
            for conn in late:
                sock = conn.sock
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


def _closed_by_peer(conn: _Connection) -> bool:
    """Whether an idle connection's socket is readable: the provider closed it (or wrote out of turn)."""
    sock = conn.sock
    if sock is None:
        return True
    poller = select.poll()
    poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(0))
