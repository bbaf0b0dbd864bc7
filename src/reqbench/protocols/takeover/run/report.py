"""Takeover run summaries: the delivery tables (ReqMemBench Tables 2, 4, 17–19) and RQ tables (3, 21–26).

Delivery (C.2, eq. 5): per condition, `n` is the fixed denominator — every planned row of that
condition (each delivery target in every repeat), whether or not it has started. `complete_delivery` =
rows whose three gates all PASSed / n; `build`, `target`, `regression` = rows where that gate PASSed / n
(agent failures and SKIPPED gates add nothing, and stay in n). `pending` counts rows awaiting
re-evaluation (HARNESS_ERROR, judge down), `invalid` rows lost to harness problems, `unstarted` planned
rows without an attempt. The condition is `final` only when all three are zero; until then no rate is
reported (null), only the PASS counts (`delivery_counts`), as the paper reports no rate while items are
unresolved.

Diagnostics: per condition, the target scores are re-derived from the frozen responses and the
recorded judge labels, then aggregated by `scoring.aggregate.aggregate_condition`; while planned rows of
the condition are pending, invalid (lost to the harness: their agent-failure zeros are no evidence) or
unstarted, every rate of that condition is withheld likewise.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.execute.attrition import attrition_table
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.judges.exact import EXACT_JUDGE_ID
from reqbench.core.judges.replay import ReplayJudge
from reqbench.protocols.takeover.delivery.gates import GATES
from reqbench.protocols.takeover.run.consistency_tables import consistency_tables
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.row_result import DeliveryDecision, TakeoverResult
from reqbench.protocols.takeover.run.rows import DELIVERY_CONDITIONS, DIAGNOSTIC_CONDITIONS, history_condition
from reqbench.protocols.takeover.scoring.aggregate import aggregate_condition
from reqbench.protocols.takeover.scoring.target import TargetScore, score_target

Planned = dict[str, list[tuple[str, int]]]
"""Condition -> its planned (target id, repeat) pairs: the fixed denominator."""


def planned_rows(rows: Sequence[tuple[Row, RowOutcome]], delivery_ids: Sequence[str],
                 all_ids: Sequence[str]) -> Planned:
    """The fixed denominator of every condition that has a row in `rows` (C.2, §4.1: "Rates use all 37
    targets per configuration and condition"): each delivery target (delivery conditions) or each
    target (diagnostic conditions) in every repeat of the run, plus any stored row outside that set."""
    repeats = sorted({row.repeat for row, _ in rows})
    out: Planned = {}
    for cond in dict.fromkeys(row.condition for row, _ in rows):
        ids = delivery_ids if cond in DELIVERY_CONDITIONS else all_ids
        keys = [(t, r) for r in repeats for t in ids]
        seen = set(keys)
        keys += [(row.task_id, row.repeat) for row, _ in rows
                 if row.condition == cond and (row.task_id, row.repeat) not in seen]
        out[cond] = keys
    return out


def _unstarted(rows: Sequence[tuple[Row, RowOutcome]], planned: Planned, cond: str) -> int:
    started = {(row.task_id, row.repeat) for row, _ in rows if row.condition == cond}
    return sum(1 for key in planned.get(cond, []) if key not in started)


def unresolved_rows(rows: Sequence[tuple[Row, RowOutcome]], planned: Planned | None, cond: str) -> dict[str, int]:
    """``{pending, invalid, unstarted}``: the planned rows of `cond` that hold no scored outcome yet."""
    statuses = [o.status for row, o in rows if row.condition == cond]
    return {"pending": statuses.count(RowStatus.PENDING), "invalid": statuses.count(RowStatus.INVALID),
            "unstarted": _unstarted(rows, planned, cond) if planned is not None else 0}


def delivery_table(rows: Sequence[tuple[Row, RowOutcome]], planned: Planned | None = None,
                   ) -> dict[str, dict[str, Any]]:
    """Condition -> {n, complete_delivery, build, target, regression, pending, invalid, unstarted, final,
    counts, rows_with_skipped_tests} (`counts` holds the PASS numerators behind each rate; rates are null
    unless `final`; a gate whose runner skipped tests never PASSes, and such rows are counted).
    Without `planned`, the rows given are the plan."""
    by_cond: dict[str, list[RowOutcome]] = defaultdict(list)
    for row, outcome in rows:
        if row.condition in DELIVERY_CONDITIONS:
            by_cond[row.condition].append(outcome)
    table: dict[str, dict[str, Any]] = {}
    for cond in [c for c in DELIVERY_CONDITIONS if c in by_cond]:
        outs = by_cond[cond]
        unstarted = _unstarted(rows, planned, cond) if planned is not None else 0
        n = len(outs) + unstarted
        passes = {g: 0 for g in GATES}
        complete = pending = invalid = skipped = 0
        for o in outs:
            if o.status is not RowStatus.SCORED:
                pending += o.status is RowStatus.PENDING
                invalid += o.status is RowStatus.INVALID
                continue
            delivery = TakeoverResult.of(o.result).delivery or DeliveryDecision()
            complete += delivery.decision == "pass"
            skipped += bool(delivery.skipped_tests)
            for g in GATES:
                passes[g] += delivery.statuses.get(g) == "PASS"
        final = pending == invalid == unstarted == 0
        counts = {"complete_delivery": complete, **passes}
        table[cond] = {"n": n, **{k: v / n if final and n else None for k, v in counts.items()},
                       "pending": pending, "invalid": invalid, "unstarted": unstarted, "final": final,
                       "counts": counts, "rows_with_skipped_tests": skipped}
    return table


def _rescore(ctx: SuiteContext, outcomes: list[RowOutcome], condition: str) -> list[TargetScore]:
    with tempdirs.folder("takeover-report") as tmp:
        labels = Path(tmp) / "labels.jsonl"
        results = [TakeoverResult.of(o.result) for o in outcomes]
        labels.write_text("".join(json.dumps(rec) + "\n" for r in results for rec in _judge_records(r)))
        judge = ReplayJudge(labels)
        return [score_target(ctx.instances(str(r.target_id)), r.response, condition, judge) for r in results]


def _judge_records(result: TakeoverResult) -> list[dict[str, Any]]:
    return result.score.judge_records if result.score else []


def withhold_rates(aggregate: dict[str, Any], unresolved: dict[str, int]) -> dict[str, Any]:
    """`aggregate` with ``unresolved`` (pending, invalid, unstarted rows) and ``n_unstarted``; while any is
    non-zero every rate (float) of every RQ block is null (C.2: "A check reports HARNESS_ERROR -- No ...
    Rate reported yet"; unfinished items are pending; the complete aggregate is withheld until they are)."""
    out = {**aggregate, "unresolved": dict(unresolved), "n_unstarted": unresolved.get("unstarted", 0)}
    if not any(unresolved.values()):
        return out
    for part in ("rq1", "rq2", "rq3_decision", "rq3_content"):
        block = out.get(part)
        if isinstance(block, dict):
            out[part] = {k: None if isinstance(v, float) else v for k, v in block.items()}
    return out


TWO_PHASE_CONDITIONS = ("two-phase-C1", "two-phase-C2")


def rq_scored(row: Row, outcome: RowOutcome) -> bool:
    """Rows whose Phase-A answer enters the RQ tables: diagnostic rows, and two-phase rows with their own
    frozen answer, the one that drove their delivery (§1, E.3: the benchmark's linked two-phase evaluation
    scores the response it codes from). Each condition is its own row of the tables."""
    result = TakeoverResult.of(outcome.result)
    if row.condition in DIAGNOSTIC_CONDITIONS:
        return result.kind == "diagnostic"
    return row.condition in TWO_PHASE_CONDITIONS and result.score is not None


EXACT_LABEL = "exact: string-identity lower bound"
"""How an RQ table scored by the offline `exact` judge is labelled: its rules accept only (normalised)
identical texts, so every semantic number it gives is a lower bound of what the paper's judge would give."""


def rq_judge(outcomes: Sequence[RowOutcome]) -> str:
    """Which judge produced a condition's RQ numbers: the judge ids of the accepted judge calls its rows
    recorded (``exact`` labelled `EXACT_LABEL`), or ``no judge call`` when none was needed."""
    ids = sorted({str(rec.get("judge_id")) for o in outcomes for rec in _judge_records(TakeoverResult.of(o.result))
                  if rec.get("accepted", True) and rec.get("judge_id")})
    return "; ".join(EXACT_LABEL if i == EXACT_JUDGE_ID else i for i in ids) or "no judge call"


def rq_scores(ctx: SuiteContext, rows: Sequence[tuple[Row, RowOutcome]]) -> dict[str, list[TargetScore]]:
    """Condition (diag-C1 / diag-C2 / two-phase-C1 / two-phase-C2) -> the target scores of its own rows
    (`rq_scored`), re-derived from the frozen answers and the recorded judge labels."""
    by_cond: dict[str, list[RowOutcome]] = defaultdict(list)
    for row, outcome in rows:
        if rq_scored(row, outcome):
            by_cond[row.condition].append(outcome)
    return {cond: _rescore(ctx, outs, history_condition(cond)) for cond, outs in sorted(by_cond.items())}


def diagnostics_table(scores: dict[str, list[TargetScore]], rows: Sequence[tuple[Row, RowOutcome]],
                      planned: Planned | None = None) -> dict[str, Any]:
    """Condition -> the RQ1–RQ3 aggregates of that condition (rates withheld while planned rows are pending,
    invalid or unstarted); a diagnostic condition whose rows hold no answer to score is listed too."""
    conditions = sorted({*scores, *(row.condition for row, _ in rows if row.condition in DIAGNOSTIC_CONDITIONS)})
    return {cond: withhold_rates(aggregate_condition(scores.get(cond, [])), unresolved_rows(rows, planned, cond))
            for cond in conditions}


def summarize(ctx: SuiteContext, rows: Sequence[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """Tables in the report convention ``{table: {row label: {column: value}}}``: `delivery` (rates),
    `delivery_counts` (PASS numerators out of n, with the unresolved rows), and per diagnostic condition
    `rq1`, `rq2`, `rq3_decision`, `rq3_content` (each row naming the judge that produced it, `rq_judge`),
    `rq3_exact_decomposition` (Table 28) and the cross-RQ consistency tables (`consistency_tables`, C.3)."""
    planned = planned_rows(rows, [d.target_id for d in ctx.suite.delivery], ctx.target_ids())
    delivery = delivery_table(rows, planned)
    scores = rq_scores(ctx, rows)
    diagnostics = diagnostics_table(scores, rows, planned)
    out: dict[str, Any] = {
        "delivery": {c: {k: v for k, v in r.items() if k not in ("counts", "rows_with_skipped_tests")}
                     for c, r in delivery.items()},
        "delivery_counts": {c: {"n": r["n"], **r["counts"], "pending": r["pending"], "invalid": r["invalid"],
                                "unstarted": r["unstarted"], "rows_with_skipped_tests": r["rows_with_skipped_tests"]}
                            for c, r in delivery.items()},
    }
    judges = {cond: rq_judge([o for r, o in rows if r.condition == cond and rq_scored(r, o)])
              for cond in diagnostics}
    for part in ("rq1", "rq2", "rq3_decision", "rq3_content"):
        table = {cond: {"judge": judges[cond]}
                 | {k: v for k, v in (agg.get(part) or {}).items() if not isinstance(v, dict)}
                 | (agg["unresolved"] if part == "rq3_decision" else {})
                 for cond, agg in diagnostics.items() if agg.get(part)}
        if table:
            out[part] = table
    decomposition = {cond: agg["rq3_content"]["exact_decomposition"] for cond, agg in diagnostics.items()
                     if (agg.get("rq3_content") or {}).get("exact_decomposition")}
    if decomposition:
        out["rq3_exact_decomposition"] = decomposition
    out.update(consistency_tables(scores))  # C.3 / E.2: flagged for human review
    started = {(r.condition, r.task_id, r.repeat): o for r, o in rows}
    out["attrition by reason (rows)"] = attrition_table(
        (cond, started.get((cond, t, rep)), False) for cond, keys in planned.items() for t, rep in keys)
    return out
