"""A harbor run's summary: the mean reward over scored rows (Harbor's metric), with a bootstrap interval,
and per task the mean reward and the rows whose verifier left no reward (scored 0, never a pass: the
verdict ``no reward written`` or ``verifier error``, `rewards.verdict`)."""

from __future__ import annotations

from reqbench.core.execute.types import RowStatus
from reqbench.core.stats.intervals import bootstrap_mean
from reqbench.protocols.base import Metric, Outcomes, Summary, SummaryTable
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
    unrewarded: dict[str, int] = {}
    for row, out in outcomes:
        if out.status == RowStatus.SCORED:
            result = HarborResult.of(out.result)
            by_task.setdefault(row.task_id, []).append(result.reward)
            unrewarded[row.task_id] = unrewarded.get(row.task_id, 0) + (result.rewards is None)
    every = [v for vs in by_task.values() for v in vs]
    mean = reward_metric(every)
    table = SummaryTable("mean reward by task", {t: {"rows": len(v), "mean reward": reward_metric(v),
                                                     "no reward": unrewarded[t]}
                                         for t, v in sorted(by_task.items())})
    return Summary(overview={"scored rows": len(every), "rows without a reward": sum(unrewarded.values())},
                   tables=[table] if table.rows else [],
                   headline={"mean reward": mean},
                   data={"mean reward": mean.to_json(),
                         "tasks": {t: reward_metric(v).to_json() for t, v in by_task.items()}})
