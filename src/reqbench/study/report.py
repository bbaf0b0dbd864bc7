"""`reqbench study report`: the study's tables as one JSON payload, terminal tables and an HTML page.

Sections, in order: the configurations (settings and row accounting), their cost and effort (`study.cost`),
each run's own headline, the protocol's paper-shaped comparison tables (`ProtocolStudy.tables`, its
``protocols/<name>/study.py``), the repetition tables (execution repeats vs judging repetitions, judge label
stability: `study.repetition_tables`), and -- with ``pairs`` -- the paired differences between configurations
(`study.pairs`). Every table names its estimator once (`StudyTable.estimator`);
every estimate is a `Metric` with its interval and ``n``.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.protocol_study import StudyTable
from reqbench.core.summary import Cell, SummaryTable
from reqbench.study.collect import StudyData
from reqbench.study.cost import cost_table, study_costs
from reqbench.study.pairs import pairs_tables
from reqbench.study.repetition_tables import repetition_tables


def configurations_table(data: StudyData) -> StudyTable:
    """One row per configuration: its settings and the accounting of its rows (`RunStore.counts`)."""
    rows: dict[str, dict[str, Cell]] = {}
    for config in data.spec.configurations:
        stored = data.configs.get(config.name)
        counts = stored.counts if stored else {}
        rows[config.name] = {"agent": config.agent, "model": config.model, "judge": config.judge or "(default)",
                             **{k: counts.get(k, 0) for k in ("planned", "scored", "pending", "invalid",
                                                              "unstarted")}}
    return StudyTable(SummaryTable("configurations", rows))


def headline_table(data: StudyData) -> StudyTable:
    """Each configuration's run headline (the protocol's `Summary.headline`), as `reqbench report` shows it,
    keyed by configuration: a headline named after the run's agent (PACE ``reference/prd score``) drops the
    agent, so configurations of different agents share one column (``prd score``)."""
    rows: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        agents = {f"{row.agent}/" for row, _ in stored.outcomes}
        headline = data.suite.summarize(stored.outcomes).headline
        rows[name] = {_without(key, agents): cell for key, cell in headline.items()}
    return StudyTable(SummaryTable("headline by configuration", rows),
                      "as each run's report (`reqbench report runs/<name>`), the agent left out of its names")


def _without(key: str, prefixes: set[str]) -> str:
    return next((key[len(p):] for p in prefixes if key.startswith(p)), key)


def protocol_tables(data: StudyData) -> list[StudyTable]:
    """The paper-shaped tables of the study's protocol (`ProtocolStudy.tables`; [] for a protocol without any,
    or before any configuration has rows)."""
    if not data.configs:
        return []
    return data.protocol_study.tables(data.rows())


def study_tables(data: StudyData, *, pairs: bool = False) -> list[StudyTable]:
    """Every table of the report, in order."""
    tables = [configurations_table(data), cost_table(data), headline_table(data), *protocol_tables(data),
              *repetition_tables(data)]
    return tables + pairs_tables(data) if pairs else tables


def study_payload(data: StudyData, *, pairs: bool = False) -> dict[str, Any]:
    """The JSON document `reqbench study report --json` prints."""
    spec = data.spec
    costs = study_costs(data)
    return {
        "study": {"dir": str(data.study.path), "suite": spec.suite, "protocol": data.protocol,
                  "conditions": spec.conditions, "repeats": spec.repeats, "seed": spec.seed},
        "configurations": {c.name: {"agent": c.agent, "model": c.model, "judge": c.judge,
                                    "agent_opts": c.agent_opts, "run_dir": str(data.study.run_dir(c.name)),
                                    "counts": data.configs[c.name].counts if c.name in data.configs else None,
                                    "cost": costs[c.name].to_json() if c.name in costs else None}
                           for c in spec.configurations},
        "tables": [t.to_json() for t in study_tables(data, pairs=pairs)],
    }
