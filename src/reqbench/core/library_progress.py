"""Progress of long library steps (a suite's admission checks, ...) for whoever is watching.

Library code announces a step with `steps(name, total)` and calls `advance` as each independent unit
ends, from any thread; the command line binds a reporter for the duration of a command (`watching`, a
context variable, so nothing leaks between threads or commands). With nobody watching, announcing costs
nothing. `ConsoleSteps` prints one line per finished unit on stderr, so progress shows in a terminal and
in captured logs alike, and a command's own output on stdout stays clean.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console


class StepReporter(Protocol):
    def started(self, name: str, total: int, detail: str) -> None: ...

    def advanced(self, name: str, done: int, total: int, label: str, seconds: float | None) -> None: ...


_REPORTER: ContextVar[StepReporter | None] = ContextVar("reqbench_step_reporter", default=None)


@contextmanager
def watching(reporter: StepReporter | None) -> Iterator[None]:
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


class Steps:
    """One announced step: `total` units; `advance` is thread-safe and reports to the reporter that was
    bound when the step was announced (worker threads need not see the context variable)."""

    def __init__(self, name: str, total: int, detail: str = "") -> None:
        self.name, self.total, self.done = name, total, 0
        self._reporter = _REPORTER.get()
        self._lock = threading.Lock()
        if self._reporter is not None and total:
            self._reporter.started(name, total, detail)

    def advance(self, label: str, seconds: float | None = None) -> None:
        """One unit ended (`seconds` it took, None when it was answered from a cache)."""
        with self._lock:
            self.done += 1
            if self._reporter is not None:
                self._reporter.advanced(self.name, self.done, self.total, label, seconds)


def steps(name: str, total: int, detail: str = "") -> Steps:
    return Steps(name, total, detail)


class ConsoleSteps:
    """Lines on a console: ``admission: 3/15 DOCKSIDE_T001 reference solution (4.2 s)``."""

    def __init__(self, console: Console | None = None) -> None:
        if console is None:
            from rich.console import Console  # rich only where lines are printed: library steps run without it

            console = Console(stderr=True)
        self.console = console
        self._started: dict[str, float] = {}

    def started(self, name: str, total: int, detail: str) -> None:
        self._started[name] = time.perf_counter()
        self.console.print(f"{name}: {total} {detail}".rstrip(), highlight=False, soft_wrap=True)

    def advanced(self, name: str, done: int, total: int, label: str, seconds: float | None) -> None:
        took = "cached" if seconds is None else f"{seconds:.1f} s"
        elapsed = time.perf_counter() - self._started.get(name, time.perf_counter())
        self.console.print(f"  {name} {done}/{total} {label} ({took}; {elapsed:.0f} s elapsed)",
                           highlight=False, soft_wrap=True)
