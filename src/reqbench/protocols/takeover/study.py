"""Takeover in a study (`SuiteProtocol.study`, `core.protocol_study`): complete delivery (ReqMemBench C.2,
eq. 5: all three gates PASS) per row as the paired value, read through the protocol's own `delivery_table`,
on targets; and the paper-shaped comparison tables, each read from the configurations' own run reports
(`run_report`: the cells its headline and tables show, "no rate yet" included): complete-delivery rate by
configuration x condition and by harness (ReqMemBench Tables 2 and 4); the build, target and regression gate
pass rates (Table 4, Tables 17-19); and the RQ1-RQ3 diagnostics (Table 3, Tables 21-26), each with the
equal-weight mean over configurations (`equal_weight_mean`). The semantic judge's accepted labels (the row's
``score.judge_records``) feed the label-stability audit.

Delivery rates carry their Wilson interval over the fixed denominator n (every planned row of the condition,
C.2). A condition with rows pending, invalid or unstarted shows its counts and "no rate yet", exactly as the
run's report does, and withholds the mean of its condition."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.suite import Suite
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.protocol_study import PairedOutcome, ProtocolStudy, StudyRows, StudyTable
from reqbench.core.stats.intervals import wilson
from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.protocols.takeover.run.report import delivery_table
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.protocols.takeover.run.summary import delivery_cell, rq_cell, unresolved

PAIRED = PairedOutcome("complete delivery", binary=True, clusters="targets", unit="target")


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """1 when the row's three gates all passed, 0 for a scored row that did not; None for a row that is not
    scored (pending, invalid) or not a delivery row (a diagnostic condition)."""
    if outcome.status is not RowStatus.SCORED:
        return None
    cell = delivery_table([(row, outcome)]).get(row.condition)
    return None if cell is None else float(cell["complete_delivery"])


def run_report(suite: Suite, outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """The tables of the run's own report (`suite.summarize`) over a configuration's rows: what
    ``reqbench report runs/<configuration>`` shows, read once per configuration."""
    data = dict(suite.summarize(outcomes).data)
    return data


def delivery(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Condition -> ``{n, complete, final, unresolved, shown}`` from a run's report (`run_report`): the fixed
    denominator (every planned row of the condition), the rows whose three gates passed, whether every
    planned row is resolved, the pending/invalid/unstarted counts, and the cell the run's headline shows
    (the rate, or "k/n passed so far, ...: no rate yet")."""
    counts = report.get("delivery_counts") or {}
    return {cond: {"n": r["n"], "complete": counts[cond]["complete_delivery"], "final": r["final"],
                   "unresolved": {k: r[k] for k in ("pending", "invalid", "unstarted")},
                   "shown": delivery_cell(r, counts[cond])}
            for cond, r in (report.get("delivery") or {}).items()}


GATE_COLUMNS = {"build": "build", "target": "target", "regression": "regression",
                "complete delivery": "complete_delivery"}
"""Table 4's columns (the three gates and all three) -> the run report's ``delivery`` column."""


def gate_cells(report: dict[str, Any]) -> dict[str, dict[str, Cell]]:
    """Delivery condition -> gate -> the run report's cell: `Metric` (rate = PASS rows / n, its Wilson
    interval and n) when the condition is final, else ``"k/n passed so far, ...: no rate yet"``."""
    counts = report.get("delivery_counts") or {}
    out: dict[str, dict[str, Cell]] = {}
    for cond, rates in (report.get("delivery") or {}).items():
        row: dict[str, Cell] = {}
        for label, column in GATE_COLUMNS.items():
            shown = delivery_cell(rates, counts[cond], column)
            passed, n = counts[cond][column], rates["n"]
            row[label] = Metric(shown, wilson(passed, n), n) if isinstance(shown, float) else shown
        out[cond] = row
    return out


def rq_cells(report: dict[str, Any], part: str, columns: tuple[str, ...]) -> dict[str, dict[str, Cell]]:
    """Condition -> column -> the run report's cell of RQ table `part` (`rq_cell`: the value, None where the
    metric is N/A, or "...: no rate yet"), plus the ``judge`` that produced the row."""
    rows = report.get(part) or {}
    return {cond: {"judge": row.get("judge")} | {c: rq_cell(report, part, cond, c) for c in columns}
            for cond, row in rows.items()}


def judge_labels(outcome: RowOutcome) -> dict[str, str]:
    """``CONTRACT:REQUEST/CANDIDATE`` -> label of every accepted judge answer of the row's RQ1-RQ3 scoring
    (the request key names the request by content, so repetitions of the same frozen response line up)."""
    score = TakeoverResult.of(outcome.result).score
    records = score.judge_records if score else []
    out: dict[str, str] = {}
    for record in records:
        if not isinstance(record, dict) or not record.get("accepted"):
            continue
        where = f"{record.get('contract', '?')}:{str(record.get('request_key', ''))[:16]}"
        for candidate, label in (record.get("labels") or {}).items():
            out[f"{where}/{candidate}"] = str(label)
    return out


ESTIMATOR = ("complete delivery = rows whose build, target and regression gates all PASS / n, n = every planned "
             "row of the condition (ReqMemBench C.2); 95% Wilson score interval")
MEAN_ROW = "equal-weight mean"
MEAN_RULE = (f"'{MEAN_ROW}' = the mean over configurations of each configuration's rate, each weighing the "
             "same (ReqMemBench 4.2, Table 3 'mean across all configurations', Table 4); withheld (no rate yet) "
             "while any configuration has no rate, N/A when the metric is N/A for any")

RQ_TABLES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("rq1", "RQ1 relevant-information identification (ReqMemBench Table 3, Table 21a)",
     ("requirement_precision", "requirement_recall", "requirement_f1",
      "evidence_precision", "evidence_recall", "evidence_f1"), ()),
    ("rq2", "RQ2 pre-request state reconstruction (ReqMemBench Table 3, Tables 21b-22)",
     ("coverage", "attribute_score"), ("n_attribute",)),
    ("rq3_decision", "RQ3 ACT/CLARIFY decision (ReqMemBench Table 23)",
     ("decision_accuracy", "balanced_accuracy", "act_recall", "clarify_recall"), ()),
    ("rq3_content", "RQ3 post-state and clarification (ReqMemBench Tables 24-26)",
     ("post_state_score", "exact_accuracy", "blocking_issue_f1", "question_validity", "strict_clarification",
      "conditional_post_state", "matched_set_post_state"), ("correct_act_count", "matched_set_count")),
)
"""Run-report table, study-table title, its rate columns (averaged over configurations) and its count
columns (per configuration only: a count has no equal-weight mean in the paper)."""


def equal_weight_mean(cells: dict[str, Cell | None], missing: list[str]) -> Cell:
    """The equal-weight mean of one metric over configurations (ReqMemBench 4.2: "Results are aggregated
    separately for each configuration before taking an equal-weight average across the six configurations";
    Table 3's "Mean across all configurations", Table 4's "Means weight their configurations equally"):
    with K configurations and r_k the rate configuration k's run report shows, the mean is (1/K) sum_k r_k,
    whatever each configuration's n (pooling their rows would weigh a configuration by its row count).

    `cells`: configuration -> its cell. Withheld -- ``"no rate yet: ref-a has none"`` -- when any
    configuration has no rate yet (its rows pending, invalid or unstarted: its cell is text) or no row of the
    condition (`missing`); None (N/A) when the metric is N/A (None) for any configuration, as the protocol's
    own means over configurations (`scoring.aggregate.aggregate_run`)."""
    waiting = [name for name, cell in cells.items() if isinstance(cell, str)]
    if waiting or missing:
        return "no rate yet: " + "; ".join([*(f"{m} has none" for m in waiting), *(f"{m} has no row" for m in missing)])
    values = [c.value if isinstance(c, Metric) else c for c in cells.values()]
    if not values or any(not isinstance(v, int | float) or isinstance(v, bool) for v in values):
        return None
    return sum(float(v) for v in values if v is not None) / len(values)


def _by_condition(per_config: dict[str, dict[str, dict[str, Cell]]], means: tuple[str, ...],
                  ) -> dict[str, dict[str, Cell]]:
    """Rows ``CONFIGURATION / CONDITION`` grouped by condition, each condition closed by its equal-weight mean
    row over `means` (every configuration counts: one without a row of the condition withholds it)."""
    rows: dict[str, dict[str, Cell]] = {}
    conditions = list(dict.fromkeys(c for cells in per_config.values() for c in cells))
    for cond in conditions:
        for name, cells in per_config.items():
            if cond in cells:
                rows[f"{name} / {cond}"] = cells[cond]
        present = {name: cells[cond] for name, cells in per_config.items() if cond in cells}
        missing = [name for name in per_config if name not in present]
        rows[f"{MEAN_ROW} / {cond}"] = {c: equal_weight_mean({name: cells.get(c) for name, cells in present.items()},
                                                             missing) for c in means}
    return rows


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


def _delivery_tables(data: StudyRows, reports: dict[str, dict[str, Any]]) -> list[StudyTable]:
    by_config = {name: delivery(report) for name, report in reports.items()}
    rows: dict[str, dict[str, Cell]] = {name: {cond: _pooled([v]) for cond, v in cells.items()}
                                        for name, cells in by_config.items()}
    harness: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name, cells in by_config.items():
        agent = data.configs[name].agent.split(":", 1)[0]
        for cond, v in cells.items():
            harness.setdefault(agent, {}).setdefault(cond, []).append(v)
    per_harness: dict[str, dict[str, Cell]] = {h: {c: _pooled(v) for c, v in cells.items()}
                                               for h, cells in harness.items()}
    return [StudyTable(SummaryTable("complete-delivery rate by configuration x condition", rows), ESTIMATOR),
            StudyTable(SummaryTable("complete-delivery rate by harness x condition (pooled over its configurations)",
                                    per_harness), ESTIMATOR + "; pooled rows (the mean of the configurations' rates "
                                                       "when each has the same n)")]


def tables(data: StudyRows) -> list[StudyTable]:
    reports = {name: run_report(data.suite, c.outcomes) for name, c in data.configs.items()}
    out = _delivery_tables(data, reports)
    gates = {name: gate_cells(report) for name, report in reports.items()}
    if any(gates.values()):
        out.append(StudyTable(SummaryTable("gate pass rates by configuration x condition (ReqMemBench Table 4)",
                                           _by_condition(gates, tuple(GATE_COLUMNS))),
                              "gate = rows where it PASSed / n, n = every planned row of the condition (C.2); "
                              f"95% Wilson score interval; {MEAN_RULE}"))
    for part, title, means, counts in RQ_TABLES:
        per_config = {name: rq_cells(report, part, means + counts) for name, report in reports.items()}
        if any(per_config.values()):
            out.append(StudyTable(SummaryTable(f"{title} by configuration x condition",
                                               _by_condition(per_config, means)),
                                  "macro-averaged over the condition's applicable targets per configuration "
                                  f"(ReqMemBench C.2, E.2), as each run's report shows it; {MEAN_RULE}"))
    return out


class TakeoverStudy(ProtocolStudy):
    """Complete delivery on targets, the delivery, gate and RQ tables, the semantic judge's labels (nominal:
    EQUIVALENT, SAME_STATE_VARIABLE, VALID, ...)."""

    paired = PAIRED
    judge_labelled = True

    paired_value = staticmethod(paired_value)
    tables = staticmethod(tables)
    judge_labels = staticmethod(judge_labels)


STUDY = TakeoverStudy()
