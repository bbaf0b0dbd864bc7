"""Threat: a provider reached through the gateway's proxied path (a proxy named by ``HTTP_PROXY`` and the like,
or a base URL carrying credentials: the calls then go through httpx) trickles its answer -- or reads the
request a little at a time -- so that every single read or write ends well within its timeout, and holds the
call, its row's reservation and a gateway thread without end.

The direct path has one deadline per attempt (`Upstream.timeout`: connect to last byte). The proxied path
bounded each read and write only (600 s between two bytes). Now it keeps the same deadline: every network
operation of an attempt -- through the proxy too -- ends by it, and the call is a 502 saying so. The proxy here
is a real forwarding proxy on 127.0.0.1 (raw sockets, absolute-form requests rewritten and piped)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from reqbench.core.llm.gateway import Gateway, MemoryRecorder, RowBudget, Upstream
from tests.support.raw_provider import LoopbackServer, RawProvider

ASK = {"model": "scripted", "messages": [{"role": "user", "content": "fix it"}]}
DEADLINE = 1.5
"""The attempt's deadline in these tests (`Upstream.timeout`), seconds."""
DRIP = 0.2
"""Seconds between two bytes of a trickle: far within any read timeout."""


class ForwardProxy(LoopbackServer):
    """An HTTP forward proxy on 127.0.0.1: reads an absolute-form request head, connects to its host, sends
    the head in origin form and pipes bytes both ways until either side closes."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def handle(self, conn: socket.socket) -> None:
        self._relay(conn)

    def _relay(self, client: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = client.recv(65536)
            if not piece:
                client.close()
                return
            data += piece
        line, rest = data.split(b"\r\n", 1)
        method, target, version = line.decode("latin-1").split(" ")
        parts = httpx.URL(target)
        with self._lock:
            self.asked.append(target)
        upstream = socket.create_connection((parts.host, parts.port or 80))
        with self._lock:
            self._open += [client, upstream]
        upstream.sendall(f"{method} {parts.raw_path.decode()} {version}\r\n".encode() + rest)
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
        _pipe(client, upstream)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while piece := source.recv(65536):
            sink.sendall(piece)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[ForwardProxy]:
    """A forward proxy named by ``HTTP_PROXY`` (no other proxy setting, nothing bypassed)."""
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    with ForwardProxy() as forward:
        monkeypatch.setenv("HTTP_PROXY", forward.url)
        yield forward


def ask(base_url: str, body: dict[str, object] = ASK) -> tuple[httpx.Response, float]:
    """(the gateway's answer, seconds it took) to one call forwarded to `base_url` with a 1.5 s deadline."""
    with Gateway(Upstream(base_url, "sk-provider", timeout=DEADLINE, attempts=1),
                 recorder=MemoryRecorder()) as gw:
        lease = gw.open_row("row", RowBudget(max_calls=10))
        started = time.monotonic()
        with httpx.Client(trust_env=False, timeout=30) as agent:  # the agent reaches the gateway directly
            answered = agent.post(gw.base_url + "/chat/completions", json=body,
                                  headers={"Authorization": f"Bearer {lease.token}"})
        return answered, time.monotonic() - started


def cut_at_the_deadline(answered: httpx.Response, took: float) -> None:
    assert answered.status_code == 502, answered.text
    assert "upstream unreachable: Timeout" in answered.json()["error"]["message"]
    assert DEADLINE - 0.1 < took < DEADLINE + 3, took


def trickled_headers(conn: socket.socket, provider: RawProvider) -> None:
    provider.read_request(conn)
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    while True:  # a header line that never ends
        conn.sendall(b"x")
        time.sleep(DRIP)


def trickled_body(conn: socket.socket, provider: RawProvider) -> None:
    provider.read_request(conn)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
    while True:
        conn.sendall(b" ")
        time.sleep(DRIP)


def test_a_body_trickled_through_a_proxy_is_cut_at_the_attempts_deadline(proxy: ForwardProxy) -> None:
    with RawProvider(trickled_body) as provider:
        url = provider.base_url
        answered, took = ask(url)
    cut_at_the_deadline(answered, took)
    assert proxy.asked == [url + "/chat/completions"]  # the call did go through the proxy


def test_headers_trickled_through_a_proxy_are_cut_at_the_attempts_deadline(proxy: ForwardProxy) -> None:
    with RawProvider(trickled_headers) as provider:
        answered, took = ask(provider.base_url)
    cut_at_the_deadline(answered, took)
    assert len(proxy.asked) == 1


def test_a_provider_behind_a_url_with_credentials_cannot_trickle_past_the_deadline() -> None:
    with RawProvider(trickled_body) as provider:
        answered, took = ask(provider.base_url.replace("http://", "http://user:secret@"))
    cut_at_the_deadline(answered, took)
    assert len(provider.requests) == 1


def test_a_provider_reading_the_request_a_little_at_a_time_cannot_hold_the_call() -> None:
    """Every send makes some progress (the write never waits a whole timeout), the body takes seconds to
    cross: the attempt's deadline ends it."""
    def sipping(conn: socket.socket, provider: RawProvider) -> None:
        while conn.recv(65536):
            time.sleep(0.02)  # ~3 MB/s: a 24 MB request takes ~8 s

    big = {**ASK, "messages": [{"role": "user", "content": "x" * (24 * 1024**2)}]}  # past the socket buffers
    with RawProvider(sipping) as provider:
        answered, took = ask(provider.base_url.replace("http://", "http://user:secret@"), big)
    cut_at_the_deadline(answered, took)
