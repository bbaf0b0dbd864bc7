"""Takeover run summaries: the delivery tables (ReqMemBench Tables 2, 4, 17–19) and RQ tables (3, 21–26).

Delivery (C.2, eq. 5): per condition, `n` is the fixed denominator — every planned row of that
condition. `complete_delivery` = rows whose three gates all PASSed / n; `build`, `target`,
`regression` = rows where that gate PASSed / n (agent failures and SKIPPED gates add nothing, and stay
in n). `pending` counts rows still awaiting re-evaluation (HARNESS_ERROR) or lost to harness problems;
while it is non-zero the rates are provisional (`final: false`), never computed over fewer rows.

Diagnostics: per condition, the target scores are re-derived from the frozen responses and the
recorded judge labels, then aggregated by `scoring.aggregate.aggregate_condition`.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from reqbench.core.execute.attrition import attrition_table
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.judges.replay import ReplayJudge
from reqbench.protocols.takeover.delivery.gates import GATES
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.rows import DELIVERY_CONDITIONS, history_condition
from reqbench.protocols.takeover.scoring.aggregate import aggregate_condition
from reqbench.protocols.takeover.scoring.target import TargetScore, score_target


def delivery_table(rows: list[tuple[Row, RowOutcome]]) -> dict[str, dict[str, Any]]:
    """Condition -> {n, complete_delivery, build, target, regression, pending, final, counts}
    (`counts` holds the PASS numerators behind each rate)."""
    by_cond: dict[str, list[RowOutcome]] = defaultdict(list)
    for row, outcome in rows:
        if row.condition in DELIVERY_CONDITIONS:
            by_cond[row.condition].append(outcome)
    table: dict[str, dict[str, Any]] = {}
    for cond in [c for c in DELIVERY_CONDITIONS if c in by_cond]:
        outs = by_cond[cond]
        n = len(outs)
        passes = {g: 0 for g in GATES}
        complete = pending = 0
        for o in outs:
            if o.status is not RowStatus.SCORED:
                pending += 1
                continue
            delivery = o.result.get("delivery") or {}
            complete += delivery.get("decision") == "pass"
            for g in GATES:
                passes[g] += (delivery.get("statuses") or {}).get(g) == "PASS"
        table[cond] = {"n": n, "complete_delivery": complete / n, **{g: passes[g] / n for g in GATES},
                       "pending": pending, "final": pending == 0,
                       "counts": {"complete_delivery": complete, **passes}}
    return table


def _rescore(ctx: SuiteContext, outcomes: list[RowOutcome], condition: str) -> list[TargetScore]:
    with tempfile.TemporaryDirectory() as tmp:
        labels = Path(tmp) / "labels.jsonl"
        labels.write_text("".join(json.dumps(rec) + "\n" for o in outcomes
                                  for rec in (o.result.get("score") or {}).get("judge_records", [])))
        judge = ReplayJudge(labels)
        return [score_target(ctx.instances(o.result["target_id"]), o.result.get("response"), condition, judge)
                for o in outcomes]


def diagnostics_table(ctx: SuiteContext, rows: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """Condition (diag-C1 / diag-C2) -> the RQ1–RQ3 aggregates of that condition."""
    by_cond: dict[str, list[RowOutcome]] = defaultdict(list)
    for row, outcome in rows:
        if row.condition.startswith("diag-") and outcome.result.get("kind") == "diagnostic":
            by_cond[row.condition].append(outcome)
    return {cond: aggregate_condition(_rescore(ctx, outs, history_condition(cond)))
            for cond, outs in sorted(by_cond.items())}


def summarize(ctx: SuiteContext, rows: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """Tables in the report convention ``{table: {row label: {column: value}}}``: `delivery` (rates),
    `delivery_counts` (PASS numerators out of n), and per diagnostic condition `rq1`, `rq2`,
    `rq3_decision`, `rq3_content` and `rq3_exact_decomposition` (Table 28)."""
    delivery = delivery_table(rows)
    diagnostics = diagnostics_table(ctx, rows)
    out: dict[str, Any] = {
        "delivery": {c: {k: v for k, v in r.items() if k != "counts"} for c, r in delivery.items()},
        "delivery_counts": {c: {"n": r["n"], **r["counts"]} for c, r in delivery.items()},
    }
    for part in ("rq1", "rq2", "rq3_decision", "rq3_content"):
        table = {cond: {k: v for k, v in (agg.get(part) or {}).items() if not isinstance(v, dict)}
                 for cond, agg in diagnostics.items() if agg.get(part)}
        if table:
            out[part] = table
    decomposition = {cond: agg["rq3_content"]["exact_decomposition"] for cond, agg in diagnostics.items()
                     if (agg.get("rq3_content") or {}).get("exact_decomposition")}
    if decomposition:
        out["rq3_exact_decomposition"] = decomposition
    out["attrition by reason (rows)"] = attrition_table((r.condition, o, False) for r, o in rows)
    return out
