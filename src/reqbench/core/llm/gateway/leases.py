"""Per-row credentials and budgets of the gateway.

An agent never sees a provider key: each row (or session) gets a `Lease`, a random token the gateway
accepts in place of a key, bound to the row's key and its `RowBudget`. The lease counts what the row
used -- calls, tokens, dollars, all measured by the gateway from upstream responses -- and refuses
the next call once a limit is reached (the call that crosses a limit completes: its size is unknown
before it is answered). `Lease.usage` is what the row reports, including ``budget_exhausted``.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from reqbench.core.llm.gateway.recorder import ReplayCursor
from reqbench.core.llm.ledger import RowLedger, current_ledger

BUDGET_EXHAUSTED = "budget exhausted"


@dataclass(frozen=True)
class RowBudget:
    """Limits of one row's model use. None means unlimited."""

    max_tokens: int | None = None
    """Prompt + completion tokens over all calls."""
    max_cost_usd: float | None = None
    max_calls: int | None = None


@dataclass
class Lease:
    row_key: str
    budget: RowBudget = field(default_factory=RowBudget)
    token: str = field(default_factory=lambda: "rbgw-" + secrets.token_urlsafe(24))
    cursor: ReplayCursor | None = None
    workspace: str = ""
    """The agent's working directory (recorded with each call; replay rewrites recorded paths to it)."""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    cost_unknown: bool = False
    """A call of a model without a price: the row's dollar total is a lower bound."""
    refused: int = 0
    provider_errors: int = 0
    offline_misses: int = 0
    context_overflows: int = 0
    """Calls the upstream refused as longer than the model's context (`apis.context_overflow`)."""
    exhausted: str | None = None
    ledger: RowLedger | None = field(default_factory=current_ledger, repr=False)
    """The ledger of the row that opened the lease (`core.llm.ledger`): provider failures are noted there."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _step: int = 0

    def next_step(self) -> int:
        self._step += 1
        return self._step

    def over_budget(self) -> str | None:
        """Why the next call must be refused (and remember it), or None."""
        b = self.budget
        if b.max_calls is not None and self.calls >= b.max_calls:
            self.exhausted = f"{BUDGET_EXHAUSTED}: {self.calls} of {b.max_calls} model calls used"
        elif b.max_tokens is not None and self.prompt_tokens + self.completion_tokens >= b.max_tokens:
            self.exhausted = (f"{BUDGET_EXHAUSTED}: {self.prompt_tokens + self.completion_tokens} of "
                              f"{b.max_tokens} tokens used")
        elif b.max_cost_usd is not None and (self.cost_usd or 0.0) >= b.max_cost_usd:
            self.exhausted = f"{BUDGET_EXHAUSTED}: ${self.cost_usd or 0.0:.4f} of ${b.max_cost_usd:g} used"
        return self.exhausted

    def add(self, prompt_tokens: int, completion_tokens: int, cost: float | None) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        if cost is None:
            self.cost_unknown = True
        else:
            self.cost_usd = (self.cost_usd or 0.0) + cost

    def usage(self) -> dict[str, Any]:
        """The row's model use as the gateway measured it."""
        with self.lock:
            return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                    "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd,
                    "cost_complete": not self.cost_unknown, "refused": self.refused,
                    "provider_errors": self.provider_errors, "offline_misses": self.offline_misses,
                    "context_overflows": self.context_overflows,
                    "budget_exhausted": self.exhausted}
