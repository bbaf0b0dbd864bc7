"""SpecPath comparison tables (SpecPath RQ1-RQ3, Tables 3-4, Fig. 3): FCR by configuration x condition, CPV
given direct success by configuration, any-CPV by model and by scaffold, control deltas by configuration.
Every number comes from `specpath.metrics.summarize_results` (each configuration's rows alone, or all rows
for the by-model and by-scaffold breakdowns)."""

from __future__ import annotations

from typing import Any

from reqbench.core.summary import Cell, Metric, Table
from reqbench.protocols.specpath.metrics import ci_method, summarize_results
from reqbench.study.collect import StudyData
from reqbench.study.readers.specpath import results_rows
from reqbench.study.table import StudyTable


def _metric(value: float | None, ci: list[float | None], n: int) -> Metric:
    lo, hi = ci
    return Metric(value, None if lo is None or hi is None else (lo, hi), n)


def _cpv(v: dict[str, Any]) -> Metric:
    return _metric(v["estimate"], v["ci"], v["eligible"])


def tables(data: StudyData) -> list[StudyTable]:
    rows = {name: results_rows(name, c.config.agent.split(":", 1)[0], c.config.model_label(), c.outcomes)
            for name, c in data.configs.items()}
    stats = {name: summarize_results(r) for name, r in rows.items()}
    pooled = summarize_results([r for rs in rows.values() for r in rs])
    method = ci_method()
    fcr: dict[str, dict[str, Cell]] = {name: {cond: _metric(v["estimate"], v["ci"], v["support"])
                                              for cond, v in s["fcr"].items()} for name, s in stats.items()}
    cpv: dict[str, dict[str, Cell]] = {
        name: {"complete blocks": s["blocks"]["complete"], **{k: _cpv(v) for k, v in s["cpv"].items()}}
        for name, s in stats.items()}
    out = [StudyTable(Table("FCR by configuration x condition (task-macro; n = scored rows)", fcr), method),
           StudyTable(Table("CPV given direct success by configuration (task-macro; n = eligible blocks)", cpv),
                      method)]
    for key, title in (("by_model", "model"), ("by_scaffold", "scaffold")):
        groups = {g: {"any-CPV": _cpv(s["cpv"]["any"]), "positive": s["cpv"]["any"]["positive"],
                      "complete blocks": s["blocks"]["complete"]} for g, s in pooled[key].items()}
        out.append(StudyTable(Table(f"any-CPV by {title} (n = eligible blocks)", groups), method))
    controls = {name: {c: _metric(v["delta"], v["ci"], v["pairs"]) for c, v in s["controls"].items()}
                for name, s in stats.items() if s["controls"]}
    if controls:
        out.append(StudyTable(Table("control delta vs paired direct by configuration (FCR difference; n = pairs)",
                                    controls), method))
    return out
