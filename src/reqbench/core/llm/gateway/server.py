"""`Gateway`: the loopback model server of a run. Agents call it; it calls the provider.

It listens on 127.0.0.1 (an ephemeral TCP port, for callers on the host) and on a unix socket (for
sandboxed agents, which have no network: `core.sandbox.bridge` relays a port inside the sandbox to
it). For every request it:

1. routes the path to an API (`apis`) and the presented token to a row's `Lease` (unknown -> 401);
2. refuses the call when the row's budget is used up (`leases`; an error body the agent's SDK shows);
3. online: forwards it upstream *non-streamed* with the provider key (retrying 429/5xx/timeouts);
   offline: answers from the row's recorded calls (`recorder.ReplayCursor`) and sends nothing;
4. measures tokens (`apis.usage_of`) and cost (`core.llm.pricing`), adds them to the lease, records
   the call (`recorder`), and answers as JSON or, when the agent asked for a stream, as SSE (`sse`).

Count-tokens probes (``/v1/messages/count_tokens``) are answered locally with an estimate.
"""

from __future__ import annotations

import json
import os
import shutil
import socketserver
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from reqbench.core.llm.gateway import apis, sse
from reqbench.core.llm.gateway.leases import Lease, RowBudget
from reqbench.core.llm.gateway.recorder import MemoryRecorder, ModelCall, Recorder, ReplayCursor
from reqbench.core.llm.ledger import FailureKind, upstream_failure_kind
from reqbench.core.llm.pricing import Price, call_cost, load_prices

RETRYABLE = frozenset({408, 409, 429}) | frozenset(range(500, 600))


@dataclass
class Upstream:
    """Where the gateway sends calls: an OpenAI-compatible or Anthropic base URL and its key."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 600.0
    attempts: int = 3
    backoff: float = 1.0


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False


class Gateway:
    """Start with ``with Gateway(upstream, recorder=...) as gw``; `open_row` gives each row a lease."""

    def __init__(self, upstream: Upstream | None = None, *, recorder: Recorder | None = None,
                 offline: bool = False, replay_from: Recorder | None = None,
                 prices: dict[str, Price] | None = None) -> None:
        self.upstream = upstream or Upstream()
        self.recorder: Recorder = recorder if recorder is not None else MemoryRecorder()
        self.replay_from = replay_from if replay_from is not None else self.recorder
        self.offline = offline
        self.prices = prices if prices is not None else load_prices()
        self.upstream_requests = 0
        self._leases: dict[str, Lease] = {}
        self._lock = threading.Lock()
        self._servers: list[socketserver.BaseServer] = []
        self._dir: Path | None = None
        self._http: httpx.Client | None = None

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> Gateway:
        handler = _make_handler(self)
        tcp = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        tcp.daemon_threads = True
        self._dir = Path(tempfile.mkdtemp(prefix="rbgw-"))
        os.chmod(self._dir, 0o755)
        unix = _UnixHTTPServer(str(self._dir / "gateway.sock"), handler)
        os.chmod(self._dir / "gateway.sock", 0o666)
        self._servers = [tcp, unix]
        for server in self._servers:
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers = []
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` of the TCP listener (callers on the host)."""
        port = self._servers[0].server_address[1]  # type: ignore[index]
        return f"http://127.0.0.1:{port}/v1"

    @property
    def socket_path(self) -> Path:
        assert self._dir is not None, "gateway not started"
        return self._dir / "gateway.sock"

    # -- rows ----------------------------------------------------------------------------------------
    def open_row(self, row_key: str, budget: RowBudget | None = None, workspace: Path | str = "") -> Lease:
        """A lease (token) for one row; offline, it carries the row's recorded calls to replay."""
        cursor = ReplayCursor(self.replay_from.calls(row_key)) if self.offline else None
        lease = Lease(row_key=row_key, budget=budget or RowBudget(), cursor=cursor, workspace=str(workspace))
        with self._lock:
            self._leases[lease.token] = lease
        return lease

    def close_row(self, lease: Lease) -> None:
        with self._lock:
            self._leases.pop(lease.token, None)

    def lease_for(self, token: str) -> Lease | None:
        with self._lock:
            return self._leases.get(token) if token else None

    # -- one call ------------------------------------------------------------------------------------
    def handle(self, api: str, lease: Lease, body: dict[str, Any],
               headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """Answer one call of `lease` (status, complete response body), recording it."""
        started = time.time()
        model = str(body.get("model", ""))
        with lease.lock:
            step = lease.next_step()
            refusal = lease.over_budget()
            if refusal is not None:
                lease.refused += 1
        if refusal is not None:
            if lease.ledger is not None:
                lease.ledger.note(FailureKind.BUDGET, refusal)
            return self._refuse(api, lease, step, body, refusal, "budget_exhausted", started)
        if self.offline:
            recorded = lease.cursor.take(api, body) if lease.cursor is not None else None
            if recorded is None:
                return self._refuse(api, lease, step, body, "offline replay: no recorded call of this row "
                                    "matches this request", "offline_miss", started)
            status, response, source = 200, _moved(recorded.response, recorded.workspace, lease.workspace), "replay"
        else:
            status, response = self._forward(api, body, headers)
            source = "upstream" if status == 200 else "refused"
        prompt, completion = apis.usage_of(api, response) if status == 200 else (0, 0)
        cost = call_cost(model, prompt, completion, self.prices) if status == 200 else 0.0
        failure = upstream_failure_kind(status) if status != 200 else None
        with lease.lock:
            if status == 200:
                lease.add(prompt, completion, cost)
            elif failure is not None:  # a 4xx the request caused is the caller's, not the provider's
                lease.provider_errors += 1
            elif not self.offline and apis.context_overflow(status, response):
                lease.context_overflows += 1  # the prompt was over the model's context: the agent's outcome
        if failure is not None and lease.ledger is not None:
            lease.ledger.note(failure, f"model gateway: upstream answered HTTP {status} after retries")
        self.recorder.record(ModelCall(row_key=lease.row_key, step=step, api=api, model=model, request=body,
                                       response=response, status=status, prompt_tokens=prompt,
                                       completion_tokens=completion, cost_usd=cost,
                                       latency_ms=(time.time() - started) * 1000, source=source,
                                       started=_iso(started), workspace=lease.workspace))
        return status, response

    def _refuse(self, api: str, lease: Lease, step: int, body: dict[str, Any], message: str, kind: str,
                started: float) -> tuple[int, dict[str, Any]]:
        response = apis.error_body(api, f"reqbench gateway: {message}", kind)
        if kind == "offline_miss":
            with lease.lock:
                lease.offline_misses += 1
        self.recorder.record(ModelCall(row_key=lease.row_key, step=step, api=api,
                                       model=str(body.get("model", "")), request=body, response=response,
                                       status=400, latency_ms=(time.time() - started) * 1000,
                                       source="refused", started=_iso(started)))
        return 400, response

    def _forward(self, api: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        up = self.upstream
        if not up.base_url:
            return 502, apis.error_body(api, "reqbench gateway: no upstream configured", "no_upstream")
        outgoing = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        if self._http is None:
            self._http = httpx.Client(timeout=httpx.Timeout(up.timeout, connect=min(30.0, up.timeout)))
        last: tuple[int, dict[str, Any]] = (502, apis.error_body(api, "no attempt", "upstream_error"))
        for attempt in range(1, up.attempts + 1):
            with self._lock:
                self.upstream_requests += 1
            try:
                resp = self._http.post(apis.upstream_url(up.base_url, api), json=outgoing,
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


def _moved(response: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """A recorded response with the recorded working directory replaced by the current one (an agent's
    tool calls name absolute paths; each attempt works in a fresh directory)."""
    if not old or not new or old == new:
        return response
    text = json.dumps(response, ensure_ascii=False)
    moved: dict[str, Any] = json.loads(text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1]))
    return moved


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"


def _make_handler(gateway: Gateway) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            return

        def do_GET(self) -> None:
            if self.path.split("?")[0].rstrip("/") in ("/v1/models", "/models"):
                self._json(200, {"object": "list", "data": []})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_HEAD(self) -> None:
            self._json(200, {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            path = self.path.split("?", 1)[0].rstrip("/")
            api = apis.route(path)
            lease = gateway.lease_for(apis.presented_token(headers))
            if lease is None:
                self._json(401, apis.error_body(api or "chat", "reqbench gateway: unknown token",
                                                "authentication_error"))
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = None
            if not isinstance(body, dict):
                self._json(400, apis.error_body(api or "chat", "request body is not a JSON object",
                                                "bad_request"))
                return
            if path.endswith("/count_tokens"):
                self._json(200, {"input_tokens": max(1, len(raw) // 4)})
                return
            if api is None:
                self._json(404, apis.error_body("chat", f"reqbench gateway: no route {path}", "not_found"))
                return
            status, response = gateway.handle(api, lease, body, headers)
            if status == 200 and body.get("stream"):
                self._stream(sse.stream(api, response, body))
            else:
                self._json(status, response)

        def _json(self, status: int, body: dict[str, Any]) -> None:
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            try:
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _stream(self, chunks: Iterator[bytes]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for chunk in chunks:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler
