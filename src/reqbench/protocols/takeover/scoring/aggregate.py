"""Aggregation of target scores (ReqMemBench 4.2, C.2, E.2): per target, then macro-averaged over the
applicable targets of one configuration and condition, then an equal-weight mean over configurations.

Pending targets (a judge answer is missing) withhold the aggregate of the RQ they affect — the
number is reported as null with a pending count, never computed over fewer targets. Agent failures
stay in every denominator with 0 (their decision counts as wrong).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from reqbench.protocols.takeover.scoring.rq3 import EXACT_STAGES
from reqbench.protocols.takeover.scoring.target import TargetScore


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the non-null values; None when there is none."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def rq1_means(scores: Sequence[TargetScore]) -> dict[str, Any] | None:
    """RQ1 (Table 21a): requirement and evidence P/R/F1 per target, macro-averaged over every target
    with an RQ1 instance under C1 (349 in the paper). None when no target has RQ1."""
    rows = [s.rq1 for s in scores if s.rq1 is not None]
    if not rows:
        return None
    pending = sum(1 for r in rows if r.status == "pending")
    out: dict[str, Any] = {"n": len(rows), "pending": pending}
    for unit in ("requirement", "evidence"):
        for m in ("precision", "recall", "f1"):
            vals = [getattr(getattr(r, unit), m) if getattr(r, unit) else None for r in rows]
            out[f"{unit}_{m}"] = None if pending else mean(vals)
    return out


def rq2_means(scores: Sequence[TargetScore]) -> dict[str, Any] | None:
    """RQ2 (Table 21b, 22): Requirement Coverage averaged over all targets with RQ2; Attribute
    Reconstruction Score averaged over targets where it is not a legitimate N/A (agent-failure zeros
    kept), with that count as ``n_attribute``."""
    rows = [s.rq2 for s in scores if s.rq2 is not None]
    if not rows:
        return None
    pending = sum(1 for r in rows if r.status == "pending")
    attr = [r.attribute_score for r in rows if r.attribute_score is not None]
    return {"n": len(rows), "pending": pending,
            "coverage": None if pending else mean(r.coverage for r in rows),
            "attribute_score": None if pending else mean(attr),
            "n_attribute": None if pending else len(attr)}


def decision_metrics(scores: Sequence[TargetScore]) -> dict[str, Any]:
    """RQ3 decisions (Table 23), over every target of the condition (349 in the paper).

    Decision Accuracy = correct decisions / all targets; ACT Recall = Gold-ACT targets decided ACT /
    Gold-ACT targets; CLARIFY Recall likewise; Balanced Accuracy = mean of the two recalls (N/A when a
    class is absent). Always-ACT reference: accuracy = #Gold-ACT / #targets, balanced accuracy 0.5.
    Lower-is-better rates count agent failures as 1: unnecessary clarification = Gold-ACT targets not
    decided ACT / Gold-ACT; unsupported autonomy = Gold-CLARIFY targets not decided CLARIFY / Gold-CLARIFY.
    Agent failures are wrong decisions."""
    rq3 = [s.rq3 for s in scores]
    n = len(rq3)
    act = [r for r in rq3 if r.gold_decision == "ACT"]
    clar = [r for r in rq3 if r.gold_decision == "CLARIFY"]
    act_recall = sum(r.decision == "ACT" for r in act) / len(act) if act else None
    clar_recall = sum(r.decision == "CLARIFY" for r in clar) / len(clar) if clar else None
    return {
        "n": n, "n_gold_act": len(act), "n_gold_clarify": len(clar),
        "decision_accuracy": sum(r.decision_correct for r in rq3) / n if n else None,
        "act_recall": act_recall, "clarify_recall": clar_recall,
        "balanced_accuracy": (act_recall + clar_recall) / 2
        if act_recall is not None and clar_recall is not None else None,
        "always_act_accuracy": len(act) / n if n else None,
        "always_act_balanced_accuracy": 0.5 if act and clar else None,
        "unnecessary_clarification_rate": 1 - act_recall if act_recall is not None else None,
        "unsupported_autonomy_rate": 1 - clar_recall if clar_recall is not None else None,
    }


def content_metrics(scores: Sequence[TargetScore]) -> dict[str, Any]:
    """RQ3 branch content (Tables 24, 25, 26, 28).

    Over Gold-ACT targets: Post-State Score and Exact Post-State Accuracy (wrong branch and failures
    0). Over Gold-CLARIFY targets: Blocking-Issue F1, Question Validity, strict clarification success.
    Conditional Post-State: mean over Gold-ACT targets decided ACT (count reported). Matched set:
    those with #pred = #gold = #matched > 0, count and mean Post-State. Exact decomposition: each
    Gold-ACT target counted under its first unmet condition (action, set, state, removal) or exact.
    Withheld (null) while any target of the condition is pending in RQ3."""
    rq3 = [s.rq3 for s in scores]
    pending = sum(1 for r in rq3 if r.status == "pending")
    act = [r for r in rq3 if r.gold_decision == "ACT"]
    clar = [r for r in rq3 if r.gold_decision == "CLARIFY"]
    correct_act = [r for r in act if r.decision == "ACT"]
    matched = [r for r in correct_act if r.matched_set]
    out: dict[str, Any] = {
        "pending": pending,
        "post_state_score": mean(r.post_state_score for r in act),
        "exact_accuracy": mean(float(bool(r.exact)) for r in act),
        "blocking_issue_f1": mean(r.blocking_issue_f1 for r in clar),
        "question_validity": mean(r.question_validity for r in clar),
        "strict_clarification": mean(float(bool(r.strict_clarification)) for r in clar),
        "correct_act_count": len(correct_act),
        "conditional_post_state": mean(r.post_state_score for r in correct_act),
        "matched_set_count": len(matched),
        "matched_set_post_state": mean(r.post_state_score for r in matched),
        "exact_decomposition": {stage: sum(r.exact_failure == stage for r in act) for stage in EXACT_STAGES}
        | {"exact": sum(bool(r.exact) for r in act)},
    }
    if pending:
        out = {k: (None if k not in ("pending",) else v) for k, v in out.items()}
    return out


def aggregate_condition(scores: Sequence[TargetScore]) -> dict[str, Any]:
    """Every aggregate of one configuration and condition."""
    return {
        "n_targets": len(scores),
        "n_agent_failures": sum(s.status == "agent_failure" for s in scores),
        "n_pending": sum(s.status == "pending" for s in scores),
        "rq1": rq1_means(scores) if any(s.condition == "C1" for s in scores) else None,
        "rq2": rq2_means(scores),
        "rq3_decision": decision_metrics(scores),
        "rq3_content": content_metrics(scores),
        "consistency_flags": sum(len(s.consistency.flags) for s in scores if s.consistency),
    }


def shared_act(c1: Sequence[TargetScore], c2: Sequence[TargetScore]) -> dict[str, Any]:
    """Table 26 (right): Gold-ACT targets decided ACT under both C1 and C2 of one configuration;
    their count and the mean Post-State under each condition (paired targets)."""
    ok1 = {s.target_id: s for s in c1 if s.rq3.gold_decision == "ACT" and s.rq3.decision == "ACT"}
    ok2 = {s.target_id: s for s in c2 if s.rq3.gold_decision == "ACT" and s.rq3.decision == "ACT"}
    shared = sorted(set(ok1) & set(ok2))
    return {"shared_act_count": len(shared),
            "shared_post_state_c1": mean(ok1[t].rq3.post_state_score for t in shared),
            "shared_post_state_c2": mean(ok2[t].rq3.post_state_score for t in shared)}


def aggregate_run(scores: dict[str, dict[str, list[TargetScore]]]) -> dict[str, Any]:
    """`scores[configuration][condition]` -> per-configuration aggregates and the equal-weight mean
    over configurations (each configuration-level number weighs the same, C.2)."""
    per_config: dict[str, Any] = {}
    for config, by_cond in sorted(scores.items()):
        entry: dict[str, Any] = {cond: aggregate_condition(rows) for cond, rows in sorted(by_cond.items())}
        if "C1" in by_cond and "C2" in by_cond:
            entry["shared"] = shared_act(by_cond["C1"], by_cond["C2"])
        per_config[config] = entry
    return {"configurations": per_config, "mean": _mean_tree(list(per_config.values()))}


def _mean_tree(trees: list[Any]) -> Any:
    """Equal-weight mean of numeric leaves present in the trees (null when any tree has it null)."""
    if not trees:
        return None
    first = next((t for t in trees if t is not None), None)
    if isinstance(first, dict):
        keys = [k for k in first if all(isinstance(t, dict) and k in t for t in trees)]
        return {k: _mean_tree([t[k] for t in trees]) for k in keys}
    if all(isinstance(t, int | float) and not isinstance(t, bool) for t in trees):
        return sum(trees) / len(trees)
    return None
