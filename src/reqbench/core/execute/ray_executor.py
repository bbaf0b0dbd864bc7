"""Run rows as Ray tasks (``--executor ray``), for spreading a large run over a cluster.

Ray is optional (the ``ray`` extra): without it, asking for this executor is an InputError that says how
to install it. ``RAY_ADDRESS`` selects a running cluster (Ray's own convention, e.g. ``ray://head:10001``
or ``head:6379``); without it Ray starts a private one on this machine. Each row is one task needing one
CPU; at most `concurrency` are in flight. Nothing is assumed to be shared with the workers but reqbench
itself (installed at the same version on every node): the suite and the run's recorded model calls go
through Ray's object store (`put`), results come back as task results, and the driver alone writes the
run store. Ray does not retry a task whose worker died: the driver records it as an invalid attempt
(infrastructure) and retries the row at the same budget, like any other external failure.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from reqbench.core.errors import InputError

T = TypeVar("T")


class RayShared:
    """An object in Ray's object store (the reference pickles; `get` fetches it where the row runs)."""

    def __init__(self, ref: Any) -> None:
        self.ref = ref

    def get(self) -> Any:
        import ray

        return ray.get(self.ref)


class RayExecutor:
    name = "ray"
    remote = True

    def __init__(self, concurrency: int = 1) -> None:
        try:
            import ray
        except ModuleNotFoundError as exc:
            raise InputError("the ray executor needs Ray, which is not installed "
                             "(pip install 'reqbench[ray]'), or use --executor local",
                             item="--executor ray") from exc
        if concurrency < 1:
            raise InputError("--concurrency must be at least 1", item=str(concurrency))
        self._ray = ray
        self.concurrency = concurrency
        self._owns_connection = not ray.is_initialized()
        if self._owns_connection:
            address = os.environ.get("RAY_ADDRESS") or None
            local: dict[str, Any] = {} if address else {"_node_ip_address": "127.0.0.1"}  # private: loopback
            ray.init(address=address, log_to_driver=False, configure_logging=False, **local)
        self._remotes: dict[Any, Any] = {}
        # one waiting thread per in-flight task caps concurrency and yields plain futures
        self._waiters = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="reqbench-ray")

    def _remote(self, fn: Callable[..., Any]) -> Any:
        if fn not in self._remotes:  # exported to the cluster once, not per row
            self._remotes[fn] = self._ray.remote(num_cpus=1, max_retries=0)(fn)
        return self._remotes[fn]

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        remote = self._remote(fn)

        def call() -> T:
            return self._ray.get(remote.remote(*args))  # type: ignore[no-any-return]

        return self._waiters.submit(call)

    def put(self, value: Any) -> RayShared:
        return RayShared(self._ray.put(value))

    def shutdown(self) -> None:
        self._waiters.shutdown(wait=True, cancel_futures=True)
        if self._owns_connection and self._ray.is_initialized():
            self._ray.shutdown()  # disconnects; a cluster at RAY_ADDRESS keeps running
            self._owns_connection = False
