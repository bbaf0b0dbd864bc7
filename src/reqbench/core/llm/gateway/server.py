"""`Gateway`: the loopback model server of a run. Agents call it; it calls the provider.

It listens on 127.0.0.1 (an ephemeral TCP port, for callers on the host) and on a unix socket (for
sandboxed agents, which have no network: `core.sandbox.bridge` relays a port inside the sandbox to
it). The HTTP side (`handler`) matches the token to a row's `Lease` before reading a body, and reads it
under the size cap (`limits`). Then, for every call (`handle`):

1. the model the body names must be the run's model or an auxiliary model of the tool (`models`); the
   request may not ask for what the gateway cannot charge (several answers, a background answer, a dearer
   service tier: `request_rules`) nor, unless the run allows it (``--allow-provider-tools``), for tools
   the provider runs outside the sandbox (`provider_tools`, whose ``anthropic-beta`` switches are dropped);
2. with a dollar budget, the model must have a price (`core.llm.pricing`; ``--price``/``--prices`` add
   one, ``--allow-unpriced`` lets unpriced models through, their cost unknown);
3. the call's worst case is reserved against the row's budget (`leases.Lease.admit`), and its request's
   size against the row's store bound (`quota`: what the row's calls added to the run store) -- a call that
   does not fit is refused with an error body the agent's SDK shows;
4. online: it is forwarded upstream *non-streamed* with the provider key (`upstream`); offline: answered
   from the row's recorded calls (`recorder.ReplayCursor`), sending nothing;
5. tokens (`apis.usage_of`) and cost settle the reservation, the call is recorded (`recorder`) and
   answered as JSON or SSE.

A call that was not answered -- refused by the gateway, refused or failed by the provider -- is recorded as a
digest of its request only (`limits.refused_digest`; the provider's answer whole only while it is a small
error body, `limits.kept_answer`), and at most `limits.GatewayLimits.refused_records_per_row` of them per row.
"""

from __future__ import annotations

import json
import os
import socketserver
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.llm.gateway import apis
from reqbench.core.llm.gateway.handler import make_handler
from reqbench.core.llm.gateway.leases import Claim, Lease, RowBudget
from reqbench.core.llm.gateway.limits import GatewayLimits, kept_answer, refused_digest
from reqbench.core.llm.gateway.models import ModelPolicy
from reqbench.core.llm.gateway.provider_tools import OPT_IN, provider_tool_use, without_tool_betas
from reqbench.core.llm.gateway.recorder import MemoryRecorder, ModelCall, Recorder, ReplayCursor, request_key
from reqbench.core.llm.gateway.request_rules import billing_refusal
from reqbench.core.llm.gateway.upstream import Forwarder, Upstream
from reqbench.core.llm.ledger import FailureKind, upstream_failure_kind
from reqbench.core.llm.pricing import Price, call_cost, load_prices, price_for, unpriced_refusal

__all__ = ["Gateway", "Upstream"]

SOCKET = "gateway.sock"
SOCKET_PATH_MAX = 107
"""The longest path of a unix socket (``sun_path`` holds 108 bytes with its terminating NUL)."""


LISTEN_BACKLOG = 1024
"""Connections the kernel queues before the server accepts them: every row in flight may connect at once
(the socketserver default of 5 drops the rest's SYNs, each retried a second later)."""


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = LISTEN_BACKLOG


class _TCPHTTPServer(ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG


class Gateway:
    """Start with ``with Gateway(upstream, recorder=...) as gw``; `open_row` gives each row a lease."""

    def __init__(self, upstream: Upstream | None = None, *, recorder: Recorder | None = None,
                 offline: bool = False, replay_from: Recorder | None = None,
                 prices: dict[str, Price] | None = None, allow_unpriced: bool = False,
                 limits: GatewayLimits | None = None, allow_provider_tools: bool = False) -> None:
        self.upstream = upstream or Upstream()
        self.recorder: Recorder = recorder if recorder is not None else MemoryRecorder()
        self.replay_from = replay_from if replay_from is not None else self.recorder
        self.offline = offline
        self.prices = prices if prices is not None else load_prices()
        self.allow_unpriced = allow_unpriced
        """Models without a price may be called under a dollar budget (their cost is then unknown)."""
        self.allow_provider_tools = allow_provider_tools
        """Requests may use tools the provider runs itself (``--allow-provider-tools``, `provider_tools`)."""
        self.limits = limits or GatewayLimits.from_env()
        self._forwarder = Forwarder(self.upstream)
        self._leases: dict[str, Lease] = {}
        self._lock = threading.Lock()
        self._servers: list[socketserver.BaseServer] = []
        self._dir: Path | None = None

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> Gateway:
        handler = make_handler(self)
        tcp = _TCPHTTPServer(("127.0.0.1", 0), handler)
        tcp.daemon_threads = True
        self._dir = _socket_folder()
        os.chmod(self._dir, 0o755)
        unix = _UnixHTTPServer(str(self._dir / SOCKET), handler)
        os.chmod(self._dir / SOCKET, 0o666)
        self._servers = [tcp, unix]
        for server in self._servers:
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers = []
        self.recorder.flush()  # every call it answered is durable once it has stopped
        self._forwarder.close()
        if self._dir is not None:
            from reqbench.core.workspace.fileio import remove_tree

            remove_tree(self._dir)
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
        return self._dir / SOCKET

    @property
    def upstream_requests(self) -> int:
        """HTTP requests sent upstream (retries included)."""
        return self._forwarder.requests

    # -- rows ----------------------------------------------------------------------------------------
    def open_row(self, row_key: str, budget: RowBudget | None = None, workspace: Path | str = "",
                 models: ModelPolicy | None = None) -> Lease:
        """A lease (token) for one row; offline, it carries the row's recorded calls to replay."""
        cursor = ReplayCursor(self.replay_from.calls(row_key)) if self.offline else None
        lease = Lease(row_key=row_key, budget=budget or RowBudget(), cursor=cursor, workspace=str(workspace),
                      models=models or ModelPolicy())
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
    def handle(self, api: str, lease: Lease, body: dict[str, Any], headers: dict[str, str],
               raw: bytes | None = None) -> tuple[int, dict[str, Any]]:
        """Answer one call of `lease` (status, complete response body), recording it; `raw` is the body
        as received (its size is the call's prompt bound and what it reserves of the row's store bound)."""
        started = time.time()
        raw = json.dumps(body).encode() if raw is None else raw
        with lease.lock:
            step = lease.next_step()
        named = body.get("model")
        model = named if isinstance(named, str) else ""
        price = price_for(model, self.prices)
        refused = self._request_refusal(lease, body, model)
        if refused is not None:
            with lease.lock:
                lease.refused += 1
            return self._refuse(api, lease, step, raw, *refused, started, model)
        out = apis.output_cap(api, body)
        claim = Claim(tokens=len(raw) + out, cost_usd=price.cost(len(raw), out) if price is not None else 0.0)
        refusal = lease.admit(claim)
        if refusal is not None:
            kind = "resource_limit" if lease.resource_limit else "budget_exhausted"
            if kind == "budget_exhausted" and lease.ledger is not None:
                lease.ledger.note(FailureKind.BUDGET, refusal)
            return self._refuse(api, lease, step, raw, refusal, kind, started, model)
        answered: tuple[int, int, float | None] | None = None
        served = ""
        quota = self.recorder.quota(lease.row_key, self.limits.row_store_bytes)
        if not quota.reserve(len(raw)):
            lease.limit(f"the row's store bound of {quota.limit} bytes for recorded model traffic is used up")
            lease.settle(claim, None)
            with lease.lock:
                lease.refused += 1
            return self._refuse(api, lease, step, raw, str(lease.resource_limit), "resource_limit", started, model)
        try:
            if self.offline:
                recorded = lease.cursor.take(api, body) if lease.cursor is not None else None
                if recorded is None:
                    return self._refuse(api, lease, step, raw, "offline replay: no recorded call of this row "
                                        "matches this request", "offline_miss", started, model)
                status, source = 200, "replay"
                response = _moved(recorded.response, recorded.workspace, lease.workspace)
            else:
                sent = headers if self.allow_provider_tools else without_tool_betas(headers)
                status, response = self._forwarder.forward(api, body, sent)
                source = "upstream" if status == 200 else "refused"
            prompt, completion = apis.usage_of(api, response) if status == 200 else (0, 0)
            cost = call_cost(model, prompt, completion, self.prices) if status == 200 else 0.0
            failure = upstream_failure_kind(status) if status != 200 else None
            if status == 200:
                answered, served = (prompt, completion, cost), apis.served_model(response, model)
            elif failure is not None:  # a 4xx the request caused is the caller's, not the provider's
                with lease.lock:
                    lease.provider_errors += 1
                if lease.ledger is not None:
                    lease.ledger.note(failure, f"model gateway: upstream answered HTTP {status} after retries")
            elif not self.offline and apis.context_overflow(status, response):
                with lease.lock:  # the prompt was over the model's context: the agent's outcome
                    lease.context_overflows += 1
            ok = status == 200
            if ok or self._keep_unanswered(lease):  # an unanswered call keeps a digest only
                self._record(ModelCall(row_key=lease.row_key, step=step, api=api, model=model,
                                       request=body if ok else refused_digest(raw),
                                       response=response if ok else kept_answer(response), status=status,
                                       prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost,
                                       latency_ms=(time.time() - started) * 1000, source=source,
                                       started=_iso(started), workspace=lease.workspace, served_model=served,
                                       request_key=request_key(api, body)))
            return status, response
        finally:
            quota.settle(len(raw), 0)
            lease.settle(claim, answered, served)

    def _request_refusal(self, lease: Lease, body: dict[str, Any], model: str) -> tuple[str, str] | None:
        """(why, kind) a call is refused before it is reserved, or None: another model than the run's, a
        field billed beyond the reservation, a provider-side tool the run does not allow, or a model
        without a price under a dollar budget."""
        refusal = lease.models.refusal(model)
        if refusal is not None:
            return refusal, "model_not_allowed"
        refusal = billing_refusal(body)
        if refusal is not None:
            return refusal, "parameter_not_allowed"
        refusal = None if self.allow_provider_tools else provider_tool_use(body)
        if refusal is not None:
            return f"{refusal}; a run allows provider tools only with {OPT_IN}", "provider_tool_not_allowed"
        refusal = unpriced_refusal(model, self.prices, lease.budget.max_cost_usd, self.allow_unpriced)
        return (refusal, "unpriced_model") if refusal is not None else None

    def refuse_request(self, api: str, lease: Lease, raw: bytes, size: int, message: str,
                       status: int) -> tuple[int, dict[str, Any]]:
        """Refuse a request the handler would not parse (over the size cap): the row is marked
        ``resource_limit``; only a digest of what was read is recorded."""
        lease.limit(message)
        with lease.lock:
            step = lease.next_step()
            lease.refused += 1
        return self._refuse(api, lease, step, raw, message, "resource_limit", time.time(), "", status=status,
                            size=size)

    def _refuse(self, api: str, lease: Lease, step: int, raw: bytes, message: str, kind: str, started: float,
                model: str, *, status: int = 400, size: int | None = None) -> tuple[int, dict[str, Any]]:
        response = apis.error_body(api, f"reqbench gateway: {message}", kind)
        if kind == "offline_miss":
            with lease.lock:
                lease.offline_misses += 1
        if self._keep_unanswered(lease):
            self._record(ModelCall(row_key=lease.row_key, step=step, api=api, model=model,
                                   request=refused_digest(raw, size), response=response, status=status,
                                   latency_ms=(time.time() - started) * 1000, source="refused",
                                   started=_iso(started), workspace=lease.workspace))
        return status, response

    def _keep_unanswered(self, lease: Lease) -> bool:
        """Whether one more unanswered call of `lease` is recorded (at most `refused_records_per_row`)."""
        with lease.lock:
            keep = lease.refused_recorded < self.limits.refused_records_per_row
            lease.refused_recorded += keep
        return keep

    def _record(self, call: ModelCall) -> None:
        self.recorder.record(call, self.limits.row_store_bytes)


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


def _socket_folder() -> Path:
    """A new owned folder for the gateway's socket (`core.tempdirs`): in the system's temporary folder, or
    in ``/tmp`` where that one's path would make the socket's too long."""
    folder = tempdirs.make("gw")
    if len(os.fsencode(folder / SOCKET)) <= SOCKET_PATH_MAX:
        return folder
    folder.rmdir()
    return tempdirs.make("gw", "/tmp")
