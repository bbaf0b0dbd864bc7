"""PACE in a study (`SuiteProtocol.study`, `core.protocol_study`): the case score (PACE deterministic
aggregation) as the paired value, on cases; the comparison table (PACE-Bench Table 2): per configuration and
condition, the equal-weight case mean +- standard error, the success rate, support, and the
Covered/Partial/Missing verdict counts -- from the protocol's own system summary
(`LoadedSuite.summary_data`); for the repetition tables the point verdicts as the judge's labels and the
complete deliveries of a record (PACE Table 11)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, cast

from reqbench.core.execute.suite import Suite
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.protocol_study import Outcomes, PairedOutcome, ProtocolStudy, StudyRows, StudyTable, relabelled
from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.protocols.pace.row_result import PaceResult

if TYPE_CHECKING:
    from reqbench.protocols.pace.suite import LoadedSuite  # the suite a PACE study loaded

PAIRED = PairedOutcome("case score (0-100)", binary=False, clusters="cases", unit="case")
VERDICTS = ("Covered", "Partial", "Missing")
LABEL_ORDER = ("Missing", "Partial", "Covered")
"""The judge's point verdicts, ordered (linear-weighted kappa, severe = Covered-Missing; Unresolved is out)."""


def _scored(outcome: RowOutcome) -> PaceResult | None:
    """The typed result of a scored case (None for attrition and, in older runs, operational failures)."""
    if outcome.status is not RowStatus.SCORED:
        return None
    result = PaceResult.of(outcome.result)
    return None if result.operational_failure else result


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """The case score (PACE deterministic aggregation) of a scored case; None when it has none (unresolved
    points, an operational failure, attrition)."""
    result = _scored(outcome)
    return None if result is None or result.score is None else float(result.score)


def systems(suite: Suite, outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, dict[str, Any]]:
    """``{AGENT/CONDITION: {n_cases, n_scored, mean, se, success_rate, ...}}`` of the protocol's summary."""
    found: dict[str, dict[str, Any]] = cast("LoadedSuite", suite).summary_data(outcomes)["systems"]
    return found


def completed(outcomes: list[tuple[Row, RowOutcome]]) -> int:
    """Cases of a system that are complete (the success rate's numerator)."""
    return sum(1 for _, o in outcomes if (r := _scored(o)) is not None and r.complete)


def verdict_counts(outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, int]:
    """Covered / Partial / Missing Code Points over the scored cases."""
    counts = Counter(str(v) for _, o in outcomes if (r := _scored(o)) is not None for v in (r.verdicts or {}).values())
    return {v: counts.get(v, 0) for v in VERDICTS}


def judge_labels(outcome: RowOutcome) -> dict[str, str]:
    """Point id -> verdict of a scored case (the labels a judging repetition may change)."""
    result = _scored(outcome)
    return {} if result is None else {str(p): str(v) for p, v in (result.verdicts or {}).items()}


def record_columns(outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """PACE Table 11's per-record column: complete deliveries of the record's scored cases."""
    scored = sum(1 for _, o in outcomes if _scored(o))
    return {"complete": f"{completed(outcomes)}/{scored}"}


ESTIMATOR = ("score: equal-weight mean over every planned case of the case's mean over its repeats, interval mean "
             "+- 1 SE (sample SD of the case means / sqrt(n), PACE §4.1), n = planned cases; withheld, as in the "
             "run's report, while a planned run is unresolved; success rate: mean over cases of the share of "
             "complete runs, 95% Wilson score interval when each case has one run (none over repeats)")


def tables(data: StudyRows) -> list[StudyTable]:
    rows: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        outcomes = relabelled(name, stored.outcomes)
        by_condition: dict[str, Outcomes] = {}
        for row, outcome in outcomes:
            by_condition.setdefault(row.condition, []).append((row, outcome))
        found = systems(data.suite, outcomes)
        for condition, items in by_condition.items():
            s = found[f"{name}/{condition}"]
            mean, se, n = s["mean"], s["se"], s["n_cases"]
            runs = sum(1 for _ in items)
            rows[f"{name} / {condition}"] = {
                "score": (Metric(mean, None if se is None else (mean - se, mean + se), n) if mean is not None
                          else s.get("score_note")),
                # withheld (None, no interval) when the token-overlap heuristic judged (`success_rate_note`)
                "success rate": (Metric(s["success_rate"], wilson(completed(items), n) if runs == n else None, n)
                                 if s["success_rate"] is not None else s.get("success_rate_note")
                                 or s.get("score_note")),
                "cases": n, **verdict_counts(items)}
    return [StudyTable(SummaryTable("PACE system table by configuration", rows), ESTIMATOR)]


class PaceStudy(ProtocolStudy):
    """The case score on cases, the system table, the point verdicts as ordered judge labels."""

    paired = PAIRED
    judge_labelled = True
    label_order = LABEL_ORDER

    paired_value = staticmethod(paired_value)
    tables = staticmethod(tables)
    judge_labels = staticmethod(judge_labels)
    record_columns = staticmethod(record_columns)


STUDY = PaceStudy()
