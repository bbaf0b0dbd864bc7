"""Takeover rows for studies: complete delivery (ReqMemBench C.2, eq. 5: all three gates PASS) per row, read
through the protocol's own `delivery_table`; per condition, the delivery, gate and RQ1-RQ3 cells of each run's
own report (`run_report`, the cells its headline and tables show, "no rate yet" included); and the semantic
judge's accepted labels (the row's ``score.judge_records``) for the label-stability audit."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Metric
from reqbench.protocols.takeover.run.report import delivery_table
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.protocols.takeover.run.summary import delivery_cell, rq_cell
from reqbench.study.readers import PairedOutcome

PAIRED = PairedOutcome("complete delivery", binary=True, clusters="targets", unit="target")


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """1 when the row's three gates all passed, 0 for a scored row that did not; None for a row that is not
    scored (pending, invalid) or not a delivery row (a diagnostic condition)."""
    if outcome.status is not RowStatus.SCORED:
        return None
    cell = delivery_table([(row, outcome)]).get(row.condition)
    return None if cell is None else float(cell["complete_delivery"])


def run_report(suite: Any, outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """The tables of the run's own report (`suite.summarize`) over a configuration's rows: what
    ``reqbench report runs/<configuration>`` shows, read once per configuration."""
    data: dict[str, Any] = suite.summarize(outcomes).data
    return data


def delivery(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Condition -> ``{n, complete, final, unresolved, shown}`` from a run's report (`run_report`): the fixed
    denominator (every planned row of the condition), the rows whose three gates passed, whether every
    planned row is resolved, the pending/invalid/unstarted counts, and the cell the run's headline shows
    (the rate, or "k/n passed so far, ...: no rate yet")."""
    counts = report.get("delivery_counts") or {}
    return {cond: {"n": r["n"], "complete": counts[cond]["complete_delivery"], "final": r["final"],
                   "unresolved": {k: r[k] for k in ("pending", "invalid", "unstarted")},
                   "shown": delivery_cell(r, counts[cond])}
            for cond, r in (report.get("delivery") or {}).items()}


GATE_COLUMNS = {"build": "build", "target": "target", "regression": "regression",
                "complete delivery": "complete_delivery"}
"""Table 4's columns (the three gates and all three) -> the run report's ``delivery`` column."""


def gate_cells(report: dict[str, Any]) -> dict[str, dict[str, Cell]]:
    """Delivery condition -> gate -> the run report's cell: `Metric` (rate = PASS rows / n, its Wilson
    interval and n) when the condition is final, else ``"k/n passed so far, ...: no rate yet"``."""
    counts = report.get("delivery_counts") or {}
    out: dict[str, dict[str, Cell]] = {}
    for cond, rates in (report.get("delivery") or {}).items():
        row: dict[str, Cell] = {}
        for label, column in GATE_COLUMNS.items():
            shown = delivery_cell(rates, counts[cond], column)
            passed, n = counts[cond][column], rates["n"]
            row[label] = Metric(shown, wilson(passed, n), n) if isinstance(shown, float) else shown
        out[cond] = row
    return out


def rq_cells(report: dict[str, Any], part: str, columns: tuple[str, ...]) -> dict[str, dict[str, Cell]]:
    """Condition -> column -> the run report's cell of RQ table `part` (`rq_cell`: the value, None where the
    metric is N/A, or "...: no rate yet"), plus the ``judge`` that produced the row."""
    rows = report.get(part) or {}
    return {cond: {"judge": row.get("judge")} | {c: rq_cell(report, part, cond, c) for c in columns}
            for cond, row in rows.items()}


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
