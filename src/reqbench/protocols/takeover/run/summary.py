"""The takeover report as a typed `Summary`: the tables of `report.summarize`, the headline numbers
(complete-delivery rate per delivery condition, RQ3 decision accuracy per diagnostic one) and the plots; the
cell of one rate as the report shows it (`delivery_cell`, `rq_cell`), which study tables reuse.

A condition that is not final (rows pending, invalid or unstarted) shows no rate in the headline (delivery
and RQ3 decision accuracy alike) or the plots, only its counts (C.2: no rate is reported until every item
of the fixed denominator is resolved).
"""

from __future__ import annotations

from typing import Any

from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Interval, Plot, Summary, as_number


def unresolved(counts: dict[str, Any]) -> str:
    """``"2 pending, 1 unstarted"``: the unresolved rows of a condition (empty when there is none)."""
    return ", ".join(f"{counts[k]} {k}" for k in ("pending", "invalid", "unstarted") if counts.get(k))


def delivery_cell(rates: dict[str, Any], counts: dict[str, Any], column: str = "complete_delivery") -> Cell:
    """A condition's `column` rate (complete delivery, or one gate: build, target, regression) when it is
    final, else ``"1/5 passed so far, 2 invalid: no rate yet"`` (`rates`: a row of the ``delivery`` table;
    `counts`: its ``delivery_counts`` row)."""
    if rates.get("final", True):
        value: Cell = rates[column]
        return value
    return f"{counts.get(column, 0)}/{rates['n']} passed so far, {unresolved(rates)}: no rate yet"


def rq_cell(data: dict[str, Any], part: str, condition: str, column: str) -> Cell:
    """The `column` of a diagnostic condition's row in RQ table `part` (``rq1``, ``rq2``, ``rq3_decision``,
    ``rq3_content``) as the report shows it, or ``"2 pending, 1 invalid: no rate yet"`` while planned rows
    of the condition are pending, invalid or unstarted (the row counts of ``rq3_decision``) or the part's own
    judge answers are pending (``rq3_decision`` falls back on ``rq3_content``'s, as its rates wait for them)."""
    rows = (data.get("rq3_decision") or {}).get(condition) or {}
    own = "rq3_content" if part == "rq3_decision" else part
    left = {"pending": rows.get("pending") or ((data.get(own) or {}).get(condition) or {}).get("pending"),
            "invalid": rows.get("invalid"), "unstarted": rows.get("unstarted")}
    if unresolved(left):
        return f"{unresolved(left)}: no rate yet"
    value: Cell = ((data.get(part) or {}).get(condition) or {}).get(column)
    return value


def headline(data: dict[str, Any]) -> dict[str, Cell]:
    """Complete-delivery rate per delivery condition and RQ3 decision accuracy per diagnostic one; where a
    condition is not final, its counts and what is unresolved instead of a rate."""
    counts = data.get("delivery_counts") or {}
    out: dict[str, Cell] = {f"{c} delivery": delivery_cell(r, counts.get(c) or r)
                            for c, r in (data.get("delivery") or {}).items()}
    for c in data.get("rq3_decision") or {}:
        out[f"{c} RQ3 decision acc."] = rq_cell(data, "rq3_decision", c, "decision_accuracy")
    return out


def plots(data: dict[str, Any]) -> list[Plot]:
    """Complete-delivery rate by condition with its Wilson 95% interval from the delivery counts, RQ3
    balanced accuracy and RQ2 attribute score by condition."""
    delivery = data.get("delivery") or {}
    counts = data.get("delivery_counts") or {}
    labels: list[str] = []
    values: list[float | None] = []
    cis: list[Interval | None] = []
    for condition, cells in delivery.items():
        labels.append(condition)
        values.append(as_number(cells.get("complete_delivery")))
        c = counts.get(condition) or {}
        final = cells.get("final", True) and values[-1] is not None
        cis.append(wilson(c.get("complete_delivery", 0), c.get("n", 0)) if c and final else None)
    out = []
    if labels:
        title = "complete-delivery rate by condition (95% Wilson interval)"
        if any(v is None for v in values):
            title += "; no bar: rows still unresolved"
        out.append(Plot("bar", title, labels, {"delivery rate": values}, cis, ylabel="delivery rate"))
    for table, column, ylabel in (("rq3_decision", "balanced_accuracy", "balanced accuracy"),
                                  ("rq2", "attribute_score", "attribute score")):
        rows = data.get(table) or {}
        if rows:
            out.append(Plot("bar", f"{table}: {ylabel} by condition", list(rows),
                            {ylabel: [as_number(r.get(column)) for r in rows.values()]}, ylabel=ylabel))
    return out


def summary(data: dict[str, Any]) -> Summary:
    """Every key of the report document is a table (`report.summarize`)."""
    return Summary.build(data, tables=list(data), headline=headline(data), plots=plots(data))
