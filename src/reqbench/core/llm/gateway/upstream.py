"""Where the gateway sends a call: the provider's base URL and key, and how a call is asked of it.

`Forwarder.forward` sends a call upstream *non-streamed* in the agent's own API (`apis`), with the provider
key in that API's form, and retries 408/409/429/5xx and transport errors with exponential backoff. Any
answer that is not a JSON object becomes an error body in the API's shape, so the gateway always has one
complete body to record and to show the agent.

A call goes over the gateway's own kept-alive HTTP/1.1 connections (`provider_wire`): httpx's client cost
~1.7 ms of CPU a call (request building, cookies, h11, a pool that scans its connections under a lock), which
at 500 calls a second was a core the gateway did not get. When the environment names a proxy
(``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``, with ``NO_PROXY``) or the base URL carries credentials, calls go
through httpx as before (`proxied`), so proxies are honoured exactly as httpx honours them. Either way no
redirect is followed (the key goes to the configured host only), an answer is read up to
`Upstream.max_answer` bytes, an attempt ends by its deadline (`Upstream.timeout`, the whole exchange), and
TLS trusts what httpx trusts (one shared context: certifi, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``).
"""

from __future__ import annotations

import json
import ssl
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from reqbench.core.llm.gateway import apis
from reqbench.core.llm.gateway.provider_wire import Answer, ProviderWire, WireError
from reqbench.core.llm.gateway.proxied import HttpxPath

RETRYABLE = frozenset({408, 409, 429}) | frozenset(range(500, 600))
MAX_ANSWER = 64 * 1024**2
"""Bytes of one provider answer the gateway reads (after decompression): far above any model's longest
answer, and what one call can make the gateway hold. Over it the call is a 502, not retried."""
OUTGOING_HEADERS = {"Accept": "*/*", "Accept-Encoding": "gzip, deflate", "User-Agent": "reqbench-gateway"}


@dataclass
class Upstream:
    """Where the gateway sends calls: an OpenAI-compatible or Anthropic base URL and its key."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 600.0
    """Seconds one attempt may take, connect to last byte (a proxy's tunnel and TLS included)."""
    attempts: int = 3
    backoff: float = 1.0
    max_answer: int = MAX_ANSWER


class Forwarder:
    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self.requests = 0
        """HTTP requests sent upstream (retries included)."""
        self._wire: ProviderWire | None = None
        self._proxied: HttpxPath | None = None
        self._tls: ssl.SSLContext | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            if self._wire is not None:
                self._wire.close()
            if self._proxied is not None:
                self._proxied.close()
            self._wire = self._proxied = None

    def forward(self, api: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """(status, complete response body) of `body` asked upstream."""
        up = self.upstream
        if not up.base_url:
            return 502, apis.error_body(api, "reqbench gateway: no upstream configured", "no_upstream")
        outgoing = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        url = apis.upstream_url(up.base_url, api)
        payload = json.dumps(outgoing, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        sent = OUTGOING_HEADERS | apis.upstream_headers(api, up.api_key, headers)
        last: tuple[int, dict[str, Any]] = (502, apis.error_body(api, "no attempt", "upstream_error"))
        for attempt in range(1, up.attempts + 1):
            with self._lock:
                self.requests += 1
            try:
                answer = self._post(url, payload, sent)
            except WireError as exc:
                last = (502, apis.error_body(api, f"reqbench gateway: upstream unreachable: {exc.kind}"
                                             if exc.kind != "AnswerTooLarge" else f"reqbench gateway: {exc}",
                                             "upstream_error"))
                if exc.kind == "AnswerTooLarge":
                    return last
            else:
                last = (answer.status, _json_object(api, answer))
                if answer.status not in RETRYABLE:
                    return last
            if attempt < up.attempts:
                time.sleep(min(30.0, up.backoff * 2 ** (attempt - 1)))
        return last

    def _post(self, url: str, payload: bytes, headers: dict[str, str]) -> Answer:
        with self._lock:
            if self._wire is None and self._proxied is None:
                up = self.upstream
                if self._tls is None and (url.startswith("https:") or _proxied(url)):
                    self._tls = _trust()
                if _proxied(url):
                    self._proxied = HttpxPath(up, self._tls or _trust())
                else:
                    self._wire = ProviderWire(url, timeout=up.timeout, max_answer=up.max_answer, tls=self._tls)
            wire, proxied = self._wire, self._proxied
        if proxied is not None:
            return proxied.post(url, payload, headers)
        assert wire is not None
        parts = urlsplit(url)
        return wire.post(parts.path + (f"?{parts.query}" if parts.query else ""), payload, headers)


def _trust() -> ssl.SSLContext:
    """The TLS context every connection shares: what httpx trusts (certifi, or ``SSL_CERT_FILE``/``_DIR``)."""
    import httpx  # only an HTTPS or proxied provider needs it: not on every gateway's start-up

    return httpx.create_ssl_context()


def _json_object(api: str, answer: Answer) -> dict[str, Any]:
    """The answer as a JSON object, else an error body in the API's shape."""
    try:
        data = json.loads(answer.body)
    except ValueError:
        return apis.error_body(api, f"upstream answered non-JSON (HTTP {answer.status})", "upstream_error")
    if not isinstance(data, dict):
        return apis.error_body(api, "upstream answered a non-object", "upstream_error")
    return data


def _proxied(url: str) -> bool:
    """Whether httpx would not go straight to `url`'s host: the environment names a proxy (httpx then decides
    per host, ``NO_PROXY`` included), or the URL carries credentials."""
    proxies = urllib.request.getproxies()
    return bool(urlsplit(url).username) or any(proxies.get(k) for k in ("http", "https", "all"))
