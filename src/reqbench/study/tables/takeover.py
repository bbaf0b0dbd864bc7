"""Takeover comparison tables (ReqMemBench Tables 2 and 4): complete-delivery rate by configuration x
condition, and by harness (the configurations' agent) pooled over its models, each with its Wilson interval
over the fixed denominator n (every planned row of the condition, C.2), read from each run's own report: a
condition with rows pending, invalid or unstarted shows its counts and "no rate yet", as the run's
report does."""

from __future__ import annotations

from typing import Any

from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Metric, Table
from reqbench.protocols.takeover.run.summary import unresolved
from reqbench.study.collect import StudyData
from reqbench.study.readers.takeover import delivery
from reqbench.study.table import StudyTable

ESTIMATOR = ("complete delivery = rows whose build, target and regression gates all PASS / n, n = every planned "
             "row of the condition (ReqMemBench C.2); 95% Wilson score interval")


def _rate(complete: int, n: int) -> Metric:
    return Metric(complete / n if n else None, wilson(complete, n), n)


def _pooled(cells: list[dict[str, Any]]) -> Cell:
    """The rate over the pooled rows of several configurations; while any row is unresolved, the counts and
    "no rate yet", as each run's report shows it."""
    complete, n = sum(c["complete"] for c in cells), sum(c["n"] for c in cells)
    if all(c["final"] for c in cells):
        return _rate(complete, n)
    left = {k: sum(c["unresolved"][k] for c in cells) for k in ("pending", "invalid", "unstarted")}
    return f"{complete}/{n} passed so far, {unresolved(left)}: no rate yet"


def tables(data: StudyData) -> list[StudyTable]:
    by_config = {name: delivery(data.suite, c.outcomes) for name, c in data.configs.items()}
    rows: dict[str, dict[str, Cell]] = {name: {cond: _pooled([v]) for cond, v in cells.items()}
                                        for name, cells in by_config.items()}
    harness: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name, cells in by_config.items():
        agent = data.configs[name].config.agent.split(":", 1)[0]
        for cond, v in cells.items():
            harness.setdefault(agent, {}).setdefault(cond, []).append(v)
    per_harness: dict[str, dict[str, Cell]] = {h: {c: _pooled(v) for c, v in cells.items()}
                                               for h, cells in harness.items()}
    return [StudyTable(Table("complete-delivery rate by configuration x condition", rows), ESTIMATOR),
            StudyTable(Table("complete-delivery rate by harness x condition (pooled over its configurations)",
                             per_harness), ESTIMATOR + "; pooled rows (the mean of the configurations' rates "
                                                       "when each has the same n)")]
