"""A harbor run's summary: the mean reward over scored rows (Harbor's metric), with a bootstrap interval,
and the mean reward per task."""

from __future__ import annotations

from reqbench.core.execute.types import RowStatus
from reqbench.core.stats.intervals import bootstrap_mean
from reqbench.protocols.base import Metric, Outcomes, Summary, Table
from reqbench.protocols.harbor.result import HarborResult

ESTIMATOR = "mean reward over scored rows (n = rows); 95% percentile bootstrap interval of the mean"


def reward_metric(values: list[float]) -> Metric:
    """The mean of `values` with its bootstrap interval and n (`ESTIMATOR`)."""
    if not values:
        return Metric(None, None, 0)
    iv = bootstrap_mean(values)
    return Metric(sum(values) / len(values), (iv.lo, iv.hi), len(values))


def summarize(outcomes: Outcomes) -> Summary:
    by_task: dict[str, list[float]] = {}
    for row, out in outcomes:
        if out.status == RowStatus.SCORED:
            by_task.setdefault(row.task_id, []).append(HarborResult.of(out.result).reward)
    every = [v for vs in by_task.values() for v in vs]
    mean = reward_metric(every)
    table = Table("mean reward by task", {t: {"rows": len(v), "mean reward": reward_metric(v)}
                                         for t, v in sorted(by_task.items())})
    return Summary(overview={"scored rows": len(every)}, tables=[table] if table.rows else [],
                   headline={"mean reward": mean},
                   data={"mean reward": mean.to_json(),
                         "tasks": {t: reward_metric(v).to_json() for t, v in by_task.items()}})
