"""SpecPath in a study (`SuiteProtocol.study`, `core.protocol_study`): final-contract success per row as the
paired value, on families; each stored row as the protocol's results row (`specpath.suite.result_row`), with
the configuration's name as its ``config``, its agent as ``scaffold`` and its model deployment as ``model``,
so the protocol's own statistics (`specpath.metrics.summarize_results`) group by configuration and by model;
and the comparison tables (SpecPath RQ1-RQ3, Tables 3-4, Fig. 3): FCR by configuration x condition, CPV
given direct success by configuration, any-CPV by model and by scaffold, control deltas by configuration.
Every number comes from `summarize_results` (each configuration's rows alone, or all rows for the by-model
and by-scaffold breakdowns)."""

from __future__ import annotations

import dataclasses
from typing import Any

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.core.protocol_study import PairedOutcome, ProtocolStudy, StudyRows, StudyTable
from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.protocols.specpath.metrics import ResultRow, ci_method, summarize_results
from reqbench.protocols.specpath.result_rows import result_row

PAIRED = PairedOutcome("final-contract success", binary=True, clusters="families", unit="family")


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """1 for a scored success, 0 for a scored (fixed-budget) failure, None for attrition (SpecPath "Run
    processing": only scored outcomes enter paired blocks)."""
    r = result_row(row, outcome)
    return None if not r.scored else float(r.success)


def results_rows(config: str, scaffold: str, model: str, outcomes: list[tuple[Row, RowOutcome]]) -> list[ResultRow]:
    """A configuration's rows as results rows labelled with the configuration, its scaffold and its model."""
    return [dataclasses.replace(result_row(row, outcome), config=config, scaffold=scaffold, model=model)
            for row, outcome in outcomes]


def _metric(value: float | None, ci: list[float | None], n: int) -> Metric:
    lo, hi = ci
    return Metric(value, None if lo is None or hi is None else (lo, hi), n)


def _cpv(v: dict[str, Any]) -> Metric:
    return _metric(v["estimate"], v["ci"], v["eligible"])


def tables(data: StudyRows) -> list[StudyTable]:
    rows = {name: results_rows(name, c.agent.split(":", 1)[0], c.model, c.outcomes)
            for name, c in data.configs.items()}
    stats = {name: summarize_results(r) for name, r in rows.items()}
    pooled = summarize_results([r for rs in rows.values() for r in rs])
    method = ci_method()
    fcr: dict[str, dict[str, Cell]] = {name: {cond: _metric(v["estimate"], v["ci"], v["support"])
                                              for cond, v in s["fcr"].items()} for name, s in stats.items()}
    cpv: dict[str, dict[str, Cell]] = {
        name: {"complete blocks": s["blocks"]["complete"], **{k: _cpv(v) for k, v in s["cpv"].items()}}
        for name, s in stats.items()}
    out = [StudyTable(SummaryTable("FCR by configuration x condition (task-macro; n = scored rows)", fcr), method),
           StudyTable(SummaryTable("CPV given direct success by configuration (task-macro; n = eligible blocks)", cpv),
                      method)]
    for key, title in (("by_model", "model"), ("by_scaffold", "scaffold")):
        groups = {g: {"any-CPV": _cpv(s["cpv"]["any"]), "positive": s["cpv"]["any"]["positive"],
                      "complete blocks": s["blocks"]["complete"]} for g, s in pooled[key].items()}
        out.append(StudyTable(SummaryTable(f"any-CPV by {title} (n = eligible blocks)", groups), method))
    controls = {name: {c: _metric(v["delta"], v["ci"], v["pairs"]) for c, v in s["controls"].items()}
                for name, s in stats.items() if s["controls"]}
    if controls:
        out.append(
            StudyTable(
                SummaryTable("control delta vs paired direct by configuration (FCR difference; n = pairs)", controls),
                method,
            )
        )
    return out


class SpecPathStudy(ProtocolStudy):
    """Final-contract success on families and the FCR, CPV and control tables (no judge labels)."""

    paired = PAIRED

    paired_value = staticmethod(paired_value)
    tables = staticmethod(tables)


STUDY = SpecPathStudy()
