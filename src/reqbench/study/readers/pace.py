"""PACE rows for studies: the system table of the protocol's own summary (`LoadedSuite.summary_data`:
equal-weight case mean +- SE, success rate, support), the Covered/Partial/Missing verdict counts, and for
the repetition tables the point verdicts as the judge's labels and the complete deliveries of a record."""

from __future__ import annotations

from collections import Counter
from typing import Any

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.pace.row_result import PaceResult
from reqbench.study.readers import PairedOutcome

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


def systems(suite: Any, outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, dict[str, Any]]:
    """``{AGENT/CONDITION: {n_cases, n_scored, mean, se, success_rate, ...}}`` of the protocol's summary."""
    found: dict[str, dict[str, Any]] = suite.summary_data(outcomes)["systems"]
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
