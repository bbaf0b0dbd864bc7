"""Paired comparisons between every two configurations of a study (`reqbench study report --pairs`).

Each configuration's scored rows are first reduced to the protocol's unit of inference within one condition
(`study.paired_stats.unit_means`: the mean over its repeats of the unit); the per-row measurement and its
unit come from the protocol's study hook (`ProtocolStudy.paired`, `paired_value`). For each pair of
configurations, in the study's order, and for each condition both ran: the mean unit-mean difference (first
minus second) with its cluster-bootstrap interval over units, the units each did better on, and the unit-
level test (`paired_stats.unit_test`: exact McNemar or the sign-flip permutation test, no p when the units
are too few), the Benjamini-Hochberg adjusted p over every test of the table. The matrix shows the
difference over all conditions (each unit's mean over conditions of its differences): a description, never a
test.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from reqbench.core.protocol_study import PairedOutcome, ProtocolStudy, StudyTable
from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.study.collect import StudyData
from reqbench.study.paired_stats import (
    PAIRED_BOOTSTRAP,
    TEST_RULE,
    TOO_FEW,
    Difference,
    UnitTest,
    benjamini_hochberg,
    unit_difference,
    unit_means,
    unit_test,
)

Values = dict[str, dict[str, list[float]]]
"""Condition -> unit -> a configuration's scored values of that unit (one per repeat)."""


@dataclass(frozen=True)
class Comparison:
    """One pair of configurations in one condition, on the units both scored."""

    first: str
    second: str
    condition: str
    difference: Difference
    test: UnitTest
    p_adjusted: float | None = None


def _values(data: StudyData, name: str, study: ProtocolStudy) -> Values:
    """A configuration's scored values by condition and unit (the task: family, target, instance, case)."""
    out: Values = {}
    for row, outcome in data.configs[name].outcomes:
        value = study.paired_value(row, outcome)
        if value is not None:
            out.setdefault(row.condition, {}).setdefault(row.task_id, []).append(float(value))
    return out


def _diffs(a: dict[str, list[float]], b: dict[str, list[float]]) -> dict[str, float]:
    ma, mb = unit_means(a), unit_means(b)
    return {u: ma[u] - mb[u] for u in sorted(set(ma) & set(mb))}


def compare(first: str, second: str, condition: str, a: Values, b: Values, outcome: PairedOutcome) -> Comparison:
    """The comparison of two configurations in `condition`, at the unit level."""
    x, y = a.get(condition, {}), b.get(condition, {})
    return Comparison(first, second, condition, unit_difference(_diffs(x, y)), unit_test(x, y, binary=outcome.binary))


def study_values(data: StudyData) -> tuple[PairedOutcome | None, dict[str, Values]]:
    """The protocol's paired measurement and every configuration's values (study order); None without a
    paired measurement of the protocol."""
    study = data.protocol_study
    if study.paired is None:
        return None, {}
    names = [c.name for c in data.spec.configurations if c.name in data.configs]
    return study.paired, {name: _values(data, name, study) for name in names}


def comparisons(outcome: PairedOutcome, values: dict[str, Values]) -> list[Comparison]:
    """Every pairwise comparison (study order of the configurations, then the conditions), BH-adjusted
    together over those that have a p."""
    found = [compare(x, y, cond, values[x], values[y], outcome) for x, y in combinations(values, 2)
             for cond in [c for c in values[x] if c in values[y]]]
    tested = {i: c.test.p for i, c in enumerate(found) if c.test.p is not None}
    adjusted = dict(zip(tested, benjamini_hochberg(list(tested.values())), strict=True))
    return [Comparison(c.first, c.second, c.condition, c.difference, c.test, adjusted.get(i))
            for i, c in enumerate(found)]


def _overall(a: Values, b: Values) -> Difference:
    """The difference over all conditions: each unit's mean over conditions of its unit-mean differences."""
    per_unit: dict[str, list[float]] = {}
    for condition in [c for c in a if c in b]:
        for unit, d in _diffs(a[condition], b[condition]).items():
            per_unit.setdefault(unit, []).append(d)
    return unit_difference({u: sum(v) / len(v) for u, v in per_unit.items()})


def _negated(x: float | None) -> float | None:
    return None if x is None else 0.0 - x  # never -0.0


def _metric(d: Difference) -> Metric:
    return Metric(d.estimate, None if d.lo is None or d.hi is None else (d.lo, d.hi), d.units)


def _matrix(outcome: PairedOutcome, values: dict[str, Values]) -> SummaryTable:
    names = list(values)
    matrix: dict[str, dict[str, Cell]] = {n: {m: None for m in names} for n in names}  # diagonal: none
    for x, y in combinations(names, 2):
        d = _overall(values[x], values[y])
        matrix[x][y] = _metric(d)
        matrix[y][x] = _metric(Difference(_negated(d.estimate), _negated(d.hi), _negated(d.lo), d.units))
    return SummaryTable(f"paired difference in {outcome.name} (row minus column, over all conditions)", matrix)


def _line(c: Comparison, outcome: PairedOutcome) -> dict[str, Cell]:
    first, second = ("first only", "second only") if outcome.binary else ("first higher", "second higher")
    return {"difference": _metric(c.difference), outcome.clusters: c.test.units, first: c.test.first_higher,
            second: c.test.second_higher, "test": c.test.test, "p": TOO_FEW if c.test.p is None else c.test.p,
            "p (BH)": c.p_adjusted}


def pairs_tables(data: StudyData) -> list[StudyTable]:
    """A matrix of paired differences over all conditions (row minus column, with interval and n units) and
    one line per pair of configurations and condition with the units each did better on, the test, its p
    and the BH-adjusted p."""
    outcome, values = study_values(data)
    found = comparisons(outcome, values) if outcome is not None else []
    if outcome is None or not found:
        return []
    units = outcome.clusters
    estimator = PAIRED_BOOTSTRAP.format(units=units)
    tested = sum(1 for c in found if c.test.p is not None)
    lines = {f"{c.first} - {c.second} / {c.condition}": _line(c, outcome) for c in found}
    return [StudyTable(_matrix(outcome, values),
                       estimator.replace("within the condition", "within each condition, then each unit's mean "
                                         "over the conditions both ran") + "; descriptive: the tests are per "
                                                                            "condition"),
            StudyTable(SummaryTable(f"pairwise comparisons of {outcome.name} by condition (n = {units})", lines),
                       f"{estimator}; {TEST_RULE.format(units=units, unit=outcome.unit)}; p (BH): "
                       f"Benjamini-Hochberg over the {tested} tests with a p")]
