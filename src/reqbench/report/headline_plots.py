"""Per-protocol plots of the headline metrics, with intervals where the summary (or its counts) has them.

takeover: complete-delivery rate by condition (Wilson 95% interval from the delivery counts);
specpath: the summary's own plots (FCR by condition with its cluster-bootstrap interval, CPV);
journey: Proc and Final F2P by persona; pace: score distribution per system and losses by symptom.
Any other protocol gets the plots its summary lists under ``"plots"``.
"""

from __future__ import annotations

import math
from typing import Any

from reqbench.report.plots import bar_chart, distribution_chart, grouped_bar_chart, summary_plots


def wilson(successes: float, n: float, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None when n is 0)."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def takeover_plots(summary: dict[str, Any]) -> list[tuple[str, bytes]]:
    delivery = summary.get("delivery") or {}
    counts = summary.get("delivery_counts") or {}
    labels, values, cis = [], [], []
    for condition, cells in delivery.items():
        labels.append(condition)
        values.append(_num(cells.get("complete_delivery")))
        c = counts.get(condition) or {}
        cis.append(wilson(c.get("complete_delivery", 0), c.get("n", 0)) if c else None)
    out = []
    if labels:
        title = "complete-delivery rate by condition (95% Wilson interval)"
        out.append((title, bar_chart(labels, values, title=title, ylabel="delivery rate", ci=cis)))
    for table, column, ylabel in (("rq3_decision", "balanced_accuracy", "balanced accuracy"),
                                  ("rq2", "attribute_score", "attribute score")):
        rows = summary.get(table) or {}
        if rows:
            title = f"{table}: {ylabel} by condition"
            out.append((title, bar_chart(list(rows), [_num(r.get(column)) for r in rows.values()],
                                         title=title, ylabel=ylabel)))
    return out


def journey_plots(summary: dict[str, Any]) -> list[tuple[str, bytes]]:
    rows = {k: v for k, v in summary.items() if isinstance(v, dict) and "proc_f2p" in v}
    if not rows:
        return []
    series = {"Proc F2P": [_num(v.get("proc_f2p")) for v in rows.values()],
              "Final F2P": [_num(v.get("final_f2p")) for v in rows.values()]}
    title = "Proc and Final F2P by persona"
    out = [(title, grouped_bar_chart(list(rows), series, title=title, ylabel="fail-to-pass rate"))]
    conf = [_num(v.get("user_confidence")) for v in rows.values()]
    if any(c is not None for c in conf):
        out.append(("final user confidence by persona",
                    bar_chart(list(rows), conf, title="final user confidence by persona",
                              ylabel="confidence (0-100)")))
    return out


def pace_plots(summary: dict[str, Any]) -> list[tuple[str, bytes]]:
    out = []
    cases = summary.get("case_scores") or {}
    groups = {system: [v for v in scores.values() if isinstance(v, int | float)]
              for system, scores in cases.items() if isinstance(scores, dict)}
    if groups:
        out.append(("PACE score distribution by system",
                    distribution_chart(groups, title="PACE score distribution by system (line: mean)",
                                       ylabel="PACE score (0-100)")))
    losses = summary.get("loss_by_symptom") or {}
    if losses:
        symptoms: list[str] = []
        for cells in losses.values():
            symptoms += [s for s in cells if s not in symptoms]
        series = {s: [_num(cells.get(s)) for cells in losses.values()] for s in symptoms}
        out.append(("PACE score lost by symptom",
                    grouped_bar_chart(list(losses), series, title="PACE score lost by symptom",
                                      ylabel="points lost")))
    return out


_BY_PROTOCOL = {"takeover": takeover_plots, "journey": journey_plots, "pace": pace_plots}


def headline_plots(protocol_name: str, summary: dict[str, Any]) -> list[tuple[str, bytes]]:
    """``(title, png)`` of the protocol's headline metrics."""
    own = summary_plots(summary)
    extra = _BY_PROTOCOL.get(protocol_name)
    return own + (extra(summary) if extra else [])
