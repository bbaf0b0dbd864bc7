"""Run rows as Ray tasks (``--executor ray``), for spreading a large run over a cluster.

Ray is optional and not a dependency of reqbench: without it, asking for this executor is an InputError
that says how to install it. ``RAY_ADDRESS`` selects a cluster (Ray's own convention); otherwise Ray starts
a local one. At most `concurrency` tasks are in flight; results come back to the driver, which alone
writes the run store.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from reqbench.core.errors import InputError

T = TypeVar("T")


class RayExecutor:
    name = "ray"

    def __init__(self, concurrency: int = 1) -> None:
        try:
            import ray  # type: ignore[import-not-found]
        except ModuleNotFoundError as exc:
            raise InputError("the ray executor needs Ray, which is not installed "
                             "(pip install 'ray[default]'), or use --executor local",
                             item="--executor ray") from exc
        if concurrency < 1:
            raise InputError("--concurrency must be at least 1", item=str(concurrency))
        self._ray = ray
        self.concurrency = concurrency
        ray.init(ignore_reinit_error=True, log_to_driver=False)
        # one waiting thread per in-flight task caps concurrency and yields plain futures
        self._waiters = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="reqbench-ray")

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        remote = self._ray.remote(fn)

        def call() -> T:
            return self._ray.get(remote.remote(*args))  # type: ignore[no-any-return]

        return self._waiters.submit(call)

    def shutdown(self) -> None:
        self._waiters.shutdown(wait=True, cancel_futures=True)
