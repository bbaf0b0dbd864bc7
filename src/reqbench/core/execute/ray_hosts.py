"""The worker side of the Ray executor (`ray_executor`): row hosts and the shared values they keep.

A **row host** (`RowHost`) is a Ray actor -- one worker process -- that runs the rows sent to it, each on a
thread of its own. A row arrives as one bytes payload, the function and its arguments pickled by the driver
(`pickle_row`), so Ray only moves bytes. A value the driver placed in the executor's object store
(`ray_executor.RayShared`: the shipped suite, the snapshot of recorded model calls) is only its key in
that payload: each host keeps such a value once (`keep`), fetched from the object store with the first rows
that carry its reference, and hands the kept object to every later row that names it (`hosted`). So a row
costs the host neither the value's fetch nor its unpickling, and a row's arguments hold no object reference
(each one would make the host a borrower Ray must track per call).

A host that lost its kept values (Ray restarted it after it died) refuses a row naming one it lacks
(`MissingShared`, before the row runs): the driver sends that row again with the references. The driver
also tells each host which keys its shared values no longer need (`forget`), so a long run does not keep
every snapshot it ever made.
"""

from __future__ import annotations

import pickle
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_kept: dict[str, Any] = {}
_kept_lock = threading.Lock()
_fetch_locks: dict[str, threading.Lock] = {}
_captured = threading.local()


class MissingShared(LookupError):
    """A row names a shared value this host does not keep (it was restarted): the driver resends the row
    with the value's reference."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class HostedShared:
    """A shared value as a row on a host sees it (`core.execute.executor.Shared`): the object the host keeps,
    or the value itself where a `RayShared` was pickled outside a row's payload."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def get(self) -> Any:
        return self.value


def hosted(key: str) -> HostedShared:
    """The kept value `key` (called when a row's payload is unpickled on its host); `MissingShared` if absent."""
    with _kept_lock:
        if key in _kept:
            return HostedShared(_kept[key])
    raise MissingShared(key)


def keep(key: str, ref: Any) -> None:
    """Keep the value of object reference `ref` as `key`, fetched once however many rows bring it."""
    with _kept_lock:
        if key in _kept:
            return
        lock = _fetch_locks.setdefault(key, threading.Lock())
    with lock:
        with _kept_lock:
            if key in _kept:
                return
        import ray

        value = ray.get(ref)
        with _kept_lock:
            _kept[key] = value
            _fetch_locks.pop(key, None)


@contextmanager
def capturing() -> Iterator[dict[str, Any]]:
    """Within the block, each shared value pickled in this thread adds itself (key -> handle) to the dict
    yielded, and pickles as its key alone (`ray_executor.RayShared.__reduce__`)."""
    found: dict[str, Any] = {}
    _captured.found = found
    try:
        yield found
    finally:
        _captured.found = None


def captured() -> dict[str, Any] | None:
    """The dict of the innermost `capturing` block of this thread, or None outside one."""
    return getattr(_captured, "found", None)


def pickle_row(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bytes, dict[str, Any]]:
    """``(payload, shared values it names)``: `fn` and `args` pickled for a host (Ray's cloudpickle, so
    what Ray could send, this can), each shared value in them as its key."""
    from ray import cloudpickle

    with capturing() as found:
        payload = cloudpickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)  # type: ignore[no-untyped-call, unused-ignore]
    return payload, found


class RowHost:
    """A worker process of the cluster that runs the rows sent to it, each on a thread of its own."""

    def run(self, payload: bytes, refs: dict[str, Any], forget: list[str]) -> Any:
        """Run one row: first drop the values the driver no longer needs (`forget`) and keep the ones whose
        references came with it (`refs`), then unpickle the row (`hosted` resolves its shared values)."""
        if forget:
            with _kept_lock:
                for key in forget:
                    _kept.pop(key, None)
        for key, ref in refs.items():
            keep(key, ref)
        fn, args = pickle.loads(payload)
        return fn(*args)

    def warm(self, modules: tuple[str, ...]) -> None:
        """Import `modules` now, before the first rows arrive (they would import them on the way)."""
        import importlib

        for name in modules:
            importlib.import_module(name)

    def kept(self) -> list[str]:
        """The keys of the values this host keeps (for tests and diagnostics)."""
        with _kept_lock:
            return sorted(_kept)
