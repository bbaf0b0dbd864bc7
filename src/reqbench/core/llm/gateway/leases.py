"""Per-row credentials and budgets of the gateway.

An agent never sees a provider key: each row (or session) gets a `Lease`, a random token the gateway
accepts in place of a key, bound to the row's key, its `RowBudget` and its `ModelPolicy`. The lease counts
what the row used -- calls, tokens, dollars, all measured by the gateway from upstream responses.

Budgets hold under concurrency by **reservation**: before a call is forwarded, the gateway reserves its
worst case (`Claim`: one call, the body's size in tokens plus its output cap, at the model's price;
`apis.worst_case`), and settles it with the real usage when the answer is in. A call is admitted only while
the settled use *plus every reservation in flight* is below each limit; a call that does not fit while
others are in flight waits for them to settle, and is refused once the settled use alone reaches a limit.
So the only call that may cross a limit is the last one admitted below it -- **at most one call crosses
a limit, whatever the concurrency** -- as long as a call costs no more than its reservation (a body's byte
count bounds its prompt tokens; the output cap bounds the rest).

Besides budgets, a lease can be marked `resource_limit`: the row passed a harness resource limit (request
size, the row's store bound for recorded model traffic, `limits`). Every later call is refused, and the row
ends as the agent's scored failure with reason ``resource_limit``. `Lease.usage` is what the row reports,
including ``budget_exhausted`` and ``resource_limit``.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from reqbench.core.llm.gateway.models import ModelPolicy
from reqbench.core.llm.gateway.recorder import ReplayCursor
from reqbench.core.llm.gateway.usage import LeaseUsage
from reqbench.core.llm.ledger import FailureKind, RowLedger, current_ledger

BUDGET_EXHAUSTED = "budget exhausted"
RESOURCE_LIMIT = "resource limit"
WAIT_SLICE = 5.0
"""Seconds between re-checks of a call waiting for reservations in flight (they always settle)."""


@dataclass(frozen=True)
class RowBudget:
    """Limits of one row's model use. None means unlimited."""

    max_tokens: int | None = None
    """Prompt + completion tokens over all calls."""
    max_cost_usd: float | None = None
    max_calls: int | None = None


@dataclass(frozen=True)
class Claim:
    """The worst case of one call, reserved before it is forwarded."""

    tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class Lease:
    row_key: str
    budget: RowBudget = field(default_factory=RowBudget)
    token: str = field(default_factory=lambda: "rbgw-" + secrets.token_urlsafe(24))
    cursor: ReplayCursor | None = None
    workspace: str = ""
    """The agent's working directory (recorded with each call; replay rewrites recorded paths to it)."""
    models: ModelPolicy = field(default_factory=ModelPolicy)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    cost_unknown: bool = False
    """A call of a model without a price: the row's dollar total is a lower bound."""
    refused: int = 0
    refused_recorded: int = 0
    provider_errors: int = 0
    offline_misses: int = 0
    context_overflows: int = 0
    """Calls the upstream refused as longer than the model's context (`apis.context_overflow`)."""
    exhausted: str | None = None
    ledger: RowLedger | None = field(default_factory=current_ledger, repr=False)
    """The ledger of the row that opened the lease (`core.llm.ledger`): provider failures are noted there."""
    resource_limit: str | None = None
    """Why the row passed a harness resource limit (request size, store bound), or None."""
    models_used: dict[str, int] = field(default_factory=dict)
    """Calls answered per model that answered them."""
    in_flight: list[Claim] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _step: int = 0

    def __post_init__(self) -> None:
        self._settled = threading.Condition(self.lock)

    def next_step(self) -> int:
        self._step += 1
        return self._step

    # -- admission (call with `lock` NOT held) ----------------------------------------------------------
    def admit(self, claim: Claim) -> str | None:
        """Reserve `claim` for one call, or say why the call is refused (counted in `refused`). Waits while
        the call fits the settled use but not the reservations in flight."""
        with self._settled:
            while True:
                refusal = self.resource_limit or self._spent()
                if refusal is not None:
                    self.refused += 1
                    return refusal
                if self._fits():
                    self.in_flight.append(claim)
                    return None
                self._settled.wait(WAIT_SLICE)

    def settle(self, claim: Claim, usage: tuple[int, int, float | None] | None, served: str = "") -> None:
        """Release `claim`; `usage` (prompt, completion tokens, cost or None) is added when the call was
        answered, with the model that `served` it."""
        with self._settled:
            self.in_flight.remove(claim)
            if usage is not None:
                self._add(*usage)
                if served:
                    self.models_used[served] = self.models_used.get(served, 0) + 1
            self._settled.notify_all()

    def limit(self, reason: str) -> None:
        """Mark the row as past a harness resource limit; every later call is refused."""
        with self._settled:
            first = self.resource_limit is None
            self.resource_limit = self.resource_limit or f"{RESOURCE_LIMIT}: {reason}"
            self._settled.notify_all()
        if first and self.ledger is not None:
            self.ledger.note(FailureKind.RESOURCE, self.resource_limit)

    def _spent(self) -> str | None:
        """Why the settled use alone refuses any further call (and remember it), or None."""
        b = self.budget
        if b.max_calls is not None and self.calls >= b.max_calls:
            self.exhausted = f"{BUDGET_EXHAUSTED}: {self.calls} of {b.max_calls} model calls used"
        elif b.max_tokens is not None and self.prompt_tokens + self.completion_tokens >= b.max_tokens:
            self.exhausted = (f"{BUDGET_EXHAUSTED}: {self.prompt_tokens + self.completion_tokens} of "
                              f"{b.max_tokens} tokens used")
        elif b.max_cost_usd is not None and (self.cost_usd or 0.0) >= b.max_cost_usd:
            self.exhausted = f"{BUDGET_EXHAUSTED}: ${self.cost_usd or 0.0:.4f} of ${b.max_cost_usd:g} used"
        return self.exhausted

    def _fits(self) -> bool:
        """Whether settled use plus the reservations in flight is below every limit."""
        b, held = self.budget, self.in_flight
        return ((b.max_calls is None or self.calls + len(held) < b.max_calls)
                and (b.max_tokens is None or self.prompt_tokens + self.completion_tokens
                     + sum(c.tokens for c in held) < b.max_tokens)
                and (b.max_cost_usd is None or (self.cost_usd or 0.0)
                     + sum(c.cost_usd for c in held) < b.max_cost_usd))

    def _add(self, prompt_tokens: int, completion_tokens: int, cost: float | None) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        if cost is None:
            self.cost_unknown = True
        else:
            self.cost_usd = (self.cost_usd or 0.0) + cost

    def measured(self) -> LeaseUsage:
        """The row's model use as the gateway measured it, typed (`usage.LeaseUsage`)."""
        with self.lock:
            return LeaseUsage(calls=self.calls, prompt_tokens=self.prompt_tokens,
                              completion_tokens=self.completion_tokens, cost_usd=self.cost_usd,
                              cost_complete=not self.cost_unknown, refused=self.refused,
                              provider_errors=self.provider_errors, offline_misses=self.offline_misses,
                              context_overflows=self.context_overflows, budget_exhausted=self.exhausted,
                              resource_limit=self.resource_limit, models=dict(self.models_used))

    def usage(self) -> dict[str, Any]:
        """`measured` as JSON (what a row reports)."""
        return self.measured().to_dict()
