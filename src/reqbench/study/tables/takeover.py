"""Takeover comparison tables (ReqMemBench Tables 2 and 4): complete-delivery rate by configuration x
condition, and by harness (the configurations' agent) pooled over its models, each with its Wilson interval
over the fixed denominator n (every planned row of the condition, C.2)."""

from __future__ import annotations

from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Metric, Table
from reqbench.study.collect import StudyData
from reqbench.study.readers.takeover import delivery
from reqbench.study.table import StudyTable

ESTIMATOR = ("complete delivery = rows whose build, target and regression gates all PASS / n, n = every planned "
             "row of the condition (ReqMemBench C.2); 95% Wilson score interval")


def _rate(complete: int, n: int) -> Metric:
    return Metric(complete / n if n else None, wilson(complete, n), n)


def tables(data: StudyData) -> list[StudyTable]:
    by_config = {name: delivery(c.outcomes) for name, c in data.configs.items()}
    rows: dict[str, dict[str, Cell]] = {name: {cond: _rate(v["complete"], v["n"]) for cond, v in cells.items()}
                                        for name, cells in by_config.items()}
    harness: dict[str, dict[str, list[int]]] = {}
    for name, cells in by_config.items():
        agent = data.configs[name].config.agent.split(":", 1)[0]
        for cond, v in cells.items():
            pooled = harness.setdefault(agent, {}).setdefault(cond, [0, 0])
            pooled[0] += v["complete"]
            pooled[1] += v["n"]
    per_harness: dict[str, dict[str, Cell]] = {h: {c: _rate(k, n) for c, (k, n) in cells.items()}
                                               for h, cells in harness.items()}
    return [StudyTable(Table("complete-delivery rate by configuration x condition", rows), ESTIMATOR),
            StudyTable(Table("complete-delivery rate by harness x condition (pooled over its configurations)",
                             per_harness), ESTIMATOR + "; pooled rows (the mean of the configurations' rates "
                                                       "when each has the same n)")]
