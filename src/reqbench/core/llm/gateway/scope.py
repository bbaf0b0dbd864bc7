"""Which row the current thread works for, and the gateway a CLI agent of that row talks to.

The runner wraps every attempt in `row_scope(row.key, pricing, provider_tools)`; code deep inside the row
(a preset starting its tool) reads `current_row_key()` to tag its model calls, the run's prices
(`current_pricing`: ``--price``, ``--prices``, ``--allow-unpriced``) and whether its agents may use tools
the provider runs (`provider_tools_allowed`: ``--allow-provider-tools``), without any of them threaded
through every protocol. `row_gateway` starts a gateway for one agent run or session: calls recorded in the active run
store (``model_calls``), replay-only when the run is ``--offline``, forwarding to `upstream`, the row's
lease bound to its budget and its `ModelPolicy` (the run's model and the tool's auxiliary models).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from reqbench.core.llm.gateway.recorder import MemoryRecorder, Recorder
from reqbench.core.llm.pricing import RunPricing
from reqbench.core.llm.run_access import run_offline

if TYPE_CHECKING:  # the server, its leases and model policy are imported only when a row starts a gateway
    from reqbench.core.llm.gateway.leases import Lease, RowBudget
    from reqbench.core.llm.gateway.models import ModelPolicy
    from reqbench.core.llm.gateway.server import Gateway, Upstream

_ROW: contextvars.ContextVar[str | None] = contextvars.ContextVar("reqbench_row_key", default=None)
_PRICING: contextvars.ContextVar[RunPricing | None] = contextvars.ContextVar("reqbench_pricing", default=None)
_PROVIDER_TOOLS: contextvars.ContextVar[bool] = contextvars.ContextVar("reqbench_provider_tools", default=False)
ADHOC_ROW = "adhoc"


def current_row_key() -> str:
    """The key of the row being run in this thread (``adhoc`` outside a run)."""
    return _ROW.get() or ADHOC_ROW


def current_pricing() -> RunPricing:
    """The prices of the run whose row executes in this thread (the default table outside a run)."""
    return _PRICING.get() or RunPricing()


def provider_tools_allowed() -> bool:
    """Whether the run whose row executes in this thread allows provider-side tools (false outside a run)."""
    return _PROVIDER_TOOLS.get()


@contextmanager
def row_scope(row_key: str, pricing: RunPricing | None = None, provider_tools: bool = False) -> Iterator[None]:
    token = _ROW.set(row_key)
    priced = _PRICING.set(pricing) if pricing is not None else None
    tools = _PROVIDER_TOOLS.set(provider_tools)
    try:
        yield
    finally:
        _PROVIDER_TOOLS.reset(tools)
        if priced is not None:
            _PRICING.reset(priced)
        _ROW.reset(token)


def run_recorder() -> Recorder:
    """The row's recorder (`core.store.active.bound_call_recorder`), or an in-memory one outside a run."""
    from reqbench.core.store.active import bound_call_recorder  # lazy: the store package is heavier

    return bound_call_recorder() or MemoryRecorder()


@contextmanager
def row_gateway(upstream: Upstream, budget: RowBudget | None = None, *, row_key: str | None = None,
                recorder: Recorder | None = None, offline: bool | None = None,
                workspace: Path | str = "", models: ModelPolicy | None = None) -> Iterator[tuple[Gateway, Lease]]:
    """A started gateway and the lease of the current row; stopped on exit."""
    from reqbench.core.llm.gateway.server import Gateway

    pricing = current_pricing()
    gateway = Gateway(upstream, recorder=recorder or run_recorder(),
                      offline=run_offline() if offline is None else offline, prices=pricing.table(),
                      allow_unpriced=pricing.allow_unpriced, allow_provider_tools=provider_tools_allowed())
    with gateway:
        lease = gateway.open_row(row_key or current_row_key(), budget, workspace, models)
        try:
            yield gateway, lease
        finally:
            gateway.close_row(lease)
