"""The run store of the run executing in this process, for code deep inside a row (judges, model clients)
that records calls and replays cached responses without a store being threaded through every call.

`execute_run` activates its store for the duration of the run. Outside a run `active_store()` is None and
callers fall back to not caching. (Remote executors run rows in other processes: there it is None too.)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reqbench.core.store.runstore import RunStore

_ACTIVE: RunStore | None = None


def active_store() -> RunStore | None:
    return _ACTIVE


@contextmanager
def activate(store: RunStore) -> Iterator[RunStore]:
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, store
    try:
        yield store
    finally:
        _ACTIVE = previous
