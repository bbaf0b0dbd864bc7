"""Deterministic aggregation (paper §3.1 "Deterministic aggregation", appendix "Verdict folding").

One function per rule:

* `fold_point`     criterion judgments -> point verdict (hard miss -> Missing; partial or soft miss ->
                   Partial; all satisfied -> Covered);
* `phi`            Covered / Partial / Missing -> 1 / 0.5 / 0;
* `case_score`     S_c = 100 * sum(w * phi) / sum(w) over *all* points; any Unresolved point blocks the
                   score (None) instead of dropping its weight from the denominator;
* `is_complete`    complete delivery iff S_c >= 95 and no Missing;
* `system_summary` equal-weight mean over every planned case (repeats averaged within the case first) +-
                   standard error over the case means, and success rate; withheld while a planned run of
                   the case set is unresolved (fixed denominator, appendix "Evaluation scope").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reqbench.protocols.pace.models import Judgment, Severity, Verdict

COMPLETE_THRESHOLD = 95.0
"""Paper §3.1: complete delivery requires S_c >= 95 and zero Missing."""

_PHI = {Verdict.COVERED: 1.0, Verdict.PARTIAL: 0.5, Verdict.MISSING: 0.0}


def phi(verdict: Verdict) -> float:
    """Credit of a resolved verdict: Covered 1, Partial 0.5, Missing 0. Unresolved has no credit value."""
    if verdict not in _PHI:
        raise ValueError(f"{verdict} has no credit value; it blocks the case score")
    return _PHI[verdict]


def fold_point(entries: Iterable[tuple[Judgment, Severity]]) -> Verdict:
    """Fold criterion judgments of one point (judgment already states polarity-aware fulfilment).

    A hard criterion judged missing -> Missing; otherwise any partial entry or any soft criterion judged
    missing -> Partial; otherwise (every criterion covered) -> Covered. An empty checklist cannot establish
    anything and folds to Missing.
    """
    items = list(entries)
    if not items:
        return Verdict.MISSING
    if any(j is Judgment.MISSING and s is Severity.HARD for j, s in items):
        return Verdict.MISSING
    if any(j is Judgment.PARTIAL or (j is Judgment.MISSING and s is Severity.SOFT) for j, s in items):
        return Verdict.PARTIAL
    return Verdict.COVERED


def case_score(verdicts: Mapping[str, Verdict], weights: Mapping[str, float]) -> float | None:
    """S_c = 100 * sum_i w_i phi(y_i) / sum_i w_i over every frozen point; None if any point is Unresolved.

    Unresolved evidence blocks a final score rather than removing weight (paper §3.1, appendix §13).
    """
    if set(verdicts) != set(weights):
        raise ValueError("verdicts and weights must cover the same points")
    if any(v is Verdict.UNRESOLVED for v in verdicts.values()):
        return None
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("total weight must be positive")
    return 100.0 * sum(weights[p] * phi(v) for p, v in verdicts.items()) / total


def is_complete(score: float | None, verdicts: Mapping[str, Verdict]) -> bool:
    """Complete delivery: a final score >= 95 and no Missing point (an unscored case is not complete)."""
    if score is None:
        return False
    return score >= COMPLETE_THRESHOLD and not any(v is Verdict.MISSING for v in verdicts.values())


def weighted_loss(verdict: Verdict, weight: float) -> float:
    """The loss a non-Covered point contributes to attribution: w (1 - phi(y))."""
    return weight * (1.0 - phi(verdict))


@dataclass(frozen=True)
class SystemSummary:
    n_cases: int
    """Planned cases: the fixed denominator (every case of the suite, scored or not)."""
    n_scored: int
    """Planned cases with at least one scored run."""
    mean: float | None
    se: float | None
    success_rate: float | None
    unresolved: int = 0
    """Planned runs (case x repeat) without a scored outcome: pending, invalid (lost to the harness),
    unstarted, or blocked by unresolved evidence."""

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "n_cases": self.n_cases,
            "n_scored": self.n_scored,
            "mean": self.mean,
            "se": self.se,
            "success_rate": self.success_rate,
            "unresolved": self.unresolved,
        }


def system_summary(case_runs: Mapping[str, Sequence[tuple[float, bool]]], planned_cases: Sequence[str],
                   unresolved: int = 0) -> SystemSummary:
    """Equal-weight mean over the planned cases of each case's mean score over its scored runs (repeats),
    +- standard error (sample SD of the case means / sqrt(n cases)); success rate = mean over cases of the
    share of its runs that are complete deliveries.

    `case_runs` maps a case to its scored runs ``(score, complete)``. Every configuration is evaluated over
    the same cases (PACE-Bench §4.1: "Each configuration ... is evaluated over the 43-case suite", appendix
    "Evaluation scope": "system scores give equal weight to each case"), so the denominator is
    `planned_cases`: while any planned run is `unresolved`, or a planned case has no scored run, the mean,
    SE and success rate are withheld (None), never computed over the cases that happened to finish.
    Repeats are nested in their case: three repeats of three cases are three case means, not nine scores.
    """
    means = {c: math.fsum(s for s, _ in runs) / len(runs) for c, runs in case_runs.items() if runs}
    done = [means[c] for c in planned_cases if c in means]
    n = len(planned_cases)
    if unresolved or len(done) < n or not n:
        return SystemSummary(n, len(done), None, None, None, max(unresolved, n - len(done)))
    mean = math.fsum(done) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in done) / (n - 1) / n) if n >= 2 else 0.0
    rate = math.fsum(sum(c for _, c in case_runs[k]) / len(case_runs[k]) for k in planned_cases) / n
    return SystemSummary(n, n, mean, se, rate, 0)
