"""The attempt selection rule (SpecPath run processing) on hand-built attempt sequences."""

from __future__ import annotations

import pytest

from reqbench.core.execute.types import RowStatus
from reqbench.core.store import Attempt, NextStep, next_step, select_attempt

S, P, X = RowStatus.SCORED, RowStatus.PENDING, RowStatus.INVALID  # X: invalid


def seq(*statuses: RowStatus) -> list[Attempt]:
    return [Attempt(row_key="k", attempt_no=i + 1, status=s, kind="run", result={}, detail="",
                    started="", finished="") for i, s in enumerate(statuses)]


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
