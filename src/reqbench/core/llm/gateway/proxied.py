"""The forwarder's path through httpx: taken only when the environment names a proxy or the URL has credentials.

httpx decides the proxy exactly as it always did (``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``, ``NO_PROXY``,
credentials in the base URL); the gateway adds the bounds its own connections (`provider_wire`) hold:

- **one deadline per attempt** (`Upstream.timeout`: connect, proxy tunnel, TLS, request, status line,
  headers and body together), not httpx's limit per read or write -- a provider, or a proxy, trickling a byte
  a second cannot hold a call past it. Every network operation of the attempt goes through `_DeadlineStream`
  (httpcore's network backend, wrapped): its timeout is what is left of the deadline, and `_Reaper` shuts the
  socket down at the deadline for an operation that loops inside httpcore (a write, a TLS handshake);
- **one answer's bytes** (`Upstream.max_answer`, after decompression); over it a 502, not retried.

Calls are spread over `UPSTREAM_POOLS` httpx clients, a gateway thread keeping to one; each pools one
connection per call in flight, kept alive for `KEEPALIVE_IDLE` seconds (httpx's default cap of 100 made the
101st concurrent call wait for a free connection; one pool of 500 was scanned under one lock per request).
"""

from __future__ import annotations

import itertools
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from reqbench.core.llm.gateway.provider_wire import KEEPALIVE_IDLE, REAP_EVERY, Answer, WireError

if TYPE_CHECKING:
    import httpcore
    import httpx

    from reqbench.core.llm.gateway.upstream import Upstream

UPSTREAM_POOLS = 32
"""httpx clients the proxied path spreads calls over, a gateway thread keeping to one."""
T = TypeVar("T")


class HttpxPath:
    """Calls through httpx clients, each attempt bounded by `Upstream.timeout` and `Upstream.max_answer`."""

    def __init__(self, up: Upstream, tls: ssl.SSLContext) -> None:
        import httpx

        self.httpx = httpx
        self.up = up
        self._tls = tls
        self._pools: list[httpx.Client | None] = [None] * UPSTREAM_POOLS
        self._turn = itertools.count()
        self._mine = threading.local()
        self._lock = threading.Lock()
        self._backend = _DeadlineBackend()

    def post(self, url: str, payload: bytes, headers: dict[str, str]) -> Answer:
        deadline = time.monotonic() + self.up.timeout
        client = self._client()
        self._backend.deadlines.at = deadline
        try:
            with client.stream("POST", url, content=payload, headers=headers) as resp:
                parts: list[bytes] = []
                size = 0
                for chunk in resp.iter_bytes():
                    size += len(chunk)
                    if size > self.up.max_answer:
                        raise WireError("AnswerTooLarge", f"the provider's answer passed the gateway's bound "
                                        f"of {self.up.max_answer} bytes")
                    parts.append(chunk)
                answer = Answer(resp.status_code, b"".join(parts))
            if time.monotonic() >= deadline:  # cut at its deadline: what was read may be a fragment
                raise WireError("Timeout", f"no complete answer within {self.up.timeout:g} s")
            return answer
        except self.httpx.HTTPError as exc:
            if time.monotonic() >= deadline:
                raise WireError("Timeout", f"no complete answer within {self.up.timeout:g} s") from exc
            raise WireError(type(exc).__name__, str(exc)) from exc
        finally:
            self._backend.deadlines.at = None

    def _client(self) -> httpx.Client:
        pool = getattr(self._mine, "pool", None)
        if pool is None:
            pool = self._mine.pool = next(self._turn) % UPSTREAM_POOLS
        with self._lock:
            http = self._pools[pool]
            if http is None:
                http = self._pools[pool] = self.httpx.Client(
                    timeout=self.httpx.Timeout(self.up.timeout, connect=min(30.0, self.up.timeout)),
                    limits=self.httpx.Limits(max_connections=None, max_keepalive_connections=None,
                                             keepalive_expiry=KEEPALIVE_IDLE), verify=self._tls)
                _bound_by(http, self._backend)
            return http

    def close(self) -> None:
        with self._lock:
            for http in self._pools:
                if http is not None:
                    http.close()
            self._pools = [None] * UPSTREAM_POOLS
        self._backend.reaper.stop()


def _bound_by(client: httpx.Client, backend: _DeadlineBackend) -> None:
    """Make every connection `client` opens -- direct, through an HTTP(S) or SOCKS proxy -- go through
    `backend`. httpx builds its transports (one per proxy the environment names) without a way to pass a
    network backend, so it is set on each transport's httpcore pool; a transport of another shape fails
    here, before any call is sent unbounded."""
    import httpcore

    for transport in [client._transport, *client._mounts.values()]:
        if transport is None:
            continue
        pool = getattr(transport, "_pool", None)
        if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
            raise RuntimeError(f"reqbench gateway: cannot bound the time of httpx transport {transport!r}")
        pool._network_backend = cast("httpcore.NetworkBackend", backend)  # the same methods, duck-typed


class _Reaper:
    """Shuts down the socket of every network operation still going at its deadline (one thread, started
    at the first operation with a deadline; a look every `REAP_EVERY` seconds)."""

    def __init__(self) -> None:
        self._going: dict[int, tuple[float, socket.socket]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: float, sock: socket.socket) -> int:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="reqbench-gateway-proxied-deadlines",
                                                daemon=True)
                self._thread.start()
            key = next(self._ids)
            self._going[key] = (deadline, sock)
            return key

    def done(self, key: int) -> None:
        with self._lock:
            self._going.pop(key, None)

    def stop(self) -> None:
        self._stopping.set()

    def _run(self) -> None:
        while not self._stopping.wait(REAP_EVERY):
            now = time.monotonic()
            with self._lock:
                late = [key for key, (deadline, _) in self._going.items() if deadline <= now]
                socks = [self._going.pop(key)[1] for key in late]
            for sock in socks:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class _Deadlines(threading.local):
    at: float | None = None
    """The monotonic time the calling thread's attempt must be over by, or None (no attempt going)."""


class _DeadlineBackend:
    """httpcore's synchronous network backend, every stream it opens bound by the calling thread's deadline."""

    def __init__(self) -> None:
        import httpcore

        self._inner = httpcore.SyncBackend()
        self.deadlines = _Deadlines()
        self.reaper = _Reaper()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> _DeadlineStream:
        inner = self._inner.connect_tcp(host, port, _left(self.deadlines.at, timeout, "ConnectTimeout"),
                                        local_address, socket_options)
        return _DeadlineStream(inner, self)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> _DeadlineStream:
        inner = self._inner.connect_unix_socket(path, _left(self.deadlines.at, timeout, "ConnectTimeout"),
                                                socket_options)
        return _DeadlineStream(inner, self)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _DeadlineStream:
    """A network stream whose every operation ends by the calling thread's deadline (module docstring)."""

    def __init__(self, inner: Any, backend: _DeadlineBackend) -> None:
        self._inner = inner
        self._backend = backend

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._bounded(lambda left: self._inner.read(max_bytes, left), timeout, "ReadTimeout")  # type: ignore[no-any-return]

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._bounded(lambda left: self._inner.write(buffer, left), timeout, "WriteTimeout")

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> _DeadlineStream:
        inner = self._bounded(lambda left: self._inner.start_tls(ssl_context, server_hostname, left), timeout,
                              "ConnectTimeout")
        return _DeadlineStream(inner, self._backend)

    def close(self) -> None:
        self._inner.close()

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

    def _bounded(self, operation: Callable[[float | None], T], timeout: float | None, late: str) -> T:
        deadline = self._backend.deadlines.at
        if deadline is None:
            return operation(timeout)
        left = _left(deadline, timeout, late)
        sock = self._inner.get_extra_info("socket")
        key = self._backend.reaper.watch(deadline, sock) if isinstance(sock, socket.socket) else None
        try:
            return operation(left)
        finally:
            if key is not None:
                self._backend.reaper.done(key)


def _left(deadline: float | None, timeout: float | None, late: str) -> float | None:
    """`timeout` cut to what is left until `deadline`; once it has passed, httpcore's timeout named `late`
    (``ReadTimeout``, ``WriteTimeout``, ``ConnectTimeout``: httpx maps it as its own timeouts)."""
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        import httpcore

        raise getattr(httpcore, late)("past the attempt's deadline")
    return left if timeout is None else min(timeout, left)
