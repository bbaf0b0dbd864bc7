"""PACE comparison table (PACE-Bench Table 2): per configuration and condition, the equal-weight case mean
+- standard error, the success rate, support, and the Covered/Partial/Missing verdict counts -- from the
protocol's own system summary (`LoadedSuite.summary_data`)."""

from __future__ import annotations

from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Metric, Table
from reqbench.study.collect import Outcomes, StudyData
from reqbench.study.readers import relabelled
from reqbench.study.readers.pace import completed, systems, verdict_counts
from reqbench.study.table import StudyTable

ESTIMATOR = ("score: equal-weight case mean, interval mean +- 1 SE (sample SD / sqrt(n), PACE §4.1), n = scored "
             "cases; success rate: complete cases / all cases, 95% Wilson score interval")


def tables(data: StudyData) -> list[StudyTable]:
    rows: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        outcomes = relabelled(name, stored.outcomes)
        by_condition: dict[str, Outcomes] = {}
        for row, outcome in outcomes:
            by_condition.setdefault(row.condition, []).append((row, outcome))
        found = systems(data.suite, outcomes)
        for condition, items in by_condition.items():
            s = found[f"{name}/{condition}"]
            mean, se, n = s["mean"], s["se"], s["n_scored"]
            rows[f"{name} / {condition}"] = {
                "score": Metric(mean, None if mean is None or se is None else (mean - se, mean + se), n),
                # withheld (None, no interval) when the token-overlap heuristic judged (`success_rate_note`)
                "success rate": (Metric(s["success_rate"], wilson(completed(items), s["n_cases"]), s["n_cases"])
                                 if s["success_rate"] is not None else s.get("success_rate_note")),
                "cases": s["n_cases"], **verdict_counts(items)}
    return [StudyTable(Table("PACE system table by configuration", rows), ESTIMATOR)]
