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

ESTIMATOR = ("score: equal-weight mean over every planned case of the case's mean over its repeats, interval mean "
             "+- 1 SE (sample SD of the case means / sqrt(n), PACE §4.1), n = planned cases; withheld, as in the "
             "run's report, while a planned run is unresolved; success rate: mean over cases of the share of "
             "complete runs, 95% Wilson score interval when each case has one run (none over repeats)")


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
            mean, se, n = s["mean"], s["se"], s["n_cases"]
            runs = sum(1 for _ in items)
            rows[f"{name} / {condition}"] = {
                "score": (Metric(mean, None if se is None else (mean - se, mean + se), n) if mean is not None
                          else s.get("score_note")),
                # withheld (None, no interval) when the token-overlap heuristic judged (`success_rate_note`)
                "success rate": (Metric(s["success_rate"], wilson(completed(items), n) if runs == n else None, n)
                                 if s["success_rate"] is not None else s.get("success_rate_note")
                                 or s.get("score_note")),
                "cases": n, **verdict_counts(items)}
    return [StudyTable(Table("PACE system table by configuration", rows), ESTIMATOR)]
