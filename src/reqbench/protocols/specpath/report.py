"""Plain-text rendering of the SpecPath statistics dict (what `specpath stats` prints without --json).

The report keeps the paper's separation: condition-level FCR with support first, then block coverage,
then any- and per-variant CPV with positive/eligible counts, then control deltas with pair counts.
"""

from __future__ import annotations

from typing import Any

from reqbench.protocols.specpath.metrics import NO_INTERVAL


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
             "FCR (task-macro)              estimate   95% CI            support"]
    for cond, v in summary["fcr"].items():
        lines.append(f"  {cond:28} {_pct(v['estimate'])}   {_ci(v['ci'])}   {v['support']}")
    b = summary["blocks"]
    lines += ["", f"blocks: {b['possible']} possible, {b['complete']} complete, {b['eligible']} eligible "
                  "(complete with direct success)", "",
              "CPV (task-macro, | direct ok)  estimate   95% CI            positive/eligible"]
    for name, v in summary["cpv"].items():
        lines.append(f"  {name:28} {_pct(v['estimate'])}   {_ci(v['ci'])}   {v['positive']}/{v['eligible']}")
    if summary.get("controls"):
        lines += ["", "control − paired direct        delta (pp)  95% CI            pairs"]
        for name, v in summary["controls"].items():
            d = "   n/a" if v["delta"] is None else f"{100 * v['delta']:+6.1f}"
            lines.append(f"  {name:28} {d}     {_ci(v['ci'])}   {v['pairs']}")
    for key, title in (("by_family", "family"), ("by_scaffold", "scaffold"), ("by_model", "model")):
        groups = summary.get(key) or {}
        if not groups:
            continue
        lines += ["", f"by {title:24} direct FCR  any-CPV  positive/eligible  complete blocks"]
        for name, g in groups.items():
            d, a = g["fcr"].get("direct", {}).get("estimate"), g["cpv"]["any"]
            ratio = f"{a['positive']}/{a['eligible']}"
            blocks = g["blocks"]["complete"]
            lines.append(f"  {name:26}    {_pct(d)}   {_pct(a['estimate'])}  {ratio:18} {blocks}")
    att = summary.get("attrition") or {}
    if att:
        columns = list(next(iter(att.values())))
        lines += ["", "attrition by reason (rows)", "  " + " | ".join(["config", *columns])]
        lines += ["  " + " | ".join([name, *(str(v[c]) for c in columns)]) for name, v in att.items()]
    lines += ["", f"intervals: {summary['method']}"]
    if any("no_interval" in v for v in [*summary["fcr"].values(), *summary["cpv"].values()]):
        lines.append(f"  n/a intervals: {NO_INTERVAL}")
    return "\n".join(lines)


def _cell(estimate: float | None, ci: list[float | None]) -> dict[str, Any]:
    return {"value": estimate, "ci": ci}


def report_tables(summary: dict[str, Any]) -> dict[str, Any]:
    """The statistics in the shared summary convention (`report.tables`): one table per question, support
    next to every estimate, bar charts of FCR and CPV with their intervals."""
    fcr = {c: {"FCR": _cell(v["estimate"], v["ci"]), "scored": v["support"]}
           for c, v in summary["fcr"].items()}
    cpv = {k: {"CPV": _cell(v["estimate"], v["ci"]), "positive": v["positive"], "eligible": v["eligible"]}
           for k, v in summary["cpv"].items()}
    out: dict[str, Any] = {
        "rows scored": summary["rows"]["scored"], "rows invalid (attrition)": summary["rows"]["invalid"],
        "blocks possible": summary["blocks"]["possible"], "blocks complete": summary["blocks"]["complete"],
        "blocks eligible": summary["blocks"]["eligible"], "intervals": summary["method"],
        "FCR by condition (task-macro)": fcr,
        "CPV given direct success (task-macro)": cpv,
    }
    if summary.get("controls"):
        out["control delta vs paired direct"] = {
            c: {"delta": _cell(v["delta"], v["ci"]), "pairs": v["pairs"]}
            for c, v in summary["controls"].items()}
    if summary.get("attrition"):
        out["attrition by reason (rows)"] = summary["attrition"]
    out["FCR by family"] = {f: {c: v["estimate"] for c, v in s["fcr"].items()}
                            for f, s in summary["by_family"].items()}
    for key, title in (("by_family", "family"), ("by_scaffold", "scaffold"), ("by_model", "model")):
        out[f"any-CPV by {title}"] = {g: {"CPV": s["cpv"]["any"]["estimate"],
                                          "positive": s["cpv"]["any"]["positive"],
                                          "eligible": s["cpv"]["any"]["eligible"],
                                          "complete blocks": s["blocks"]["complete"]}
                                      for g, s in summary[key].items()}
    out["plots"] = [
        {"table": "FCR by condition (task-macro)", "column": "FCR", "title": "FCR by condition",
         "ylabel": "FCR (task-macro)"},
        {"table": "CPV given direct success (task-macro)", "column": "CPV", "title": "CPV by variant",
         "ylabel": "CPV (task-macro)"}]
    return out
