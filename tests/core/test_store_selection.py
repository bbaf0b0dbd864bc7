"""The attempt selection rule and the reason-aware retry rule (SpecPath §4.3 run processing) on hand-built
attempt sequences."""

from __future__ import annotations

import pytest

from reqbench.core.execute.outcomes import reruns_agent
from reqbench.core.execute.types import RowStatus
from reqbench.core.store import Attempt, NextStep, next_step, select_attempt

S, P, X = RowStatus.SCORED, RowStatus.PENDING, RowStatus.INVALID  # X: invalid (a provider limit)


def seq(*statuses: RowStatus, reason: str = "provider_rate_limit") -> list[Attempt]:
    return [Attempt(row_key="k", attempt_no=i + 1, status=s, kind="run", result={}, detail="",
                    started="", finished="", reason=reason if s is X else "") for i, s in enumerate(statuses)]


@pytest.mark.parametrize(("statuses", "selected"), [
    ((), None),
    ((S,), 1),
    ((X, S, S), 2),          # earliest scored: a later retry never replaces a counted result
    ((S, X, P), 1),
    ((P, X, P, X), 3),       # no scored: latest pending
    ((X, P, X), 2),
    ((X, X), 2),             # only invalid: latest invalid
])
def test_selected_attempt_follows_the_documented_rule(statuses: tuple[RowStatus, ...],
                                                      selected: int | None) -> None:
    chosen = select_attempt(seq(*statuses))
    assert (chosen.attempt_no if chosen else None) == selected


def test_selection_does_not_depend_on_storage_order() -> None:
    attempts = seq(X, S, P, S)
    assert select_attempt(list(reversed(attempts))).attempt_no == 2  # type: ignore[union-attr]


@pytest.mark.parametrize(("statuses", "step"), [
    ((), NextStep.RUN),
    ((X,), NextStep.RUN),
    ((X, X), NextStep.RUN),
    ((X, X, X), NextStep.DONE),      # invalid budget exhausted: attrition
    ((X, S), NextStep.DONE),
    ((P,), NextStep.REEVALUATE),     # never re-runs the agent on a pending row
    ((P, X), NextStep.REEVALUATE),
    ((P, X, X, X), NextStep.DONE),
])
def test_row_is_finished_when_scored_or_invalid_budget_exhausted(statuses: tuple[RowStatus, ...],
                                                                 step: NextStep) -> None:
    assert next_step(seq(*statuses), max_attempts=3) == step


@pytest.mark.parametrize(("reason", "reruns"), [
    ("provider_rate_limit", True), ("provider_error", True), ("provider_timeout", True),
    ("infrastructure", True),
    ("harness_exception", False), ("metadata", False), ("", False), ("not-a-reason", False),
])
def test_only_provider_limits_and_infrastructure_run_the_agent_again(reason: str, reruns: bool) -> None:
    """SpecPath §4.3: provider-limit attempts retry at the same budget up to three times; metadata, runner
    (harness) and unclassified invalidity is attrition at the first attempt, never a new agent attempt."""
    assert reruns_agent(reason) is reruns
    assert next_step(seq(X, reason=reason), max_attempts=3) == (NextStep.RUN if reruns else NextStep.DONE)
    assert next_step(seq(X, X, X, reason=reason), max_attempts=3) == NextStep.DONE


def test_a_pending_row_is_re_evaluated_even_after_a_re_evaluation_raised() -> None:
    assert next_step(seq(P, X, reason="harness_exception"), max_attempts=3) == NextStep.REEVALUATE
