"""Takeover rows for studies: complete delivery (ReqMemBench C.2, eq. 5: all three gates PASS) per row and
per condition, read through the protocol's own `delivery_table`."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.takeover.run.report import delivery_table
from reqbench.study.readers import PairedOutcome

PAIRED = PairedOutcome("complete delivery", binary=True, clusters="targets")


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """1 when the row's three gates all passed, 0 for a scored row that did not; None for a row that is not
    scored (pending, invalid) or not a delivery row (a diagnostic condition)."""
    if outcome.status is not RowStatus.SCORED:
        return None
    cell = delivery_table([(row, outcome)]).get(row.condition)
    return None if cell is None else float(cell["complete_delivery"])


def delivery(outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, dict[str, Any]]:
    """Condition -> ``{n, complete}``: the fixed denominator (every planned row of the condition) and the
    rows whose three gates passed."""
    return {cond: {"n": cell["n"], "complete": cell["counts"]["complete_delivery"]}
            for cond, cell in delivery_table(outcomes).items()}
