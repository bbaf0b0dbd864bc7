"""Bind a run store as the record/replay cache of the code running in this thread (`activate`).

The executor does this per row through `core.execute.context.RunContext`; `activate` is the same binding
for code that holds a store directly (tools, tests). It sets a context variable (`core.llm.run_access`),
so it never leaks to other threads, and ends with the ``with`` block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reqbench.core.llm.cache import as_response_cache
from reqbench.core.llm.gateway.recorder import MemoryRecorder, Recorder, StoreRecorder
from reqbench.core.llm.run_access import default_cache, model_access
from reqbench.core.store.runstore import RunStore


@contextmanager
def activate(store: RunStore) -> Iterator[RunStore]:
    with model_access(cache=as_response_cache(store, kind="llm")):
        yield store


def bound_call_recorder() -> Recorder | None:
    """Where the row executing in this thread records its model calls (gateway and chat client): the active
    run store's ``model_calls`` table (local rows), the attempt's own list (remote rows: returned with the
    attempt and written by the driver), else None (no run)."""
    cache = default_cache()
    store = getattr(cache, "store", cache)
    if isinstance(store, RunStore):
        return StoreRecorder.for_store(store)
    calls = getattr(cache, "calls", None)
    return calls if isinstance(calls, MemoryRecorder) else None


def active_store() -> RunStore | None:
    """The run store bound for the row executing in this thread (local rows only), else None: remote rows
    hold a replay snapshot, not the store, and record model calls for the driver to write."""
    cache = default_cache()
    store = getattr(cache, "store", cache)
    return store if isinstance(store, RunStore) else None
