"""Takeover rows for studies: complete delivery (ReqMemBench C.2, eq. 5: all three gates PASS) per row and
per condition, read through the protocol's own `delivery_table`; and the semantic judge's accepted labels
(the row's ``score.judge_records``) for the label-stability audit."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.takeover.run.report import delivery_table
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.protocols.takeover.run.summary import delivery_cell
from reqbench.study.readers import PairedOutcome

PAIRED = PairedOutcome("complete delivery", binary=True, clusters="targets", unit="target")


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """1 when the row's three gates all passed, 0 for a scored row that did not; None for a row that is not
    scored (pending, invalid) or not a delivery row (a diagnostic condition)."""
    if outcome.status is not RowStatus.SCORED:
        return None
    cell = delivery_table([(row, outcome)]).get(row.condition)
    return None if cell is None else float(cell["complete_delivery"])


def delivery(suite: Any, outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, dict[str, Any]]:
    """Condition -> ``{n, complete, final, unresolved, shown}`` from the run's own report (`suite.summarize`):
    the fixed denominator (every planned row of the condition), the rows whose three gates passed, whether
    every planned row is resolved, the pending/invalid/unstarted counts, and the cell the run's headline
    shows (the rate, or "k/n passed so far, ...: no rate yet")."""
    data = suite.summarize(outcomes).data
    counts = data.get("delivery_counts") or {}
    return {cond: {"n": r["n"], "complete": counts[cond]["complete_delivery"], "final": r["final"],
                   "unresolved": {k: r[k] for k in ("pending", "invalid", "unstarted")},
                   "shown": delivery_cell(r, counts[cond])}
            for cond, r in (data.get("delivery") or {}).items()}


LABEL_ORDER = None
"""The semantic judge's labels are nominal (EQUIVALENT, SAME_STATE_VARIABLE, VALID, ...)."""


def judge_labels(outcome: RowOutcome) -> dict[str, str]:
    """``CONTRACT:REQUEST/CANDIDATE`` -> label of every accepted judge answer of the row's RQ1-RQ3 scoring
    (the request key names the request by content, so repetitions of the same frozen response line up)."""
    score = TakeoverResult.of(outcome.result).score
    records = score.judge_records if score else []
    out: dict[str, str] = {}
    for record in records:
        if not isinstance(record, dict) or not record.get("accepted"):
            continue
        where = f"{record.get('contract', '?')}:{str(record.get('request_key', ''))[:16]}"
        for candidate, label in (record.get("labels") or {}).items():
            out[f"{where}/{candidate}"] = str(label)
    return out
