"""RQ1 gold: relevant requirements and their evidence groups (paper B.2, C.1; FORMAT.md (f.2)).

Relevant = the direct requirements (affected and existing before the request). Evidence scoring asks
for messages that *still support* the pre-request state: one group per current support event, merged
where groups share a message, so any one message of each group counts as finding that support.
"""

from __future__ import annotations

from typing import Any

from reqbench.protocols.takeover.annotation.project import id_key
from reqbench.protocols.takeover.construction.conditions import (
    direct_requirements,
    new_requirements,
    ordered_ids,
    trajectory_before,
    trajectory_message_ids,
    visible_edge_message_ids,
)
from reqbench.protocols.takeover.construction.rq_common import TargetContext, envelope, readiness


def evidence_groups(ctx: TargetContext, support_event_ids: list[str]) -> list[list[Any]]:
    """Candidate groups in support-event order; a candidate overlapping existing groups (by str id) is merged
    into the first of them, absorbing the others, and re-sorted by catalog position."""
    before = ctx.target.position
    groups: list[list[Any]] = []
    for event_id in support_event_ids:
        cand = ordered_ids(
            ctx.project, visible_edge_message_ids(ctx.project, ctx.graph.edge(event_id), before), before
        )
        keys = {id_key(m) for m in cand}
        overlapping = [i for i, g in enumerate(groups) if keys & {id_key(m) for m in g}]
        if not overlapping:
            groups.append(cand)
            continue
        merged = list(groups[overlapping[0]]) + cand
        for i in reversed(overlapping[1:]):
            merged.extend(groups.pop(i))
        groups[overlapping[0]] = ordered_ids(ctx.project, merged, before)
    return groups


def requirement_evidence(ctx: TargetContext, rid: str) -> dict[str, Any]:
    """Current support, trajectory, evidence groups and family context of one relevant requirement."""
    project, graph, before = ctx.project, ctx.graph, ctx.target.position
    node = graph.node(ctx.target.pre_state_id(rid) or "")
    support = list(node["supporting_event_ids"])
    groups = evidence_groups(ctx, support)
    support_ids = ordered_ids(project, [m for g in groups for m in g], before)
    trajectory = trajectory_message_ids(project, graph, rid, before)
    family = graph.graph(rid).family_id
    if family is None:
        family_ids = list(trajectory)
    else:
        siblings = [r for r, _ in ctx.target.pre if graph.graph(r).family_id == family]
        family_ids = ordered_ids(
            project, [m for r in siblings for m in trajectory_message_ids(project, graph, r, before)], before
        )
    support_keys = {id_key(m) for m in support_ids}
    context = [m for m in family_ids if id_key(m) not in support_keys]
    return {
        "current_support_event_ids": support,
        "current_support_message_ids": support_ids,
        "trajectory_event_ids": [e["event_id"] for e in trajectory_before(project, graph, rid, before)],
        "trajectory_message_ids": trajectory,
        "core_message_ids": list(support_ids),
        "required_evidence_groups": [
            {"group_id": f"{rid}_EG{i:03d}", "acceptable_message_ids": g}
            for i, g in enumerate(groups, start=1)
        ],
        "context_message_ids": context,
        "neutral_context_message_ids": list(context),
        "family_trajectory_message_ids": family_ids,
        "context_review_status": "DETERMINISTIC_FAMILY_TRAJECTORY_CONTEXT",
    }


def rq1_gold(ctx: TargetContext) -> dict[str, Any]:
    """``construction_gold`` of an RQ1 instance (status DETERMINISTIC_RQ1_GOLD)."""
    direct = direct_requirements(ctx.target)
    evidence = {rid: requirement_evidence(ctx, rid) for rid in direct}
    atoms = {}
    for rid in direct:
        g, ev = ctx.graph.graph(rid), evidence[rid]
        atoms[rid] = {
            "canonical_summary": g.title,
            "requirement_title": g.title,
            "family_id": g.family_id,
            "required_evidence_groups": [dict(x) for x in ev["required_evidence_groups"]],
            "neutral_context_message_ids": list(ev["neutral_context_message_ids"]),
            "family_trajectory_message_ids": list(ev["family_trajectory_message_ids"]),
            "trajectory_message_ids": list(ev["trajectory_message_ids"]),
        }
    return {
        "status": "DETERMINISTIC_RQ1_GOLD",
        "gold_unit": "INDEPENDENT_REQUIREMENT_ATOM",
        "atomization_rule": "ONE_REQUIREMENT_GRAPH_EQUALS_ONE_GOLD_ATOM",
        "relevant_requirement_ids": list(direct),
        "gold_requirement_atoms": atoms,
        "directly_affected_historical_requirement_ids": list(direct),
        "inherited_constraint_requirement_ids": [],
        "new_requirement_ids": new_requirements(ctx.target),
        "evidence": evidence,
        "derivation_scope": "DIRECT_AFFECTED_ONLY",
        "review_status": "DETERMINISTIC_DIRECT_AFFECTED_ONLY",
    }


def build_rq1(ctx: TargetContext) -> dict[str, Any]:
    return {**envelope(ctx, "RQ1"), "construction_gold": rq1_gold(ctx), "readiness": readiness()}
