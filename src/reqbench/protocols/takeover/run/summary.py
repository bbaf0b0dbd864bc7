"""The takeover report as a typed `Summary`: the tables of `report.summarize`, the headline numbers
(complete-delivery rate per delivery condition, RQ3 decision accuracy per diagnostic one) and the plots.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Interval, Plot, Summary, as_number


def headline(data: dict[str, Any]) -> dict[str, Cell]:
    out: dict[str, Cell] = {f"{c} delivery": r["complete_delivery"] for c, r in (data.get("delivery") or {}).items()}
    out |= {f"{c} RQ3 decision acc.": r.get("decision_accuracy")
            for c, r in (data.get("rq3_decision") or {}).items()}
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
        cis.append(wilson(c.get("complete_delivery", 0), c.get("n", 0)) if c else None)
    out = []
    if labels:
        title = "complete-delivery rate by condition (95% Wilson interval)"
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
