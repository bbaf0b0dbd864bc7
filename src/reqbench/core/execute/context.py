"""`RunContext`: the run state a row needs, passed with every row call instead of living in module globals.

A row needs three things from its run besides the protocol, the row and the options: whether model calls
may only be replayed (``--offline``), the run's record/replay cache of model calls, and the suite. For the
local executor the context carries the run store's cache itself (rows are threads of the driver, which
owns the store). For a remote executor nothing of the driver's process or file system is reachable, so
the context carries instead

* a snapshot of the run's recorded model calls (``{key: record}``, in the executor's object store), which
  the row replays from; the calls a row records -- its cache entries and its ``model_calls`` rows (usage,
  cost) -- are returned with its attempt (`AttemptReport`) and the driver writes them to the run store;
* the suite as a content-addressed tarball (`shipping.ShippedSuite`), unpacked once per worker machine.

`bind` enters a context in the executing thread for the duration of one attempt.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.execute.environments import RunEnvironments
from reqbench.core.execute.scratch import scratch_base
from reqbench.core.execute.shipping import ShippedSuite
from reqbench.core.execute.suite import SuiteProtocol
from reqbench.core.llm.cache import ResponseCache
from reqbench.core.llm.gateway.recorder import MemoryRecorder
from reqbench.core.llm.run_access import model_access


@dataclass(frozen=True)
class RunContext:
    offline: bool = False
    cache: ResponseCache | None = field(default=None, compare=False)
    """Local rows: the run store's cache of model calls (written directly). Never shipped to a worker."""
    replay: Any = None
    """Remote rows: `Shared` ``{key: record}`` of the model calls recorded before the row was submitted."""
    suite: ShippedSuite | None = None
    """Remote rows: the suite, instead of the driver's path."""
    protocol: SuiteProtocol | None = None
    """Remote rows: the protocol object (stateless); the worker loads the shipped suite with it."""
    run_id: str = ""
    """Remote rows: names the worker-local scratch directory of the run."""
    environments: RunEnvironments | None = None
    """The run's built task environments (`environments`), which row runs in which."""

    @property
    def remote(self) -> bool:
        return self.suite is not None

    def __getstate__(self) -> dict[str, Any]:
        if self.cache is not None:
            raise TypeError("a RunContext holding the run store's cache runs only in the driver's process")
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def scratch(self) -> Path:
        """Worker-local scratch directory of this run (remote rows; the driver's run directory is
        not reachable there)."""
        return tempdirs.keyed("work", self.run_id or "run", scratch_base())


class RecordingCache:
    """A row's cache on a remote worker: replays the shipped snapshot and records new calls; ``calls`` keeps
    the attempt's model calls (gateway and chat client: the ``model_calls`` rows of usage and cost), which
    the driver writes to the run store with the attempt (`core.store.active.bound_call_recorder`)."""

    def __init__(self, known: dict[str, Any]) -> None:
        self.known = known
        self.recorded: dict[str, Any] = {}
        self.calls = MemoryRecorder()
        self._lock = threading.Lock()

    def get_cached(self, key: str) -> Any | None:
        with self._lock:
            return self.recorded.get(key, self.known.get(key))

    def put_cached(self, key: str, value: Any) -> None:
        with self._lock:
            if key not in self.known:
                self.recorded.setdefault(key, value)


@contextmanager
def bind(context: RunContext) -> Iterator[RecordingCache | None]:
    """Model access for one attempt in this thread: the run store's cache (local) or a `RecordingCache`
    over the shipped snapshot (remote; yielded, so the attempt can return what it recorded)."""
    recorder = None
    cache = context.cache
    if context.replay is not None:
        recorder = RecordingCache(context.replay.get())
        cache = recorder
    with model_access(cache=cache, offline=context.offline):
        yield recorder
