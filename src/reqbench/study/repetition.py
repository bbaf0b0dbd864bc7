"""Execution repeats vs judging repetitions (PACE-Bench §4.5 Obs. 5, Table 11, appendix "Detailed
Repetition Analysis"), and the stability of a judge's labels across judging repetitions.

Records of one configuration, read from its run directory:

* **execution records** -- the study's repeats: record r is the ``original`` grading of the rows of
  repeat r (each repeat ran the agent again);
* **judging records** -- the judging repetitions (`study.rejudge`): record k is the grading
  ``rejudge-k`` of every row (the frozen submissions graded again with fresh judge calls). Only attempts
  of that grading count; a row the repetition did not grade is missing from the record, never the
  original's value.

Case spread (PACE "Case-level variation"): for each unit, the sample SD (n - 1) and the range
(max - min) of its values over the records, averaged over the units scored in *every* record. The
execution unit is the case (task, condition), its values the per-row measurement of the protocol's
study hook (`ProtocolStudy.paired_value`: e.g. a case score, a session's Final F2P, complete delivery)
over the repeats; the judging unit is the row (task, condition, repeat), its values over the judging
records -- the patch is fixed, only the judge varies. (PACE judged the Run 1 patches; here every
repeat's patches are judged, each a unit of its own, so the judging spread has more support.)

Label stability: a protocol's study hook may offer ``judge_labels(outcome) -> {item: label}`` (point
verdicts, a capability judge's per-turn labels, a semantic judge's labels) and ``label_order`` (ordered
categories, e.g. Missing < Partial < Covered, or None for nominal labels). Over
the items labelled in every judging record: the share labelled identically in all records; per pair of
records, the exact agreement, Cohen's kappa (linear weights over an order, else unweighted; items whose
label is outside the order, e.g. Unresolved, left out of kappa as PACE does) and, with an order, the
share of opposite-extreme inversions (PACE's severe Covered-Missing disagreement); each averaged over
the pairs.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from reqbench.core.execute.types import Outcomes
from reqbench.core.protocol_study import ProtocolStudy
from reqbench.core.stats.agreement import (
    confusion_matrix,
    exact_agreement,
    severe_disagreement_rate,
    weighted_kappa_from_matrix,
)
from reqbench.core.store import RunStore
from reqbench.core.store.selection import ORIGINAL, select_attempt
from reqbench.study.rejudge import repetition_labels

Key = tuple[str, ...]
Record = dict[Key, float]
"""One record: unit -> value (units the record did not score are absent)."""


@dataclass(frozen=True)
class Spread:
    """Mean case SD and mean case range over the units scored in every record."""

    records: int
    units: int
    mean_sd: float | None
    mean_range: float | None


def spread(records: Sequence[Record]) -> Spread:
    """`Spread` of `records` (None values when fewer than two records or no unit is in all of them)."""
    if len(records) < 2:
        return Spread(len(records), 0, None, None)
    units = sorted(set.intersection(*(set(r) for r in records)))
    if not units:
        return Spread(len(records), 0, None, None)
    sds, ranges = [], []
    for unit in units:
        found = [r[unit] for r in records]
        sds.append(statistics.stdev(found))
        ranges.append(max(found) - min(found))
    return Spread(len(records), len(units), statistics.fmean(sds), statistics.fmean(ranges))


@dataclass(frozen=True)
class Stability:
    """How stable a judge's labels are across judging records."""

    records: int
    items: int
    unanimous: float | None
    agreement: float | None
    kappa: float | None
    severe: float | None
    pairs: int


def stability(records: Sequence[dict[Key, str]], order: Sequence[str] | None) -> Stability:
    """`Stability` of label records (definitions in the module docstring)."""
    if len(records) < 2:
        return Stability(len(records), 0, None, None, None, None, 0)
    items = sorted(set.intersection(*(set(r) for r in records)))
    if not items:
        return Stability(len(records), 0, None, None, None, None, 0)
    unanimous = sum(1 for i in items if len({r[i] for r in records}) == 1) / len(items)
    agreements, kappas, severe = [], [], []
    for a, b in combinations(records, 2):
        left, right = [a[i] for i in items], [b[i] for i in items]
        agreements.append(exact_agreement(left, right))
        kappa = _kappa(left, right, order)
        if kappa is not None:
            kappas.append(kappa)
        if order is not None and len(order) >= 2:
            severe.append(severe_disagreement_rate(left, right, order[0], order[-1]))
    return Stability(len(records), len(items), unanimous, statistics.fmean(agreements),
                     statistics.fmean(kappas) if kappas else None, statistics.fmean(severe) if severe else None,
                     len(agreements))


def _kappa(left: list[str], right: list[str], order: Sequence[str] | None) -> float | None:
    if order is not None:
        kept = [(x, y) for x, y in zip(left, right, strict=True) if x in order and y in order]
        categories, weights = list(order), None  # linear weights over the order
    else:
        kept = list(zip(left, right, strict=True))
        categories = sorted({x for pair in kept for x in pair})
        weights = np.eye(len(categories))
    if not kept:
        return None
    matrix = confusion_matrix([x for x, _ in kept], [y for _, y in kept], categories)
    return weighted_kappa_from_matrix(matrix, weights)


# ---- reading the records of one configuration ---------------------------------------------------------

def grading_outcomes(store: RunStore, grading: str) -> Outcomes:
    """Every row graded under `grading` with its selected attempt of that grading only (no fallback to
    the original grading, unlike `RunStore.outcomes`)."""
    out: Outcomes = []
    for row in store.plan():
        mine = [a for a in store.attempts(row) if a.grading == grading]
        chosen = select_attempt(mine, grading)
        if chosen is not None:
            out.append((row, store.to_outcome(chosen, with_artifacts=False)))
    return out


@dataclass(frozen=True)
class ConfigRecords:
    """The execution records (by repeat) and judging records (by repetition label) of a configuration."""

    execution: dict[int, Outcomes]
    judging: dict[str, Outcomes]


def read_records(store: RunStore) -> ConfigRecords:
    original = store.outcomes(grading=ORIGINAL)
    execution: dict[int, Outcomes] = {}
    for row, outcome in original:
        execution.setdefault(row.repeat, []).append((row, outcome))
    judging = {name: grading_outcomes(store, name) for name in repetition_labels(store.gradings())}
    return ConfigRecords(dict(sorted(execution.items())), judging)


def values(study: ProtocolStudy, outcomes: Outcomes, *, by_repeat: bool) -> Record:
    """Unit -> the protocol's per-row measurement (`ProtocolStudy.paired_value`); units are (task, condition)
    or, `by_repeat`, rows."""
    out: Record = {}
    for row, outcome in outcomes:
        value = study.paired_value(row, outcome)
        if value is not None:
            key: Key = (row.task_id, row.condition, str(row.repeat)) if by_repeat else (row.task_id, row.condition)
            out[key] = float(value)
    return out


def labels(study: ProtocolStudy, outcomes: Outcomes) -> dict[Key, str]:
    """(row key, item) -> the judge's label (`ProtocolStudy.judge_labels`; {} for a protocol without them)."""
    if not study.judge_labelled:
        return {}
    return {(row.key, item): label for row, outcome in outcomes for item, label in study.judge_labels(outcome).items()}
