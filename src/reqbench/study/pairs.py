"""Paired comparisons between every two configurations of a study (`reqbench study report --pairs`).

Rows pair on ``(task, condition, repeat)`` when both configurations scored them; the per-row measurement
and its cluster come from the protocol's reader (`study.readers`). For each pair of configurations, in the
study's order: the paired difference (first minus second) with its cluster-bootstrap interval, the
discordant counts and the exact McNemar p (binary outcomes) or the Wilcoxon signed-rank p (scores), and the
Benjamini-Hochberg adjusted p over all pairs (`study.paired_stats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from reqbench.core.summary import Cell, Metric, Table
from reqbench.study.collect import StudyData
from reqbench.study.paired_stats import (
    PAIRED_BOOTSTRAP,
    Difference,
    benjamini_hochberg,
    mcnemar_exact,
    paired_difference,
    wilcoxon_signed_rank,
)
from reqbench.study.readers import PairedOutcome, reader
from reqbench.study.table import StudyTable

Key = tuple[str, str, int]


@dataclass(frozen=True)
class Comparison:
    """One pair of configurations on their shared scored rows."""

    first: str
    second: str
    difference: Difference
    first_only: int
    second_only: int
    p: float
    p_adjusted: float = 1.0


def _values(data: StudyData, name: str, module: Any) -> dict[Key, tuple[str, float]]:
    """``{(task, condition, repeat): (cluster, value)}`` of a configuration's scored rows."""
    out: dict[Key, tuple[str, float]] = {}
    for row, outcome in data.configs[name].outcomes:
        value = module.paired_value(row, outcome)
        if value is not None:
            out[(row.task_id, row.condition, row.repeat)] = (row.task_id, float(value))
    return out


def compare(first: str, second: str, a: dict[Key, tuple[str, float]], b: dict[Key, tuple[str, float]],
            outcome: PairedOutcome) -> Comparison:
    """The comparison of two configurations' values on the rows both have."""
    shared = sorted(set(a) & set(b))
    by_cluster: dict[str, list[float]] = {}
    for key in shared:
        by_cluster.setdefault(a[key][0], []).append(a[key][1] - b[key][1])
    diffs = [d for values in by_cluster.values() for d in values]
    first_only = sum(1 for k in shared if a[k][1] > b[k][1])
    second_only = sum(1 for k in shared if a[k][1] < b[k][1])
    p = mcnemar_exact(first_only, second_only) if outcome.binary else wilcoxon_signed_rank(diffs)
    return Comparison(first, second, paired_difference(by_cluster), first_only, second_only, p)


def comparisons(data: StudyData) -> tuple[PairedOutcome | None, list[Comparison]]:
    """Every pairwise comparison of the study's configurations (in study order), BH-adjusted together."""
    module = reader(data.protocol)
    if module is None:
        return None, []
    names = [c.name for c in data.spec.configurations if c.name in data.configs]
    values = {name: _values(data, name, module) for name in names}
    found = [compare(x, y, values[x], values[y], module.PAIRED) for x, y in combinations(names, 2)]
    adjusted = benjamini_hochberg([c.p for c in found])
    return module.PAIRED, [Comparison(c.first, c.second, c.difference, c.first_only, c.second_only, c.p, q)
                           for c, q in zip(found, adjusted, strict=True)]


def _negated(x: float | None) -> float | None:
    return None if x is None else 0.0 - x  # never -0.0


def _metric(d: Difference) -> Metric:
    return Metric(d.estimate, None if d.lo is None or d.hi is None else (d.lo, d.hi), d.pairs)


def pairs_tables(data: StudyData) -> list[StudyTable]:
    """A matrix of paired differences (row minus column, with interval and n) and one line per pair with
    the discordant counts, the test's p and the BH-adjusted p."""
    outcome, found = comparisons(data)
    if outcome is None or not found:
        return []
    names = [c.name for c in data.spec.configurations if c.name in data.configs]
    matrix: dict[str, dict[str, Cell]] = {n: {m: None for m in names} for n in names}  # diagonal: none
    for c in found:
        matrix[c.first][c.second] = _metric(c.difference)
        d = c.difference
        flipped = Difference(_negated(d.estimate), _negated(d.hi), _negated(d.lo), d.pairs, d.clusters)
        matrix[c.second][c.first] = _metric(flipped)
    test = "exact McNemar on discordant pairs" if outcome.binary else "Wilcoxon signed-rank"
    first, second = ("first only", "second only") if outcome.binary else ("first higher", "second higher")
    lines: dict[str, dict[str, Cell]] = {
        f"{c.first} - {c.second}": {"difference": _metric(c.difference), "pairs": c.difference.pairs,
                                    outcome.clusters: c.difference.clusters,
                                    first: c.first_only, second: c.second_only, "p": c.p, "p (BH)": c.p_adjusted}
        for c in found}
    estimator = PAIRED_BOOTSTRAP.replace("tasks", outcome.clusters)
    return [StudyTable(Table(f"paired difference in {outcome.name} (row minus column)", matrix), estimator),
            StudyTable(Table(f"pairwise comparisons of {outcome.name}", lines),
                       f"{estimator}; p: {test}, two-sided; p (BH): Benjamini-Hochberg over the "
                       f"{len(found)} comparisons")]

