"""Plain-text rendering of the SpecPath statistics dict (what `specpath stats` prints without --json).

The report keeps the paper's separation: condition-level FCR with support first, then block coverage,
then any- and per-variant CPV with positive/eligible counts, then control deltas with pair counts.
"""

from __future__ import annotations

from typing import Any


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def _ci(ci: list[float | None]) -> str:
    lo, hi = ci
    if lo is None or hi is None:
        return "[   n/a ]"
    return f"[{100 * lo:5.1f}, {100 * hi:5.1f}]"


def render_text(summary: dict[str, Any]) -> str:
    lines = [f"rows: {summary['rows']['total']} total, {summary['rows']['scored']} scored, "
             f"{summary['rows']['invalid']} invalid (attrition)", "",
             "FCR (task-macro)            estimate   95% CI            support"]
    for cond, v in summary["fcr"].items():
        lines.append(f"  {cond:26} {_pct(v['estimate'])}   {_ci(v['ci'])}   {v['support']}")
    b = summary["blocks"]
    lines += ["", f"blocks: {b['possible']} possible, {b['complete']} complete, {b['eligible']} eligible "
                  "(complete with direct success)", "",
              "CPV (task-macro, | direct success)  estimate   95% CI            positive/eligible"]
    for name, v in summary["cpv"].items():
        lines.append(f"  {name:33} {_pct(v['estimate'])}   {_ci(v['ci'])}   {v['positive']}/{v['eligible']}")
    if summary.get("controls"):
        lines += ["", "control delta vs paired direct   delta (pp)   95% CI            pairs"]
        for name, v in summary["controls"].items():
            d = "   n/a" if v["delta"] is None else f"{100 * v['delta']:+6.1f}"
            lines.append(f"  {name:31} {d}       {_ci(v['ci'])}   {v['pairs']}")
    lines += ["", f"intervals: {summary['method']}"]
    return "\n".join(lines)
