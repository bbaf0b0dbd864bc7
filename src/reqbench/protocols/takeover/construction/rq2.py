"""RQ2 gold: typed pre-request states of the relevant requirements (paper 3.2, C.1; FORMAT.md (f.3)).

The gold state of each direct requirement is its semantic pre-request state; field scoring specs say how
each leaf is compared. New requirements are listed but have no pre-request state.
"""

from __future__ import annotations

from typing import Any

from reqbench.protocols.takeover.annotation.models import STATE_DIMENSIONS
from reqbench.protocols.takeover.construction.conditions import (
    direct_requirements,
    new_requirements,
    trajectory_message_ids,
)
from reqbench.protocols.takeover.construction.rq_common import TargetContext, envelope, readiness
from reqbench.protocols.takeover.construction.specs import state_scoring_specs
from reqbench.protocols.takeover.construction.states import expand_state, semantic_state

GOLD_REVIEW_STATUS = "RELEASE_RULES_APPLIED"  # our label: deterministic, no new human/agent review
SCORING_POLICY = {
    "closed_world_objects": True,
    "unexpected_fields": "FALSE_POSITIVE_AND_EXACT_FAILURE",
    "semantic_judge_outputs_final_scores": False,
    "primary_metrics": [
        "ATTRIBUTE_RECONSTRUCTION_SCORE",
        "MATCHED_FULL_STATE_EXACT",
        "RECONSTRUCTION_COVERAGE",
        "PER_DIMENSION_SCORES",
    ],
    "auxiliary_metrics": ["MATCHED_STATE_SCORE"],
}


def pre_states(ctx: TargetContext, requirement_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Expanded pre-request states (with ids) of the given requirements."""
    return {rid: expand_state(ctx.graph, rid, ctx.target.pre_state_id(rid) or "") for rid in requirement_ids}


def rq2_gold(ctx: TargetContext) -> dict[str, Any]:
    """``construction_gold`` of an RQ2 instance (status FINAL_TYPED_STATE_GOLD)."""
    direct = direct_requirements(ctx.target)
    expanded = pre_states(ctx, direct)
    states = {rid: semantic_state(expanded[rid]) or {} for rid in direct}
    return {
        "status": "FINAL_TYPED_STATE_GOLD",
        "gold_requirement_ids": list(direct),
        "requirement_summaries": {rid: expanded[rid]["requirement_title"] for rid in direct},
        "alignment_evidence_message_ids": {
            rid: trajectory_message_ids(ctx.project, ctx.graph, rid, ctx.target.position) for rid in direct
        },
        "state_provenance": {
            rid: {
                "state_id": expanded[rid]["state_id"],
                "supporting_event_ids": expanded[rid]["supporting_event_ids"],
            }
            for rid in direct
        },
        "new_requirement_ids": new_requirements(ctx.target),
        "states": states,
        "state_dimensions": list(STATE_DIMENSIONS),
        "scoring_scope": {
            "selection_scored_here": False,
            "matched_requirements_only": True,
            "report_reconstruction_coverage_separately": True,
            "no_matched_requirement_result": "N/A",
        },
        "field_scoring_specs": state_scoring_specs(states),
        "scoring_policy": SCORING_POLICY,
        "review_status": GOLD_REVIEW_STATUS,
        "review_metadata": {
            "schema_version": "reqbench-release-rules-v1",
            "method": "DETERMINISTIC_REPLAY_OF_RELEASED_REVIEW_RULES",
            "rules": ["EMPTY_CONTAINER_SKIP", "ORDERED_LIST_PATHS"],
        },
    }


def build_rq2(ctx: TargetContext) -> dict[str, Any]:
    return {**envelope(ctx, "RQ2"), "construction_gold": rq2_gold(ctx), "readiness": readiness()}
