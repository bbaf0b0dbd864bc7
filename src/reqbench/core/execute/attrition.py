"""Attrition by reason: how many planned rows were scored, and why the others were not.

One table shape for every protocol's summary and the run report (SpecPath Table 3, PACE-Bench "Result
validation"): per group (condition, system or configuration) and in total, ``rows``, ``scored``, and one
column per ``invalid: REASON``, ``pending: REASON`` and ``excluded: REASON`` (scored rows a protocol keeps
out of its score, e.g. PACE's operational failures), plus ``unstarted`` when the caller knows the plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reqbench.core.execute.outcomes import reason_label
from reqbench.core.execute.types import RowOutcome, RowStatus

TOTAL = "all"


def attrition_column(outcome: RowOutcome | None, *, excluded: bool = False) -> str:
    """The column a row counts in besides ``rows``: ``scored``, ``unstarted`` or ``STATUS: REASON``."""
    if outcome is None:
        return "unstarted"
    status = RowStatus(outcome.status)
    if status is RowStatus.SCORED and not excluded:
        return "scored"
    label = "excluded" if status is RowStatus.SCORED else status.value
    return f"{label}: {reason_label(outcome.reason or outcome.result.reason, outcome.detail)}"


def attrition_table(items: Iterable[tuple[str, RowOutcome | None, bool]]) -> dict[str, dict[str, Any]]:
    """``{group: {"rows": n, "scored": n, "invalid: provider_rate_limit": n, ...}}`` plus the ``all`` row.

    `items` are ``(group, selected outcome or None when unstarted, excluded from the score)``. Columns
    appear in a fixed order: rows, scored, then the rest sorted, so every group shares the same header.
    """
    counts: dict[str, dict[str, int]] = {}
    for group, outcome, excluded in items:
        column = attrition_column(outcome, excluded=excluded)
        for key in (group, TOTAL):
            cell = counts.setdefault(key, {})
            cell["rows"] = cell.get("rows", 0) + 1
            cell[column] = cell.get(column, 0) + 1
    columns = sorted({c for cell in counts.values() for c in cell} - {"rows", "scored"})
    order = [k for k in counts if k != TOTAL] + ([TOTAL] if counts else [])
    return {k: {"rows": counts[k]["rows"], "scored": counts[k].get("scored", 0),
                **{c: counts[k].get(c, 0) for c in columns}} for k in order}
