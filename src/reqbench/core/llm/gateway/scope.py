"""Which row the current thread works for, and the gateway a CLI agent of that row talks to.

The runner wraps every attempt in `row_scope(row.key)`; code deep inside the row (a preset starting
its tool) reads `current_row_key()` to tag its model calls, without a row threaded through every
protocol. `row_gateway` starts a gateway for one agent run or session: calls recorded in the active
run store (``model_calls``), replay-only when the run is ``--offline``, forwarding to `upstream`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reqbench.core.llm.gateway.leases import Lease, RowBudget
from reqbench.core.llm.gateway.recorder import MemoryRecorder, Recorder, StoreRecorder
from reqbench.core.llm.gateway.server import Gateway, Upstream
from reqbench.core.llm.run_access import run_offline

_ROW: contextvars.ContextVar[str | None] = contextvars.ContextVar("reqbench_row_key", default=None)
ADHOC_ROW = "adhoc"


def current_row_key() -> str:
    """The key of the row being run in this thread (``adhoc`` outside a run)."""
    return _ROW.get() or ADHOC_ROW


@contextmanager
def row_scope(row_key: str) -> Iterator[None]:
    token = _ROW.set(row_key)
    try:
        yield
    finally:
        _ROW.reset(token)


def run_recorder() -> Recorder:
    """The active run store's ``model_calls`` table, or an in-memory recorder outside a run."""
    from reqbench.core.store.active import active_store  # lazy: the store package is heavier

    store = active_store()
    return StoreRecorder.for_store(store) if store is not None else MemoryRecorder()


@contextmanager
def row_gateway(upstream: Upstream, budget: RowBudget | None = None, *, row_key: str | None = None,
                recorder: Recorder | None = None, offline: bool | None = None,
                workspace: Path | str = "") -> Iterator[tuple[Gateway, Lease]]:
    """A started gateway and the lease of the current row; stopped on exit."""
    gateway = Gateway(upstream, recorder=recorder or run_recorder(),
                      offline=run_offline() if offline is None else offline)
    with gateway:
        lease = gateway.open_row(row_key or current_row_key(), budget, workspace)
        try:
            yield gateway, lease
        finally:
            gateway.close_row(lease)
