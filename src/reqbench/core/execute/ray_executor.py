"""Run rows on a Ray cluster (``--executor ray``), for spreading a large run over a cluster.

Ray is optional (the ``ray`` extra): without it, asking for this executor is an InputError that says how
to install it. ``RAY_ADDRESS`` selects a running cluster (Ray's own convention, e.g. ``ray://head:10001``
or ``head:6379``); without it Ray starts a private one on this machine. Rows run in **row hosts**: actors
(worker processes) that each run several rows at once on threads, as the local executor does -- a row mostly
waits on its agent's and its checks' processes, so a worker process per row (Ray's task per CPU) capped the
rows in flight at the cluster's CPUs (2 of 21 on a 2-CPU machine) and would need a process of ~100 MB per
row beyond that. There are as many hosts as the cluster has CPUs (one per row when `concurrency` is
smaller), at most `ROWS_PER_HOST` rows each, placed spread over the nodes; each row goes to the host with
the fewest rows in flight, and at most `concurrency` are in flight. Nothing is assumed to be shared with the
workers but reqbench itself (installed at the same version on every node): the suite and the run's recorded
model calls go through Ray's object store (`put`), results come back as call results, and the driver alone
writes the run store. Ray does not retry a row whose host died (Ray restarts the host for the next rows): the driver
records it as an invalid attempt (infrastructure) and retries the row at the same budget, like any other
external failure.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from reqbench.core.errors import InputError

T = TypeVar("T")

ROWS_PER_HOST = 64
"""The most rows one row host (one worker process) runs at once; beyond a host per CPU, more hosts."""


class RowHost:
    """A worker process of the cluster that runs the rows sent to it, each on a thread of its own."""

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        return fn(*args)


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
        self._hosts: list[Any] = []
        self._load: list[int] = []
        self._lock = threading.Lock()
        # one waiting thread per in-flight row caps concurrency and yields plain futures
        self._waiters = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="reqbench-ray")

    def _start_hosts(self) -> None:
        """The row hosts (module docstring), started on the first row; the lock is held."""
        cpus = int(self._ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call, unused-ignore]  # typed only where ray is installed
        count = max(min(self.concurrency, cpus), math.ceil(self.concurrency / ROWS_PER_HOST))
        host = self._ray.remote(RowHost).options(
            num_cpus=0, max_concurrency=math.ceil(self.concurrency / count), max_restarts=-1, max_task_retries=0,
            scheduling_strategy="SPREAD")
        self._hosts = [host.remote() for _ in range(count)]
        self._load = [0] * count

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        def call() -> T:
            with self._lock:
                if not self._hosts:
                    self._start_hosts()
                chosen = self._load.index(min(self._load))
                self._load[chosen] += 1
            try:
                return self._ray.get(self._hosts[chosen].run.remote(fn, *args))  # type: ignore[no-any-return]
            finally:
                with self._lock:
                    self._load[chosen] -= 1

        return self._waiters.submit(call)

    def put(self, value: Any) -> RayShared:
        return RayShared(self._ray.put(value))

    def shutdown(self) -> None:
        self._waiters.shutdown(wait=True, cancel_futures=True)
        for host in self._hosts:
            self._ray.kill(host)
        self._hosts = []
        if self._owns_connection and self._ray.is_initialized():
            self._ray.shutdown()  # disconnects; a cluster at RAY_ADDRESS keeps running
            self._owns_connection = False
