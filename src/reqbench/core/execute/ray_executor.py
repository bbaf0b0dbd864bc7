"""Run rows on a Ray cluster (``--executor ray``), for spreading a large run over a cluster.

Ray is optional (the ``ray`` extra): without it, asking for this executor is an InputError that says how
to install it. ``RAY_ADDRESS`` selects a running cluster (Ray's own convention, e.g. ``ray://head:10001``
or ``head:6379``); without it the driver starts a private one on this machine (`private_cluster`): on
loopback, without the dashboard, usage statistics, metrics or task events, whose processes and reports
would only spend the CPU the rows need.

Rows run in **row hosts** (`ray_hosts.RowHost`): actors (worker processes) that each run many rows at once
on threads, as the local executor does -- a row mostly waits on its agent's and its checks' processes, so
a worker process per row (Ray's task per CPU) capped the rows in flight at the cluster's CPUs and would
need ~100 MB per row beyond that. There is one host per CPU of the cluster (fewer when `concurrency` is
smaller: each host costs a worker process that imports reqbench), placed spread over the nodes; each row
goes to the host with the fewest rows in flight, and at most `concurrency` are in flight. A row travels as
its function and arguments pickled into bytes by the driver; values shared by many rows (`put`: the suite,
the recorded model calls) travel as a key, kept once per host (`ray_hosts`). The driver waits on no row
and polls nothing: one dispatcher thread sends queued rows while fewer than `concurrency` are in flight,
and each row's result completes its future from Ray's own callback.

Nothing is assumed to be shared with the workers but reqbench itself (installed at the same version on
every node); the driver alone writes the run store. Ray does not retry a row whose host died (Ray restarts
the host for the next rows): its future fails, and the driver records it as an invalid attempt
(infrastructure) and retries the row at the same budget, like any other external failure.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import uuid
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reqbench.core.errors import InputError
from reqbench.core.execute.ray_hosts import HostedShared, MissingShared, RowHost, captured, hosted, pickle_row

T = TypeVar("T")

LEAN_SYSTEM_CONFIG: dict[str, Any] = {
    "task_events_report_interval_ms": 0,  # the state API's task history: a report to the GCS per task
    "enable_metrics_collection": False,  # the Prometheus metrics of every process
    "metrics_report_interval_ms": 0,
}
"""Ray's system configuration of the private cluster (`private_cluster`): observability nobody reads."""

ROW_MODULES = ("reqbench.core.execute.runner",)
"""What every row imports (`runner.run_attempt`): each host imports it when it starts (`RowHost.warm`)."""

LEAN_ENVIRONMENT = {"RAY_USAGE_STATS_ENABLED": "0"}
"""Set while the private cluster starts (its processes inherit it): no usage report."""


def private_cluster() -> None:
    """Start a private Ray cluster on this machine (loopback only) and connect this process to it: always a
    new one (``address="local"``, never a cluster someone else started here), without the processes a run
    does not use (see the module docstring). It ends with this process (`ray.shutdown` or exit)."""
    import ray

    saved = {name: os.environ.get(name) for name in LEAN_ENVIRONMENT}
    os.environ.update(LEAN_ENVIRONMENT)
    try:
        ray.init(address="local", _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _system_config=LEAN_SYSTEM_CONFIG)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class RayShared:
    """A value placed in the executor's object store (`RayExecutor.put`). In the driver it is the value
    itself; pickled into a row's payload it is its key, which the row's host resolves (`ray_hosts`)."""

    def __init__(self, key: str, value: Any, ref: Any) -> None:
        self.key, self.value, self.ref = key, value, ref

    def get(self) -> Any:
        return self.value

    def __reduce__(self) -> tuple[Any, ...]:
        found = captured()
        if found is None:  # pickled outside a row's payload: carry the value itself
            return (HostedShared, (self.value,))
        found[self.key] = self
        return (hosted, (self.key,))


@dataclass
class _Row:
    """A submitted row: its payload, the shared values it names (held, so they outlive it) and its future."""

    payload: bytes
    shared: dict[str, RayShared]
    future: Future[Any] = field(default_factory=Future)


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
            if address:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
            else:
                private_cluster()
        self._hosts: list[Any] = []
        self._load: list[int] = []
        self._confirmed: list[set[str]] = []
        """Per host: keys of the shared values it is known to keep (a row naming them ran there)."""
        self._forget: list[list[str]] = []
        """Per host: keys of shared values the driver dropped, to be told with its next row."""
        self._refs: dict[str, Any] = {}
        self._queue: deque[_Row] = deque()
        self._resend: deque[_Row] = deque()
        self._running: set[Future[Any]] = set()
        self._closing = False
        self._state = threading.Condition(threading.RLock())  # RLock: a value's finalizer may run inside
        self._dispatcher = threading.Thread(target=self._dispatch, name="reqbench-ray-dispatch", daemon=True)
        self._dispatcher.start()

    def _start_hosts(self) -> None:
        """The row hosts (module docstring), each told to import the row code (`ROW_MODULES`) before rows
        arrive; called by the dispatcher."""
        cpus = int(self._ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call, unused-ignore]  # typed only where ray is installed
        count = max(1, min(self.concurrency, cpus))
        host = self._ray.remote(RowHost).options(
            num_cpus=0, max_concurrency=math.ceil(self.concurrency / count), max_restarts=-1, max_task_retries=0,
            scheduling_strategy="SPREAD")
        hosts: list[Any] = [host.remote() for _ in range(count)]
        self._load = [0] * count
        self._confirmed = [set() for _ in range(count)]
        self._forget = [[] for _ in range(count)]
        self._hosts = hosts
        for started in hosts:
            started.warm.remote(ROW_MODULES)  # not waited for: a row sent meanwhile waits on the same import

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        payload, shared = pickle_row(fn, args)
        row = _Row(payload, shared)
        with self._state:
            if self._closing:
                raise RuntimeError("cannot submit rows after shutdown")
            self._queue.append(row)
            self._state.notify_all()
        return row.future

    def put(self, value: Any) -> RayShared:
        key = uuid.uuid4().hex
        shared = RayShared(key, value, self._ray.put(value))
        with self._state:
            self._refs[key] = shared.ref
        weakref.finalize(shared, self._dropped, key)
        return shared

    def _dropped(self, key: str) -> None:
        """A shared value no row can name any more: its hosts are told to forget it with their next row."""
        with self._state:
            self._refs.pop(key, None)
            for confirmed, forget in zip(self._confirmed, self._forget, strict=True):
                if key in confirmed:
                    confirmed.discard(key)
                    forget.append(key)

    def _dispatch(self) -> None:
        """The dispatcher thread: start the row hosts at once (their worker processes start and import
        reqbench while the driver plans the run), then send rows refused by a restarted host again, and
        queued rows while fewer than `concurrency` are in flight; ends at `shutdown` once none is in flight."""
        with self._state, contextlib.suppress(Exception):  # else the first row's `_send` fails with the reason
            self._start_hosts()
        while True:
            with self._state:
                while not (self._resend or (self._queue and len(self._running) < self.concurrency)
                           or (self._closing and not self._running)):
                    self._state.wait()
                if self._resend:
                    row = self._resend.popleft()
                elif self._queue and len(self._running) < self.concurrency:
                    row = self._queue.popleft()
                    if not row.future.set_running_or_notify_cancel():
                        continue  # cancelled while queued
                    self._running.add(row.future)
                else:
                    return
            self._send(row)

    def _send(self, row: _Row) -> None:
        chosen = -1
        try:
            with self._state:
                if not self._hosts:
                    self._start_hosts()
                chosen = self._load.index(min(self._load))
                self._load[chosen] += 1
                refs = {key: self._refs[key] for key in row.shared if key not in self._confirmed[chosen]}
                forget, self._forget[chosen] = self._forget[chosen], []
            done = self._hosts[chosen].run.remote(row.payload, refs, forget).future()
        except Exception as exc:  # the cluster refused the row: it fails, the run goes on
            with self._state:
                if chosen >= 0:
                    self._load[chosen] -= 1
            self._finish(row, None, exc)
            return
        done.add_done_callback(lambda result: self._returned(row, chosen, result))

    def _returned(self, row: _Row, host: int, result: Future[Any]) -> None:
        """Ray's callback with a row's result: complete its future, or have the dispatcher send it again
        (`MissingShared`: the host was restarted and lost the values it kept)."""
        exc = result.exception()
        with self._state:
            self._load[host] -= 1
            if isinstance(exc, MissingShared):
                self._confirmed[host].clear()
                self._resend.append(row)
                self._state.notify_all()
                return
            if isinstance(exc, self._ray.exceptions.RayActorError):
                self._confirmed[host].clear()  # the host died: Ray restarts it empty
            else:  # the row got past `keep` on its host (a value it could not fetch: `MissingShared` later)
                self._confirmed[host].update(key for key in row.shared if key in self._refs)
        self._finish(row, None if exc is not None else result.result(), exc)

    def _finish(self, row: _Row, value: Any, exc: BaseException | None) -> None:
        with self._state:
            self._running.discard(row.future)
            self._state.notify_all()
        row.shared = {}
        if exc is not None:
            row.future.set_exception(exc)
        else:
            row.future.set_result(value)

    def shutdown(self) -> None:
        """Cancel the rows still queued, wait for those in flight, then end the hosts (and the private
        cluster, or the connection to the one at ``RAY_ADDRESS``)."""
        with self._state:
            self._closing = True
            queued, self._queue = list(self._queue), deque()
            self._state.notify_all()
        for row in queued:
            row.future.cancel()
        self._dispatcher.join()
        for host in self._hosts:
            self._ray.kill(host)
        self._hosts = []
        if self._owns_connection and self._ray.is_initialized():
            self._ray.shutdown()  # disconnects; a cluster at RAY_ADDRESS keeps running
            self._owns_connection = False
