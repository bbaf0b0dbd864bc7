"""`verdict.step_reason` / `check_reason` on hand-made evidence: the order of the rules."""

from __future__ import annotations

import pytest

from reqbench.core.agents.base import AgentResult, AgentStatus, Budget, Usage
from reqbench.core.execute.outcomes import Reason
from reqbench.core.execute.verdict import check_reason, step_reason
from reqbench.core.llm.ledger import FailureKind, ObservedFailure, RowLedger, upstream_failure_kind

ERROR, DONE = AgentResult(AgentStatus.ERROR), AgentResult(AgentStatus.COMPLETED)


def seen(*kinds: FailureKind) -> tuple[ObservedFailure, ...]:
    return tuple(ObservedFailure(k, k.value, i) for i, k in enumerate(kinds))


@pytest.mark.parametrize(("result", "observed", "budget", "expected"), [
    (DONE, (), Budget(), None),
    (DONE, seen(FailureKind.PROVIDER), Budget(), None),  # completed anyway: scored on what it delivered
    (ERROR, seen(FailureKind.RATE_LIMIT, FailureKind.PROVIDER), Budget(), Reason.PROVIDER_ERROR),  # the last
    (ERROR, seen(FailureKind.TIMEOUT), Budget(), Reason.PROVIDER_TIMEOUT),
    (AgentResult(AgentStatus.PROVIDER_ERROR, detail="429 rate limit"), (), Budget(), Reason.AGENT_EXIT),
    (AgentResult(AgentStatus.TIMEOUT), seen(FailureKind.BUDGET), Budget(), Reason.BUDGET_EXHAUSTED),
    (ERROR, seen(FailureKind.RESOURCE, FailureKind.BUDGET), Budget(), Reason.RESOURCE_LIMIT),
    (DONE, seen(FailureKind.LAUNCHER), Budget(), Reason.INFRASTRUCTURE),  # the harness could not run it
    (AgentResult(AgentStatus.TIMEOUT), (), Budget(), Reason.AGENT_TIMEOUT),
    (AgentResult(AgentStatus.NO_SUBMISSION), (), Budget(), Reason.EMPTY_SUBMISSION),
    (AgentResult(AgentStatus.COMPLETED, usage=Usage(cost_usd=0.3)), (), Budget(max_cost_usd=0.25),
     Reason.BUDGET_EXHAUSTED),
])
def test_step_reason_follows_the_table_in_order(result: AgentResult, observed: tuple[ObservedFailure, ...],
                                                budget: Budget, expected: Reason | None) -> None:
    assert step_reason(result, observed, budget) is expected


def test_check_reason() -> None:
    assert check_reason(harness_error=True, passed=True) is Reason.CHECK_INFRASTRUCTURE
    assert check_reason(harness_error=False, passed=True) is Reason.PASSED
    assert check_reason(harness_error=False, passed=False, timed_out=True) is Reason.VERIFIER_TIMEOUT
    assert check_reason(harness_error=False, passed=False) is Reason.CHECKS_FAILED


def test_only_provider_statuses_are_provider_failures() -> None:
    assert [upstream_failure_kind(s) for s in (200, 400, 401, 404, 408, 409, 429, 500, 503, None)] == [
        None, None, None, None, FailureKind.TIMEOUT, FailureKind.PROVIDER, FailureKind.RATE_LIMIT,
        FailureKind.PROVIDER, FailureKind.PROVIDER, FailureKind.PROVIDER]


def test_a_ledger_reports_only_what_was_noted_since_a_mark() -> None:
    ledger = RowLedger()
    ledger.note(FailureKind.PROVIDER, "before")
    mark = ledger.mark()
    ledger.note(FailureKind.RATE_LIMIT, "during")
    assert [o.detail for o in ledger.since(mark)] == ["during"]
