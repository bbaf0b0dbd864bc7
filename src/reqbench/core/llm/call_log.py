"""Every call the in-process model client makes, written where the gateway writes its calls.

The built-in ``llm`` agent, the ``llm:`` judges, the journey simulator, PACE's reviewer and journey
synthesis call the provider through `ChatClient`, not through the gateway. So that a run's tokens and
dollars have one source whoever made the call (DESIGN §11), `ChatClient.complete` hands each call to
`record_client_call`, which writes one `ModelCall` to the same `Recorder` interface the gateway uses: the
active run store's ``model_calls`` table (`core.store.active.active_store`), under the row the thread
works for (`gateway.scope.current_row_key`). Outside a run nothing is written. What a call adds to the
store counts against the row's store bound, the one the gateway's calls count against (`gateway.quota`);
`store_bound_refusal` says when it is used up, before the client sends anything.

Sources follow the gateway's: ``upstream`` (sent and answered: its tokens and cost count), ``replay``
(answered from the record/replay cache: shown, never counted again), ``refused`` (the provider failed or
refused after retries, or an offline miss). `report.model_usage` sums them per row for every report.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from reqbench.core.llm.gateway.limits import GatewayLimits
from reqbench.core.llm.gateway.recorder import ModelCall, Recorder
from reqbench.core.llm.gateway.scope import current_row_key

API = "chat"
"""The client speaks OpenAI Chat Completions (`gateway.apis.APIS`)."""

_STEPS: dict[str, itertools.count[int]] = {}
_STEPS_LOCK = threading.Lock()


def _next_step(row_key: str) -> int:
    """The n-th client call this process made for `row_key` (1-based)."""
    with _STEPS_LOCK:
        counter = _STEPS.setdefault(row_key, itertools.count(1))
        return next(counter)


def run_call_recorder() -> Recorder | None:
    """The row's recorder (`core.store.active.bound_call_recorder`), or None outside a run."""
    from reqbench.core.store.active import bound_call_recorder  # lazy: the store package is heavier

    return bound_call_recorder()


def record_client_call(*, model: str, request: dict[str, Any], response: dict[str, Any], status: int,
                       source: str, started: float, prompt_tokens: int = 0, completion_tokens: int = 0,
                       cost_usd: float | None = None) -> None:
    """Write one client call to the active run's recorder (nothing outside a run)."""
    recorder = run_call_recorder()
    if recorder is None:
        return
    row_key = current_row_key()
    recorder.record(ModelCall(row_key=row_key, step=_next_step(row_key), api=API, model=model, request=request,
                              response=response, status=status, prompt_tokens=prompt_tokens,
                              completion_tokens=completion_tokens, cost_usd=cost_usd,
                              latency_ms=(time.time() - started) * 1000, source=source,
                              started=_iso(started)), GatewayLimits.from_env().row_store_bytes)


def store_bound_refusal() -> str | None:
    """Why the row this thread works for may send no more model calls -- its calls filled its store bound
    (`gateway.limits.DEFAULT_ROW_STORE_BYTES`) -- or None (also outside a run)."""
    recorder = run_call_recorder()
    if recorder is None:
        return None
    quota = recorder.quota(current_row_key(), GatewayLimits.from_env().row_store_bytes)
    if not quota.exhausted():
        return None
    return f"the row's store bound of {quota.limit} bytes for recorded model traffic is used up"


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"
