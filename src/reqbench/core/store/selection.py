"""Which attempt of a row counts, and when a row is finished (SpecPath, "Run processing").

SpecPath resolves provider-limit attempts first, "selecting the earliest complete non-external attempt
under a maximum of three same-budget tries"; external invalidity is attrition, never an agent failure.
reqbench applies the same rule to every protocol; `select_attempt` is the one place it lives.

Attempts belong to a *grading*: ``original`` for what `reqbench run` produced, or the label of a
`reqbench regrade` that re-scored frozen submissions into new attempts linked to their parent. Running and
resuming only ever look at the original grading. A report for grading G takes each row's G attempts only and
never falls back to the original ones: a row G did not grade is not in G (SpecPath §4.3, "Run processing": the
longer-budget re-runs "join to the primary schedule by parent_schedule_id and are never pooled with the
1,200-second results"), so a report of G covers exactly the rows G graded and names that denominator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from reqbench.core.execute.outcomes import DEFAULT_MAX_ATTEMPTS, reruns_agent
from reqbench.core.execute.settings import ProtocolResult
from reqbench.core.execute.types import RowStatus

__all__ = ["DEFAULT_MAX_ATTEMPTS", "Attempt", "NextStep", "next_step", "select_attempt"]


@dataclass(frozen=True)
class Attempt:
    """One stored attempt of a row (artifacts are sha256 references into ``artifacts/``)."""

    row_key: str
    attempt_no: int
    status: RowStatus
    kind: str
    result: ProtocolResult
    """The protocol's model (`RunStore.result_model`)."""
    detail: str
    started: str
    finished: str
    artifacts: dict[str, str] = field(default_factory=dict)
    reason: str = ""
    parent: int | None = None
    """The attempt this one re-grades (regrade, timeout re-run), else None."""
    grading: str = "original"


class NextStep(StrEnum):
    """What the executor does with a row next."""

    RUN = "run"
    """No attempt yet, or only invalid ones whose reason re-runs the agent (`outcomes.reruns_agent`) below
    the budget: run the agent (again, same budget)."""
    REEVALUATE = "reevaluate"
    """The selected attempt is pending: re-run only its evaluation on the frozen submission."""
    DONE = "done"
    """Finished: a scored attempt exists, an invalid attempt is attrition by its reason, or invalid
    attempts reached `max_attempts`."""


ORIGINAL = "original"
"""The grading of the attempts `reqbench run` makes."""


def select_attempt(attempts: Sequence[Attempt], grading: str = ORIGINAL) -> Attempt | None:
    """The attempt that counts for a row.

    Rule (SpecPath, "Run processing"): the **earliest** ``scored`` attempt; else the **latest**
    ``pending`` one; else the **latest** ``invalid`` one; ``None`` when the row has no attempt.
    Earliest-scored means a later retry can never replace a result that already counted (no
    selection on outcome); latest-pending/invalid shows the most recent evidence for an unfinished row.
    Only `grading`'s attempts are considered: a row that `grading` did not grade has none (``None``), never
    its original attempt (gradings are never pooled, module docstring).
    """
    return _select([a for a in attempts if a.grading == grading])


def _select(attempts: Sequence[Attempt]) -> Attempt | None:
    ordered = sorted(attempts, key=lambda a: a.attempt_no)
    for attempt in ordered:
        if attempt.status == RowStatus.SCORED:
            return attempt
    for status in (RowStatus.PENDING, RowStatus.INVALID):
        matching = [a for a in ordered if a.status == status]
        if matching:
            return matching[-1]
    return None


def next_step(attempts: Sequence[Attempt], max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> NextStep:
    """What running a row does next (SpecPath §4.3 "Run processing"; the retry rule is `reruns_agent`).

    Finished when a ``scored`` attempt exists, when an ``invalid`` attempt's reason is attrition (a harness
    exception, metadata: never a new agent attempt), or when `max_attempts` invalid attempts were made (a
    provider limit or infrastructure failure re-runs the agent at the same budget until then). A selected
    ``pending`` attempt is re-evaluated (below `max_attempts` invalid re-evaluations); otherwise run (again).
    Only original attempts count (a regrade never changes what running a row does)."""
    attempts = [a for a in attempts if a.grading == ORIGINAL]
    if any(a.status == RowStatus.SCORED for a in attempts):
        return NextStep.DONE
    invalid = [a for a in attempts if a.status == RowStatus.INVALID]
    if len(invalid) >= max_attempts:
        return NextStep.DONE
    selected = select_attempt(attempts)
    if selected is not None and selected.status == RowStatus.PENDING:
        return NextStep.REEVALUATE  # a frozen submission: never the agent, whatever its re-evaluation raised
    if any(not reruns_agent(a.reason) for a in invalid):
        return NextStep.DONE
    return NextStep.RUN
