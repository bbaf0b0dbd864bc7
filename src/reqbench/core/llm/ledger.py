"""What the harness itself saw go wrong during a row: provider failures and launcher failures.

A row's outcome may be ``invalid`` (attrition, re-run) only for causes the *harness* observed (DESIGN §12):
never because an agent printed "rate limit" or exited with a provider-sounding message. The observers are
harness code:

* the model gateway (`core.llm.gateway`) notes an upstream call that still failed after its retries
  (429, 408/409, 5xx, unreachable) on the caller's `Lease`; a lease opened inside a row joins the row's
  ledger, so a CLI agent's failed calls count for the step that made them;
* the chat client (`core.llm.client`) notes a `ProviderError` after its retries (the built-in ``llm`` agent);
* the sandbox launcher (`core.sandbox.process`) notes a process it could not start.

The runner binds one `RowLedger` per attempt (`row_ledger`); `core.execute.agent_step` takes a `mark` before an
agent step and reads what was noted `since` it. A failure noted outside any agent step (a judge, the
simulated user) never decides an agent step.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum


class FailureKind(StrEnum):
    """What the harness observed; each maps to one `outcomes.Reason` in `core.execute.verdict`."""

    RATE_LIMIT = "rate_limit"
    """The provider answered 429 on every attempt."""
    TIMEOUT = "timeout"
    """The provider did not answer in time on the last attempt (HTTP 408 or a client timeout)."""
    PROVIDER = "provider"
    """5xx, 409, a refused connection or an unreachable provider after every attempt."""
    LAUNCHER = "launcher"
    """The sandbox launcher could not start a process (bubblewrap or cgroup set-up failed)."""
    RESOURCE = "resource_limit"
    """Not a provider failure: the gateway refused the row past a harness resource limit (a request body over
    the cap, the row's model-traffic store bound): the agent's scored failure, ``resource_limit``."""
    BUDGET = "budget"
    """Not a provider failure: the gateway refused a call because the row's model budget was used up (the
    agent's scored failure, ``budget_exhausted``)."""


@dataclass(frozen=True)
class ObservedFailure:
    kind: FailureKind
    detail: str
    seq: int = 0


def upstream_failure_kind(status: int | None, *, timed_out: bool = False) -> FailureKind | None:
    """The kind of a provider failure after retries, from the HTTP status the harness received (None when
    the status is not a provider failure: 2xx, or a 4xx the request itself caused)."""
    if timed_out or status == 408:
        return FailureKind.TIMEOUT
    if status == 429:
        return FailureKind.RATE_LIMIT
    if status is None or status == 409 or 500 <= status < 600:
        return FailureKind.PROVIDER
    return None


class RowLedger:
    """Failures observed during one attempt of a row, in order (thread-safe: gateway threads note too)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: list[ObservedFailure] = []

    def note(self, kind: FailureKind, detail: str) -> None:
        with self._lock:
            self._seen.append(ObservedFailure(kind, detail[:500], len(self._seen) + 1))

    def mark(self) -> int:
        with self._lock:
            return len(self._seen)

    def since(self, mark: int) -> tuple[ObservedFailure, ...]:
        with self._lock:
            return tuple(self._seen[mark:])


_LEDGER: contextvars.ContextVar[RowLedger | None] = contextvars.ContextVar("reqbench_row_ledger", default=None)


def current_ledger() -> RowLedger | None:
    """The ledger of the attempt this thread works for (None outside a row)."""
    return _LEDGER.get()


@contextmanager
def row_ledger(ledger: RowLedger | None = None) -> Iterator[RowLedger]:
    """Bind a (fresh) ledger to this thread for one attempt."""
    ledger = ledger or RowLedger()
    token = _LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _LEDGER.reset(token)


def note(kind: FailureKind, detail: str) -> None:
    """Note a failure in this thread's ledger (nothing outside a row)."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.note(kind, detail)
