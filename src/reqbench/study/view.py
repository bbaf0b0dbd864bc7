"""What ``reqbench view STUDY_DIR`` shows on its study page: a `report.viewer.study_model.StudyView` built
from the study's own tables (headline by configuration, paired differences, every report table), its plots
(`study.plots`, drawn) and, per configuration, each row's measurement from the protocol's study hook
(`ProtocolStudy.paired_value`), so the viewer renders it without knowing the protocol.

The leaderboard leads with the task-macro mean measurement and its cluster-bootstrap interval over tasks,
then each run's headline metrics; the heatmap is the task-macro mean measurement per configuration x
condition (n = tasks); the row-by-row form lines up two configurations' rows on (task, condition, repeat)
for reading them side by side (the tests of `study.pairs` compare unit means, not rows).
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.report.headline_plots import headline_plots
from reqbench.report.viewer.study_model import StudyRow, StudyView
from reqbench.study.collect import collect
from reqbench.study.cost import NUMERIC, ConfigCost, study_costs
from reqbench.study.layout import RUNS_DIR
from reqbench.study.pairs import pairs_tables
from reqbench.study.plots import study_plots, task_macro
from reqbench.study.report import headline_table, study_tables

LEADERBOARD_NOTE = ("{measure}: task-macro mean (mean of each task's mean over its scored rows), 95% percentile "
                    "cluster bootstrap over tasks (fewer than 2 tasks: no interval), n = tasks with a scored row; "
                    "then each run's headline metrics as `reqbench report` gives them; then its cost and effort "
                    "(`study report`'s cost table: recorded model calls, tokens, USD, agent and row time); "
                    "click a column to sort by it")
HEATMAP_NOTE = "task-macro mean {measure} of each configuration x condition (n = tasks, on hover); one " \
               "colour scale from the lowest mean (red) to the highest (green)"


def study_view(path: Path) -> StudyView:
    """The study page of the study in `path` (`InputError` when it is not one)."""
    data = collect(path)
    study = data.protocol_study
    measure = study.paired.name if study.paired is not None else "score"
    rows: dict[str, list[StudyRow]] = {}
    grid: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        found: list[StudyRow] = []
        sums: dict[str, dict[str, list[float]]] = {}
        for row, outcome in stored.outcomes:
            value = study.paired_value(row, outcome)
            found.append(StudyRow((row.task_id, row.condition, row.repeat), row.key, outcome.status.value,
                                  None if value is None else float(value)))
            bucket = sums.setdefault(row.condition, {})
            if value is not None:
                bucket.setdefault(row.task_id, []).append(float(value))
        rows[name] = found
        grid[name] = {c: _task_macro(per) for c, per in sums.items()}
    headline = headline_table(data).table
    costs = study_costs(data)
    board = SummaryTable("leaderboard", {name: {f"{measure} (task-macro)": _macro(found), **headline.rows.get(name, {}),
                                                **_effort(costs.get(name))} for name, found in rows.items()})
    pairs = pairs_tables(data)
    heat = SummaryTable(f"{measure} by configuration x condition", grid)
    tables = study_tables(data, pairs=True)
    notes = {t.table.title: t.estimator for t in tables}
    notes[heat.title] = HEATMAP_NOTE.format(measure=measure)
    notes[board.title] = LEADERBOARD_NOTE.format(measure=measure)
    return StudyView(title=f"study {data.study.path.name} ({data.protocol})", measure=measure,
                     runs={c: f"{RUNS_DIR}/{c}" for c in data.configs}, leaderboard=board,
                     heatmap=heat, rows=rows, pairs=pairs[0].table if pairs else None, notes=notes,
                     tables=[(t.table, t.estimator) for t in tables], plots=headline_plots(study_plots(data)))


def _task_macro(per: dict[str, list[float]]) -> Metric:
    """The mean over tasks of each task's mean (its repeats), no interval; n = tasks."""
    means = [sum(v) / len(v) for v in per.values() if v]
    return Metric(sum(means) / len(means) if means else None, None, len(means))


def _effort(cost: ConfigCost | None) -> dict[str, Cell]:
    """The leaderboard's cost and effort columns (numbers: it sorts by them)."""
    cells = cost.cells() if cost is not None else {}
    return {name: cells.get(name) for name in NUMERIC}


def _macro(rows: list[StudyRow]) -> Metric:
    """Task-macro mean of the scored rows with its cluster-bootstrap interval over tasks; n = tasks."""
    per: dict[str, list[float]] = {}
    for row in rows:
        if row.value is not None:
            per.setdefault(row.pair[0], []).append(row.value)
    return task_macro(per)
