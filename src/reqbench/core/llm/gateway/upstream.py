"""Where the gateway sends a call: the provider's base URL and key, and the HTTP clients that ask it.

`Forwarder.forward` sends a call upstream *non-streamed* in the agent's own API (`apis`), with the provider
key in that API's form, and retries 408/409/429/5xx and transport errors with exponential backoff. Any
answer that is not a JSON object becomes an error body in the API's shape, so the gateway always has one
complete body to record and to show the agent.

The connections to the provider are split over `UPSTREAM_POOLS` clients, each gateway thread keeping to
one: httpx's pool scans every connection it holds, under one lock, each time a request takes or gives back a
connection, so one pool of 500 connections served 500 concurrent calls slower than the provider answered
them.
"""

from __future__ import annotations

import itertools
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from reqbench.core.llm.gateway import apis

RETRYABLE = frozenset({408, 409, 429}) | frozenset(range(500, 600))
UPSTREAM_POOL = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=5.0)
"""Connections to the provider: one per call in flight, however many rows call at once, kept alive for 5 s
between calls. (httpx's default of 100 made the 101st concurrent call wait for a free connection: at 500
concurrent calls of 1 s each, a call waited ~4 s in the gateway before it was sent.)"""
UPSTREAM_POOLS = 32
"""Clients (each its own connection pool) the calls are spread over: a gateway thread takes the next one
in turn on its first call and keeps it, so each pool holds a few connections however many rows call."""


@dataclass
class Upstream:
    """Where the gateway sends calls: an OpenAI-compatible or Anthropic base URL and its key."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 600.0
    attempts: int = 3
    backoff: float = 1.0


class Forwarder:
    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self.requests = 0
        """HTTP requests sent upstream (retries included)."""
        self._pools: list[httpx.Client | None] = [None] * UPSTREAM_POOLS
        self._turn = itertools.count()
        self._mine = threading.local()
        self._tls: ssl.SSLContext | None = None
        self._lock = threading.Lock()

    def _client(self) -> httpx.Client:
        """This thread's client (made on first use; every client shares one TLS context)."""
        pool = getattr(self._mine, "pool", None)
        if pool is None:
            pool = self._mine.pool = next(self._turn) % UPSTREAM_POOLS
        with self._lock:
            http = self._pools[pool]
            if http is None:
                up = self.upstream
                if self._tls is None:
                    self._tls = httpx.create_ssl_context()
                http = self._pools[pool] = httpx.Client(
                    timeout=httpx.Timeout(up.timeout, connect=min(30.0, up.timeout)), limits=UPSTREAM_POOL,
                    verify=self._tls)
            return http

    def close(self) -> None:
        with self._lock:
            for http in self._pools:
                if http is not None:
                    http.close()
            self._pools = [None] * UPSTREAM_POOLS

    def forward(self, api: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """(status, complete response body) of `body` asked upstream."""
        up = self.upstream
        if not up.base_url:
            return 502, apis.error_body(api, "reqbench gateway: no upstream configured", "no_upstream")
        outgoing = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        http = self._client()
        last: tuple[int, dict[str, Any]] = (502, apis.error_body(api, "no attempt", "upstream_error"))
        for attempt in range(1, up.attempts + 1):
            with self._lock:
                self.requests += 1
            try:
                resp = http.post(apis.upstream_url(up.base_url, api), json=outgoing,
                                 headers=apis.upstream_headers(api, up.api_key, headers))
            except httpx.HTTPError as exc:
                last = (502, apis.error_body(api, f"reqbench gateway: upstream unreachable: "
                                             f"{type(exc).__name__}", "upstream_error"))
            else:
                try:
                    data = resp.json()
                except ValueError:
                    data = apis.error_body(api, f"upstream answered non-JSON (HTTP {resp.status_code})",
                                           "upstream_error")
                if not isinstance(data, dict):
                    data = apis.error_body(api, "upstream answered a non-object", "upstream_error")
                last = (resp.status_code, data)
                if resp.status_code not in RETRYABLE:
                    return last
            if attempt < up.attempts:
                time.sleep(min(30.0, up.backoff * 2 ** (attempt - 1)))
        return last
