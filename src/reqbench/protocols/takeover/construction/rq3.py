"""RQ3 gold: update the state (ACT) or ask (CLARIFY) (paper 3.2, A.1, B.3; FORMAT.md (f.4)).

For each affected requirement: its target events, semantic before/after states, provenance and delta.
Any OPEN ambiguity left on an affected post-request state is a blocking candidate; the mechanical decision
is CLARIFY when a candidate exists, else ACT, unless `overrides.py` records a reviewed decision. The final
gold is the same under C1 and C2 (only the visible history differs between them).
"""

from __future__ import annotations

import copy
from typing import Any

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.construction.conditions import CONDITIONS
from reqbench.protocols.takeover.construction.overrides import override_for
from reqbench.protocols.takeover.construction.rq_common import TargetContext, envelope, readiness
from reqbench.protocols.takeover.construction.specs import state_scoring_specs
from reqbench.protocols.takeover.construction.states import expand_state, semantic_state, state_delta

REVIEW_NOTE = (
    "An OPEN ambiguity is only a candidate. It becomes blocking Gold after materiality, task relevance, "
    "alternative implementation, and available-evidence checks. C1 and C2 must freeze the same "
    "semantic Gold; a disagreement indicates an Oracle-history or review defect."
)
_RATIONALES = {
    "ACT": "Each affected requirement has one determined post-request state and no open ambiguity blocks it.",
    "CLARIFY": "An open ambiguity on an affected requirement leaves its post-request state undetermined.",
    "OVERRIDE": "Decision fixed by the released benchmark's reviewed decision overrides.",
}


def _expanded(ctx: TargetContext, snap: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    return {rid: expand_state(ctx.graph, rid, sid) for rid, sid in snap}


def transitions(ctx: TargetContext) -> dict[str, dict[str, Any]]:
    """Per affected requirement: event ids/types, semantic before/after, provenance and delta."""
    pre, post = _expanded(ctx, ctx.target.pre), _expanded(ctx, ctx.target.post)
    owner = {e: ctx.graph.requirement_of_event(e) for e in ctx.target.task_event_ids}
    out: dict[str, dict[str, Any]] = {}
    for rid in ctx.target.affected_requirement_ids:
        edges = [ctx.graph.edge(e) for e in ctx.target.task_event_ids if owner[e] == rid]
        before, after = pre.get(rid), post.get(rid)
        out[rid] = {
            "event_ids": [e["event_id"] for e in edges],
            "event_types": [e["event_type"] for e in edges],
            "before": semantic_state(before),
            "after": semantic_state(after),
            "state_provenance": {
                "before_state_id": before["state_id"] if before else None,
                "after_state_id": after["state_id"] if after else None,
                "before_supporting_event_ids": list(before["supporting_event_ids"]) if before else [],
                "after_supporting_event_ids": list(after["supporting_event_ids"]) if after else [],
            },
            "delta": state_delta(before, after),
        }
    return out


def blocking_candidates(ctx: TargetContext) -> list[dict[str, Any]]:
    """One record per OPEN ambiguity on an affected requirement's post-request state (affected order)."""
    post = _expanded(ctx, ctx.target.post)
    out = []
    for rid in ctx.target.affected_requirement_ids:
        for amb_id, amb in ((post.get(rid) or {}).get("ambiguity") or {}).items():
            if amb.get("status") != "OPEN":
                continue
            out.append(
                {
                    "requirement_id": rid,
                    "ambiguity_event_id": amb_id,
                    "dimension": amb.get("dimension"),
                    "field": amb.get("field"),
                    "description": amb.get("description"),
                    "missing_information": amb.get("missing_information") or amb.get("description"),
                    "clarification_question": amb.get("clarification_question"),
                    "source_event_id": amb.get("source_event_id"),
                    "blocking_status": "PENDING_MATERIALITY_REVIEW",
                }
            )
    return out


def blockers_from_candidates(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CLARIFY blockers: candidates de-duplicated by (requirement, dimension, field, description)."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for c in candidates:
        text = str(
            c.get("description")
            or c.get("missing_information")
            or "A material implementation choice remains unresolved."
        ).strip()
        key = (c.get("requirement_id"), c.get("dimension"), c.get("field"), text)
        if key in seen:
            continue
        seen.add(key)
        out.append(
            {
                "requirement_id": c.get("requirement_id"),
                "dimension": c.get("dimension"),
                "field": c.get("field"),
                "missing_information": text,
                "acceptable_question_facts": [
                    "ask the client to resolve the material choice described as: " + text
                ],
            }
        )
    return out


def final_decision(
    ctx: TargetContext, candidates: list[dict[str, Any]]
) -> tuple[str, list[dict[str, Any]], bool]:
    """(decision, blockers, overridden): the override when one exists, else the mechanical candidate."""
    override = override_for(ctx.target.target_id)
    decision = override.decision if override else ("CLARIFY" if candidates else "ACT")
    blockers: list[dict[str, Any]] = []
    if decision == "CLARIFY":
        blockers = (
            override.blocking_clarifications
            if override and override.blocking_clarifications
            else blockers_from_candidates(candidates)
        )
        if not blockers:
            raise InputError("CLARIFY gold without a blocking clarification", item=ctx.target.target_id)
    return decision, blockers, override is not None


def rq3_gold(ctx: TargetContext) -> dict[str, Any]:
    """``construction_gold`` of an RQ3 instance (status FINAL_UPDATE_OR_CLARIFY_GOLD)."""
    trans = transitions(ctx)
    post_states = {rid: t["after"] for rid, t in trans.items() if t["after"] is not None}
    candidates = blocking_candidates(ctx)
    candidate = "CLARIFY" if candidates else "ACT"
    decision, blockers, overridden = final_decision(ctx, candidates)
    final = {
        c: {"decision": "ACT", "post_task_states": copy.deepcopy(post_states), "blocking_clarifications": []}
        if decision == "ACT"
        else {
            "decision": "CLARIFY",
            "post_task_states": None,
            "blocking_clarifications": copy.deepcopy(blockers),
        }
        for c in CONDITIONS
    }
    pre_ids = {rid for rid, _ in ctx.target.pre}
    rationale = _RATIONALES["OVERRIDE" if overridden else decision]
    return {
        "status": "FINAL_UPDATE_OR_CLARIFY_GOLD",
        "project_decision_candidate": {
            "value": candidate,
            "is_final_gold": False,
            "basis": (
                "OPEN ambiguity exists on a directly affected Requirement"
                if candidates
                else "No OPEN ambiguity exists on a directly affected Requirement"
            ),
        },
        "decision_candidates_by_condition": {
            c: {"value": candidate, "status": "PENDING_BLOCKING_AMBIGUITY_REVIEW"} for c in CONDITIONS
        },
        "final_gold_by_condition": final,
        "affected_requirement_ids": list(ctx.target.affected_requirement_ids),
        "affected_requirement_alignment_gold": {
            rid: {"canonical_summary": ctx.graph.graph(rid).title, "introduced": rid not in pre_ids}
            for rid in trans
        },
        "affected_requirement_transitions": trans,
        "post_task_states": post_states,
        "post_state_scoring_specs": state_scoring_specs(post_states),
        "blocking_ambiguity_candidates": candidates,
        "safe_subactions": [],
        "safe_subactions_review_status": "PENDING_MULTI_REQUIREMENT_REVIEW",
        "relevance_review_status": "DETERMINISTIC_DIRECT_AFFECTED_ONLY",
        "review_note": REVIEW_NOTE,
        "review_status": "RELEASE_RULES_APPLIED",
        "review_metadata": {
            "schema_version": "reqbench-release-rules-v1",
            "method": "DETERMINISTIC_REPLAY_OF_RELEASED_REVIEW_RULES",
            "decision_overridden": overridden,
            "condition_gold_consistent": True,
            "decision_rationales": dict.fromkeys(CONDITIONS, rationale),
        },
    }


def build_rq3(ctx: TargetContext) -> dict[str, Any]:
    return {**envelope(ctx, "RQ3"), "construction_gold": rq3_gold(ctx), "readiness": readiness()}
