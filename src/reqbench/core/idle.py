"""When the harness only waits: background chores run then, off every row's critical path.

A thread running a row is *working* (`working`) from the start of its attempt to its end, except while
it waits for a sandboxed process (`waiting`, entered by the launcher's poll loop). Chores such as
`workspace.discard`'s removals wait for `idle` -- no thread working -- before each step, so they take
neither a core nor the interpreter lock from a row's own harness work: with one chore thread running
Python beside a row thread, each of them waits for the other at every system call, which costs a
row more than doing the chore itself inline.

Threads that never entered `working` (the CLI, tests, a driver) do not count, and `waiting` is a no-op
for them. `side_by_side` runs independent calls of a working thread in threads of their own that count
as working while the caller only waits.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

_cond = threading.Condition()
_working = 0
_worked = False
"""Some thread has entered `working` in this process (`after_work`)."""
_mine = threading.local()


@contextmanager
def working() -> Iterator[None]:
    """The calling thread does harness work for the duration (nested uses count once)."""
    depth = getattr(_mine, "depth", 0)
    _mine.depth = depth + 1
    if depth == 0:
        _add(1)
    try:
        yield
    finally:
        _mine.depth = depth
        if depth == 0:
            _add(-1)


@contextmanager
def waiting() -> Iterator[None]:
    """The calling thread only waits for the duration (for a working thread: it stops counting)."""
    counted = getattr(_mine, "depth", 0) > 0 and not getattr(_mine, "waiting", False)
    if counted:
        _mine.waiting = True
        _add(-1)
    try:
        yield
    finally:
        if counted:
            _mine.waiting = False
            _add(1)


def side_by_side(calls: Sequence[Callable[[], T]]) -> list[T]:
    """The results of `calls`, run at the same time in threads of their own (in order; the first exception
    is raised). Where the caller is working, each thread is working too and the caller only waits. Each
    call runs in a copy of the caller's context, so what it set (the row's task environment) holds there."""
    inherit = getattr(_mine, "depth", 0) > 0

    def run(call: Callable[[], T]) -> T:
        if not inherit:
            return call()
        with working():
            return call()

    with ThreadPoolExecutor(max_workers=max(1, len(calls)), thread_name_prefix="reqbench-side") as pool:
        futures = [pool.submit(contextvars.copy_context().run, run, call) for call in calls]
        with waiting():
            return [future.result() for future in futures]


def idle(timeout: float | None = None) -> bool:
    """Block until no thread is working (True), or `timeout` seconds pass (False)."""
    with _cond:
        return _cond.wait_for(lambda: _working == 0, timeout)


def after_work(timeout: float | None = None) -> bool:
    """Block until some thread has worked and none is working now (True), or `timeout` seconds pass: a
    chore started before the rows waits for the first moment they all wait on their processes."""
    with _cond:
        return _cond.wait_for(lambda: _worked and _working == 0, timeout)


def _add(delta: int) -> None:
    global _working, _worked
    with _cond:
        _worked = _worked or delta > 0
        _working = max(0, _working + delta)  # a forked child's thread may leave a scope it never entered
        if _working == 0:
            _cond.notify_all()


def _reset_in_child() -> None:
    """A forked child starts with no working threads (only the forking thread exists there)."""
    global _cond, _working, _worked, _mine
    _cond, _working, _worked, _mine = threading.Condition(), 0, False, threading.local()


os.register_at_fork(after_in_child=_reset_in_child)
