"""What a model client built inside a running `reqbench run` defaults to: the one place that decides it.

* **Cache** — `default_cache()`: the run store of the active run (`core.store.active`), scoped to
  ``kind="llm"``, so every judge and agent call of a run is recorded in its ``run.sqlite`` and a
  resumed or re-scored run replays it instead of asking the model again. Outside a run it is None.
* **Offline** — `run_offline()`: True while a run started with ``--offline`` executes (`offline_run`).
  Clients then replay only; a request that was never recorded raises `OfflineCacheMiss`, an
  `InputError`, so the run stops with exit 2 and one sentence (the row gets no attempt and runs again
  on a later ``--resume`` without ``--offline``).

`LLMConfig.from_env` consults both; an explicit ``cache=`` option of the caller wins over the run store,
and the run store over ``REQBENCH_LLM_CACHE``. Rows that run in another process (remote executors)
see neither, which is why ``reqbench run --offline`` accepts only the local executor.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reqbench.core.llm.cache import ResponseCache, as_response_cache

_OFFLINE = False


def default_cache() -> ResponseCache | None:
    """The active run's store as a response cache (``kind="llm"``), or None outside a run."""
    from reqbench.core.store.active import active_store  # lazy: the store package is heavier

    store = active_store()
    return None if store is None else as_response_cache(store, kind="llm")


def run_offline() -> bool:
    """Whether the run executing in this process allows replay only."""
    return _OFFLINE


@contextmanager
def offline_run(offline: bool) -> Iterator[None]:
    """Replay-only model access for the duration of a run when `offline` (nested scopes restore)."""
    global _OFFLINE
    previous, _OFFLINE = _OFFLINE, offline or _OFFLINE
    try:
        yield
    finally:
        _OFFLINE = previous
