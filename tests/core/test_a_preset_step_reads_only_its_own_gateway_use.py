"""A preset's step reads what it used from the gateway as a typed difference of two lease readings: a
session's second turn reports its own calls, tokens, dollars and models, never the first turn's too."""

from __future__ import annotations

from reqbench.core.llm.gateway.leases import Claim, Lease
from reqbench.core.llm.gateway.usage import LeaseUsage


def _call(lease: Lease, prompt: int, completion: int, cost: float | None, model: str) -> None:
    claim = Claim(tokens=prompt + completion, cost_usd=cost or 0.0)
    assert lease.admit(claim) is None
    lease.settle(claim, (prompt, completion, cost), served=model)


def test_the_second_turn_counts_only_itself() -> None:
    lease = Lease(row_key="t|c|a|0", ledger=None)
    start = lease.measured()
    _call(lease, 100, 10, 0.5, "gpt-a")
    first = lease.measured().since(start)
    middle = lease.measured()
    _call(lease, 40, 4, 0.25, "gpt-b")
    _call(lease, 60, 6, None, "gpt-b")
    second = lease.measured().since(middle)
    assert (first.calls, first.prompt_tokens, first.cost_usd, first.models) == (1, 100, 0.5, {"gpt-a": 1})
    assert (second.calls, second.prompt_tokens, second.completion_tokens) == (2, 100, 10)
    assert second.cost_usd == 0.25 and second.models == {"gpt-b": 2}
    assert not second.cost_complete  # an unpriced call: the lease's dollars are a lower bound from then on
    assert lease.usage() == lease.measured().to_dict()  # the JSON a row reports is the same reading
    assert set(lease.usage()) == set(LeaseUsage().to_dict())


def test_no_call_during_a_step_is_an_empty_difference() -> None:
    lease = Lease(row_key="t|c|a|0", ledger=None)
    _call(lease, 5, 5, 0.1, "m")
    before = lease.measured()
    step = lease.measured().since(before)
    assert (step.calls, step.prompt_tokens, step.cost_usd, step.models, step.provider_errors) == (0, 0, 0.0, {}, 0)
