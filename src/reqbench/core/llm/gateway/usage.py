"""`LeaseUsage`: a row's model use as the gateway measured it, typed, and what one agent step added to it.

A lease counts for its whole row (a journey session's turns share one). A CLI preset reads the lease before
and after its tool runs and decides the step from the difference (`LeaseUsage.since`): tokens and dollars
for the step's `Usage`, a new provider error, an offline miss or a context overflow during the step for its
status. The counters only grow, so every count of the difference is what happened during the step; the
lease's states (`cost_complete`, `budget_exhausted`, `resource_limit`) are as they were after it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class LeaseUsage:
    """Counters of a lease (`Lease.measured`), or the difference of two readings (`since`)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """Dollars at the run's prices; None while no call had a price."""
    cost_complete: bool = True
    """False once a call of a model without a price was answered: `cost_usd` is then a lower bound."""
    refused: int = 0
    provider_errors: int = 0
    offline_misses: int = 0
    context_overflows: int = 0
    budget_exhausted: str | None = None
    """Why the row's budget stopped further calls, or None."""
    resource_limit: str | None = None
    """Why the row passed a harness resource limit, or None."""
    models: dict[str, int] = field(default_factory=dict)
    """Calls answered per model that answered them."""

    def since(self, before: LeaseUsage) -> LeaseUsage:
        """What was used between the reading `before` and this one (same lease, `before` taken first)."""
        cost = None if self.cost_usd is None else self.cost_usd - (before.cost_usd or 0.0)
        models = {m: n - before.models.get(m, 0) for m, n in self.models.items() if n > before.models.get(m, 0)}
        return LeaseUsage(calls=self.calls - before.calls, prompt_tokens=self.prompt_tokens - before.prompt_tokens,
                          completion_tokens=self.completion_tokens - before.completion_tokens, cost_usd=cost,
                          cost_complete=self.cost_complete, refused=self.refused - before.refused,
                          provider_errors=self.provider_errors - before.provider_errors,
                          offline_misses=self.offline_misses - before.offline_misses,
                          context_overflows=self.context_overflows - before.context_overflows,
                          budget_exhausted=self.budget_exhausted, resource_limit=self.resource_limit,
                          models=models)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
