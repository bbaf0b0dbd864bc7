"""The study's plots, as the `Plot`s a run summary lists (drawn by `report.headline_plots`):

* the protocol's paired measurement (`ProtocolStudy.paired`) per configuration: its task-macro mean (mean of each
  task's mean over its scored rows, every condition) with its cluster-bootstrap interval over tasks, the
  leaderboard's first column;
* per headline metric of the protocol (`report.headline_table`), one bar per configuration (with its
  interval when the run's headline has one);
* the paired differences (`study.pairs.comparisons`): one line per pair of configurations and condition, the
  mean unit-mean difference (first minus second) with its cluster-bootstrap interval over units, as a forest
  plot around 0.

A headline metric no configuration has a number for draws nothing. The HTML report (`study.html`) and the
viewer's study page (`study.view`) show the same plots.
"""

from __future__ import annotations

from reqbench.core.stats.intervals import cluster_bootstrap_mean
from reqbench.core.summary import Interval, Metric, Plot, as_number
from reqbench.study.collect import StudyData
from reqbench.study.pairs import comparisons, study_values
from reqbench.study.report import headline_table


def task_macro(per_task: dict[str, list[float]]) -> Metric:
    """The mean over tasks of each task's mean with its 95% cluster-bootstrap interval over tasks (fewer than
    2 tasks: no interval); n = tasks."""
    means = [sum(v) / len(v) for v in per_task.values() if v]
    if not means:
        return Metric(None, None, 0)
    if len(means) < 2:
        return Metric(means[0], None, 1)
    iv = cluster_bootstrap_mean(means)
    return Metric(iv.estimate, (iv.lo, iv.hi), len(means))  # n = tasks, the unit of the interval


def measure_plot(data: StudyData) -> list[Plot]:
    """The paired measurement's task-macro mean per configuration with its interval ([] without one)."""
    outcome, values = study_values(data)
    if outcome is None or not values:
        return []
    metrics = []
    for by_condition in values.values():
        per_task: dict[str, list[float]] = {}
        for units in by_condition.values():
            for unit, found in units.items():
                per_task.setdefault(unit, []).extend(found)
        metrics.append(task_macro(per_task))
    return [Plot("bar", f"{outcome.name} (task-macro) by configuration", list(values),
                 {outcome.name: [m.value for m in metrics]}, [m.ci for m in metrics], ylabel=outcome.name,
                 drawn_title=f"{outcome.name} by configuration: task-macro mean, 95% cluster bootstrap over tasks")]


def headline_plots(data: StudyData) -> list[Plot]:
    """One bar chart per headline metric: a bar per configuration (study order), with its interval when the
    cell is an estimate that has one."""
    rows = headline_table(data).table.rows
    names = [c.name for c in data.spec.configurations if c.name in rows]
    keys = list(dict.fromkeys(k for name in names for k in rows[name]))
    plots = []
    for key in keys:
        cells = [rows[name].get(key) for name in names]
        heights = [as_number(c.value if isinstance(c, Metric) else c) for c in cells]
        if all(h is None for h in heights):
            continue
        plots.append(Plot("bar", f"{key} by configuration", names, {key: heights},
                          [c.ci if isinstance(c, Metric) else None for c in cells], ylabel=key,
                          drawn_title=f"{key} by configuration ({data.protocol} headline, as each run's report)"))
    return plots


def pairs_plot(data: StudyData) -> list[Plot]:
    """The forest plot of every paired difference by condition ([] without a paired measurement or without two
    configurations that share a condition)."""
    outcome, values = study_values(data)
    found = comparisons(outcome, values) if outcome is not None else []
    if outcome is None or not found:
        return []
    intervals: list[Interval | None] = [None if c.difference.lo is None or c.difference.hi is None
                                        else (c.difference.lo, c.difference.hi) for c in found]
    return [Plot("forest", f"paired difference in {outcome.name} by condition",
                 [f"{c.first} - {c.second} / {c.condition} (n={c.difference.units})" for c in found],
                 {outcome.name: [c.difference.estimate for c in found]}, intervals,
                 ylabel=f"difference in {outcome.name} (first minus second)",
                 drawn_title=f"paired difference in {outcome.name} by condition: mean over {outcome.clusters} of "
                             f"the unit-mean differences, 95% cluster bootstrap over {outcome.clusters}")]


def study_plots(data: StudyData, *, pairs: bool = True) -> list[Plot]:
    """The measurement and headline plots, then (with `pairs`) the forest plot of the paired differences."""
    return measure_plot(data) + headline_plots(data) + (pairs_plot(data) if pairs else [])
