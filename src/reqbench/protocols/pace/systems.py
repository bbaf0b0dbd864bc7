"""One system's rows (``agent/condition``) reduced to `aggregate.system_summary` over its planned cases.

The plan is every case of the suite in every repeat the run holds (`LoadedSuite.plan`); a planned run is
resolved when its row is scored with a case score. Anything else -- pending, invalid (lost to the
harness), unstarted, or an operational failure of a run stored before every case was scored -- is
unresolved, and withholds the system's mean, SE and success rate (PACE-Bench appendix "Evaluation scope":
the same cases for every configuration). The withheld headline names what is unresolved (`withheld_note`).
"""

from __future__ import annotations

from collections.abc import Sequence

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.pace.aggregate import SystemSummary, system_summary
from reqbench.protocols.pace.row_result import PaceResult

Item = tuple[Row, RowOutcome, PaceResult]


def resolved(outcome: RowOutcome, result: PaceResult) -> bool:
    """A scored row with a case score (not an operational failure of an older run)."""
    return outcome.status is RowStatus.SCORED and not result.operational_failure and result.score is not None


def _runs(items: Sequence[Item]) -> dict[str, list[tuple[float, bool]]]:
    """Case -> its resolved runs ``(score, complete)``."""
    runs: dict[str, list[tuple[float, bool]]] = {}
    for row, outcome, result in items:
        if resolved(outcome, result) and result.score is not None:
            runs.setdefault(row.task_id, []).append((float(result.score), bool(result.complete)))
    return runs


def case_means(items: Sequence[Item]) -> dict[str, float | None]:
    """Case -> its mean score over its resolved runs (None for a case stored without one)."""
    runs = _runs(items)
    return {row.task_id: (sum(s for s, _ in runs[row.task_id]) / len(runs[row.task_id])
                          if row.task_id in runs else None) for row, _, _ in items}


def planned_system(items: Sequence[Item], cases: Sequence[str], repeats: Sequence[int]) -> SystemSummary:
    """The summary of one system over `cases` x `repeats` (plus any stored case outside them)."""
    planned = [*cases, *sorted({row.task_id for row, _, _ in items} - set(cases))]
    runs = _runs(items)
    scored = sum(len(v) for v in runs.values())
    return system_summary(runs, planned, len(planned) * len(repeats) - scored)


def withheld_note(items: Sequence[Item], summary: SystemSummary) -> str | None:
    """``"2/3 cases scored, 1 invalid, 2 unstarted or unscored run: no score yet"`` for a withheld system."""
    if summary.mean is not None:
        return None
    counts = {"pending": sum(o.status is RowStatus.PENDING for _, o, _ in items),
              "invalid": sum(o.status is RowStatus.INVALID for _, o, _ in items)}
    counts["unstarted or unscored"] = summary.unresolved - counts["pending"] - counts["invalid"]
    what = ", ".join(f"{v} {k}" for k, v in counts.items() if v > 0) or "no run"
    return f"{summary.n_scored}/{summary.n_cases} cases scored, {what} run(s): no score yet"
