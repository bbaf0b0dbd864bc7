"""The PACE report as a typed `Summary`: the tables of `LoadedSuite.summary_data` (systems, case scores,
loss by symptom, symptom x signal, attrition), headline mean case score (0-100) per system, and the plots
(score distribution per system, points lost by symptom)."""

from __future__ import annotations

from typing import Any

from reqbench.core.summary import Cell, Plot, Summary, as_number

TABLES = ("systems", "case_scores", "loss_by_symptom", "symptom_signal", "attrition by reason (rows)")


def plots(data: dict[str, Any]) -> list[Plot]:
    """Both plots draw judged numbers: they carry the judge, so a heuristic judge is named in their titles."""
    out = []
    judge = str(data.get("judge") or "")
    cases = data.get("case_scores") or {}
    groups = {system: [float(v) for v in scores.values() if isinstance(v, int | float)]
              for system, scores in cases.items()}
    if groups:
        out.append(Plot("distribution", "PACE score distribution by system", list(groups),
                        points=list(groups.values()), ylabel="PACE score (0-100)",
                        drawn_title="PACE score distribution by system (line: mean)", judge=judge))
    losses = data.get("loss_by_symptom") or {}
    if losses:
        symptoms: list[str] = []
        for cells in losses.values():
            symptoms += [s for s in cells if s not in symptoms]
        series = {s: [as_number(cells.get(s)) for cells in losses.values()] for s in symptoms}
        out.append(Plot("grouped", "PACE score lost by symptom", list(losses), series, ylabel="points lost",
                        judge=judge))
    return out


def summary(data: dict[str, Any]) -> Summary:
    systems = data.get("systems") or {}
    ordered = sorted(systems, key=lambda label: "/control:" in label)  # the evaluated systems before the controls
    # a system withheld for unresolved runs shows why (`systems.withheld_note`), never a mean of fewer cases
    headline: dict[str, Cell] = {f"{label} score": systems[label].get("mean") if systems[label].get("mean") is not None
                                 else systems[label].get("score_note") for label in ordered}
    return Summary.build(data, tables=TABLES, headline=headline, plots=plots(data))
