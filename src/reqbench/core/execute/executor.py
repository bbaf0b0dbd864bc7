"""Where rows run: the `Executor` interface, the local thread pool, and `make_executor` by name.

An executor only runs a picklable function on arguments and hands back a `concurrent.futures.Future`;
the driver (`lanes.run_open_lanes`) keeps the store, the schedule, attempts and progress. That is why a
remote executor (Ray) can be added without protocols or the store knowing about it. A `remote` executor
runs rows in other processes, possibly on other machines: the driver then ships the suite and the run's
recorded model calls through `put` (the executor's object store) instead of passing paths and objects.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from reqbench.core.errors import InputError

T = TypeVar("T")

EXECUTOR_NAMES = ("local", "ray")


class Shared(Protocol):
    """A value placed in an executor's object store; `get` returns it wherever the row runs."""

    def get(self) -> Any: ...


class Executor(Protocol):
    """Runs `fn(*args)` somewhere, at most `concurrency` at a time, in submission order."""

    name: str
    concurrency: int
    remote: bool
    """Rows run in another process: arguments are pickled, nothing of the driver's memory is shared."""

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]: ...

    def put(self, value: Any) -> Shared: ...

    def shutdown(self) -> None: ...


class InProcess:
    """A shared value that is simply held (the local executor's rows share the driver's memory)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def get(self) -> Any:
        return self.value


class LocalExecutor:
    """A thread pool in this process. Rows spend their time in subprocesses (agents, checks) and I/O, so
    threads give real parallelism; the store is written from the driver thread only."""

    name = "local"
    remote = False

    def __init__(self, concurrency: int = 1) -> None:
        if concurrency < 1:
            raise InputError("--concurrency must be at least 1", item=str(concurrency))
        self.concurrency = concurrency
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="reqbench-row")

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        return self._pool.submit(fn, *args)

    def put(self, value: Any) -> Shared:
        return InProcess(value)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def make_executor(name: str, concurrency: int) -> Executor:
    """The executor called `name` (``local`` or ``ray``); InputError for anything else."""
    if name == "local":
        return LocalExecutor(concurrency)
    if name == "ray":
        from reqbench.core.execute.ray_executor import RayExecutor
        return RayExecutor(concurrency)
    raise InputError(f"unknown executor (choose one of: {', '.join(EXECUTOR_NAMES)})", item=name)
