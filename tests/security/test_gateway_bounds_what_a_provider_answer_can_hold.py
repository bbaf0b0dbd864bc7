"""Threat: the provider side holds the gateway -- an answer without end (or a small compressed body that
inflates without end) fills the harness's memory, an answer trickled a byte at a time keeps a call (and
its row's reservation) open forever, and a redirect carries the provider key to another host.

The gateway read a provider's answer whole, whatever its size, and bounded time per read only (600 s
between two bytes), so a provider answering slowly enough held a call without limit. Now an answer is read
up to `Upstream.max_answer` bytes (64 MiB, counted after decompression) and an attempt has one deadline
for the whole exchange; a redirect is still an answer, never followed."""

from __future__ import annotations

import gzip
import socket
import time

import httpx

from reqbench.core.llm.gateway import Gateway, MemoryRecorder, RowBudget, Upstream
from tests.support.raw_provider import RawProvider, response

ASK = {"model": "scripted", "messages": [{"role": "user", "content": "fix it"}]}


def ask(upstream: Upstream, timeout: float = 30) -> httpx.Response:
    with Gateway(upstream, recorder=MemoryRecorder()) as gw:
        lease = gw.open_row("row", RowBudget(max_calls=10))
        return httpx.post(gw.base_url + "/chat/completions", headers={"Authorization": f"Bearer {lease.token}"},
                          json=ASK, timeout=timeout)


def test_an_answer_without_end_is_cut_at_the_bound_and_not_asked_again() -> None:
    def endless(conn: socket.socket, provider: RawProvider) -> None:
        provider.read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        piece = b" " * 65536
        while True:
            conn.sendall(b"10000\r\n" + piece + b"\r\n")

    with RawProvider(endless) as provider:
        answered = ask(Upstream(provider.base_url, "sk-provider", backoff=0.01))
        assert answered.status_code == 502 and "bound of 67108864 bytes" in answered.json()["error"]["message"]
        assert len(provider.requests) == 1  # a bound is not a transient failure: no retry billed


def test_a_small_compressed_answer_cannot_inflate_past_the_bound() -> None:
    bomb = gzip.compress(b"\0" * (80 * 1024**2), compresslevel=9)  # ~80 KB on the wire

    def serve(conn: socket.socket, provider: RawProvider) -> None:
        while provider.read_request(conn):
            conn.sendall(response(bomb, headers="Content-Type: application/json\r\nContent-Encoding: gzip\r\n"))

    with RawProvider(serve) as provider:
        answered = ask(Upstream(provider.base_url, "sk-provider", backoff=0.01))
    assert answered.status_code == 502 and "bound of 67108864 bytes" in answered.json()["error"]["message"]


def test_an_answer_trickled_a_byte_at_a_time_ends_at_the_attempts_deadline() -> None:
    def trickle(conn: socket.socket, provider: RawProvider) -> None:
        provider.read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        while True:  # a header line that never ends, a byte well within any per-read timeout
            conn.sendall(b"x")
            time.sleep(0.2)

    with RawProvider(trickle) as provider:
        started = time.monotonic()
        answered = ask(Upstream(provider.base_url, "sk-provider", timeout=1.5, attempts=1), timeout=20)
        took = time.monotonic() - started
    assert answered.status_code == 502 and "upstream unreachable: Timeout" in answered.json()["error"]["message"]
    assert took < 10, took


def test_a_redirect_is_an_answer_and_the_key_goes_to_no_other_host() -> None:
    def elsewhere(conn: socket.socket, provider: RawProvider) -> None:
        while provider.read_request(conn):
            conn.sendall(response(b'{"choices": []}'))

    with RawProvider(elsewhere) as other:
        def redirect(conn: socket.socket, provider: RawProvider) -> None:
            while provider.read_request(conn):
                conn.sendall(response(b"moved", status="307 Temporary Redirect",
                                      headers=f"Location: {other.base_url}/chat/completions\r\n"))

        with RawProvider(redirect) as provider:
            answered = ask(Upstream(provider.base_url, "sk-provider", backoff=0.01))
        assert other.requests == [] and other.connections == 0
    assert answered.status_code == 307 and "non-JSON (HTTP 307)" in answered.json()["error"]["message"]
    assert [r[1]["authorization"] for r in provider.requests] == ["Bearer sk-provider"]
