"""What every RQ instance shares: names, the envelope, fingerprints, applicability (FORMAT.md (f.1), (f.5)).

An instance (``rq-instance-v2``) is a researcher-side record: the public inputs (target request, history
pool, C1/C2 id lists) plus ``construction_gold``. The RQ names, questions and response-contract fields
are format constants of the released files (field values that scoring and existing consumers read).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from reqbench.core.hashing import sha256_json
from reqbench.protocols.takeover.annotation.models import STATE_DIMENSIONS
from reqbench.protocols.takeover.annotation.project import Project
from reqbench.protocols.takeover.annotation.replay import StateGraph
from reqbench.protocols.takeover.construction.conditions import (
    CONDITIONS,
    HISTORY_MODES,
    REVIEW_STATUS,
    condition_available,
    condition_histories,
    direct_requirements,
    history_fingerprint,
    history_pool,
)
from reqbench.protocols.takeover.construction.targets import Target

INSTANCE_SCHEMA_VERSION = "rq-instance-v2"
INDEX_SCHEMA_VERSION = "rq-instance-index-v2"
REASONING_RQS = ("RQ1", "RQ2", "RQ3")

RQ_NAMES = {
    "RQ1": "Relevant Requirement Selection",
    "RQ2": "Pre-task State Reconstruction",
    "RQ3": "Requirement Update or Clarify",
    "RQ4": "Repository Delivery",
}
RQ_QUESTIONS = {
    "RQ1": "Using the full pre-task conversation, identify the historical requirements and message evidence "
    "that are relevant to the current client task. Exclude unrelated history and do not treat the "
    "current task itself as historical evidence.",
    "RQ2": "For the historical requirements relevant to the current client task, reconstruct their last "
    "valid state immediately before the current task. Do not apply the current task to that state.",
    "RQ3": "Combine the pre-task requirement state with the current client task. If the task determines a "
    "unique post-task state, choose ACT and construct that state; otherwise choose CLARIFY and "
    "identify the blocking requirement field and the question that must be answered.",
    "RQ4": "With the frozen ACT decision, the visible history and the pre-task repository, implement the "
    "current client task so that the project builds, keeps its existing behaviour and meets every "
    "acceptance criterion of the request.",
}
_TOP = ["requirements", "decision", "post_task_states", "clarifications"]
_ITEM = ["requirement_ref", "requirement_summary", "evidence_message_ids", "pre_task_state"]
_STATE_CONTRACT = {
    "ambiguity_representation": "NULL_OR_ARRAY_OF_RECORDS",
    "complete_state_closed_world": True,
    "unexpected_state_fields_are_false_positives": True,
    "internal_ids_forbidden": True,
}


def response_contract(rq_id: str) -> dict[str, Any]:
    """The response contract recorded in each instance (``rqN-agent-response-v3``)."""
    if rq_id == "RQ1":
        return {
            "schema_version": "rq1-agent-response-v3",
            "required_fields": ["requirements"],
            "allowed_top_level_fields": list(_TOP),
            "required_requirement_item_fields": _ITEM[:3],
            "allowed_requirement_item_fields": list(_ITEM),
            "rq1_projection": {"top_level_fields": ["requirements"], "requirement_item_fields": _ITEM[:3]},
            "requirement_refs_must_be_unique": True,
            "evidence_message_ids_must_reference_c1_history": True,
            "internal_ids_forbidden": True,
        }
    if rq_id == "RQ4":
        return {
            "schema_version": "rq4-repository-result-v2",
            "phase_gate": "FROZEN_PHASE_A_DECISION_ACT",
            "submission": "MODIFIED_REPOSITORY_TREE",
            "components": ["build", "regression"],
            "acceptance_judge": "rq4-agent-judge-result-v1",
            "evaluation_result": "rq4-evaluation-result-v1",
        }
    if rq_id == "RQ2":
        return {
            "schema_version": "rq2-agent-response-v3",
            "required_fields": ["requirements"],
            "allowed_top_level_fields": list(_TOP),
            "required_requirement_item_fields": list(_ITEM),
            "allowed_requirement_item_fields": list(_ITEM),
            "pre_task_state_fields": list(STATE_DIMENSIONS),
            **_STATE_CONTRACT,
        }
    return {
        "schema_version": "rq3-agent-response-v3",
        "required_fields": _TOP[1:],
        "allowed_top_level_fields": list(_TOP),
        "decision_values": ["ACT", "CLARIFY"],
        "branch_constraints": {
            "ACT": {"post_task_states": "NON_EMPTY_ARRAY", "clarifications": "EMPTY_ARRAY"},
            "CLARIFY": {"post_task_states": "NULL", "clarifications": "NON_EMPTY_ARRAY"},
        },
        "clarification_item_fields": [
            "requirement_ref",
            "requirement_summary",
            "dimension",
            "field",
            "missing_information",
            "question",
        ],
        "post_task_state_item_fields": [
            "requirement_ref",
            "requirement_summary",
            "change_type",
            "removed_attribute_keys",
            "state",
        ],
        "state_fields": list(STATE_DIMENSIONS),
        **_STATE_CONTRACT,
    }


def difficulty(turns: int) -> str:
    """Difficulty bin of a history length: <=25 SHORT, <=50 MEDIUM, else LONG."""
    return "SHORT" if turns <= 25 else "MEDIUM" if turns <= 50 else "LONG"


def applicable_rqs(target: Target) -> list[str]:
    """The formal diagnostic sequence (ReqMemBench B.1, Table 7): a target enters RQ1, RQ2 *and* RQ3 only
    when the request has events and some affected requirement existed before it; otherwise it is excluded
    from all three (`diagnostic_exclusion`: the paper's 350 selected targets give 349, "Each target has
    RQ1, RQ2, and RQ3 files"). (RQ4 also needs a matching code environment: `rq4_delivery.registry.rq4_applicable`,
    added by the build to targets in the formal set.)"""
    return [] if diagnostic_exclusion(target) else ["RQ1", "RQ2", "RQ3"]


def diagnostic_exclusion(target: Target) -> str | None:
    """Why `target` is outside the formal diagnostic set (B.1), or None when it is in it."""
    if not target.task_event_ids:
        return "NO_TARGET_EVENTS"
    if not direct_requirements(target):
        return "NO_PRE_REQUEST_REQUIREMENT"
    return None


def default_input_release(project: Project, gold: dict[str, Any], graph: StateGraph) -> str:
    """Release name when none is given: project id + a hash of gold, graph and catalog."""
    return f"{project.project_id}-{sha256_json([gold, graph.to_json(), project.raw_normalized])[:16]}"


def target_fingerprint(release: str, project: Project, target: Target, gold_row: dict[str, Any]) -> str:
    """Canonical sha of the target's public inputs and gold-row snapshots (FORMAT.md (f.1))."""
    return sha256_json(
        {
            "input_release": release,
            "project_id": project.project_id,
            "target_id": target.target_id,
            "target_message_id": target.message_id,
            "target_task": gold_row["target_task"],
            "history": history_pool(project, target),
            "task_event_ids": gold_row["task_event_ids"],
            "affected_requirement_ids": gold_row["affected_requirement_ids"],
            "pre_task_gold_state": gold_row["pre_task_gold_state"],
            "post_task_gold_state": gold_row["post_task_gold_state"],
        }
    )


@dataclass(frozen=True)
class TargetContext:
    """Everything an RQ builder needs about one target."""

    project: Project
    graph: StateGraph
    target: Target
    gold_row: dict[str, Any]
    release: str
    fingerprint: str
    applicable: list[str]
    histories: dict[str, list[Any]]
    sources: dict[str, Any]


def make_context(
    project: Project,
    graph: StateGraph,
    target: Target,
    gold_row: dict[str, Any],
    release: str,
    sources: dict[str, Any] | None = None,
) -> TargetContext:
    return TargetContext(
        project,
        graph,
        target,
        gold_row,
        release,
        target_fingerprint(release, project, target, gold_row),
        applicable_rqs(target),
        condition_histories(project, graph, target),
        sources or {},
    )


def envelope(ctx: TargetContext, rq_id: str) -> dict[str, Any]:
    """The shared top of an instance, in the released key order (construction_gold/readiness follow)."""
    pool = history_pool(ctx.project, ctx.target)
    turns = len(pool)
    inputs = {
        c: {
            "available": condition_available(rq_id, c),
            "history_mode": HISTORY_MODES[c],
            "history_message_ids": list(ctx.histories[c]),
            "history_message_count": len(ctx.histories[c]),
            "review_status": REVIEW_STATUS[c],
        }
        for c in CONDITIONS
    }
    return {
        "schema_version": INSTANCE_SCHEMA_VERSION,
        "instance_id": f"{ctx.target.target_id}_{rq_id}",
        "input_release": ctx.release,
        "target_fingerprint": ctx.fingerprint,
        "project_id": ctx.project.project_id,
        "project_title": ctx.project.project_title,
        "rq_id": rq_id,
        "rq_name": RQ_NAMES[rq_id],
        "target_id": ctx.target.target_id,
        "task_gold_id": ctx.gold_row["task_gold_id"],
        "target_message_id": ctx.target.message_id,
        "turns": turns,
        "history_turn_count": turns,
        "difficulty": difficulty(turns),
        "applicable_rqs": list(ctx.applicable),
        "question": RQ_QUESTIONS[rq_id],
        "target_task": dict(ctx.gold_row["target_task"]),
        "history_pool": {
            "boundary": "STRICTLY_BEFORE_TARGET_MESSAGE",
            "contains_target_message": False,
            "message_count": turns,
            "messages": pool,
        },
        "condition_inputs": inputs,
        "fingerprints": {
            "target": ctx.fingerprint,
            "history_pool": sha256_json(pool),
            "condition_history": {c: history_fingerprint(ctx.histories[c]) for c in CONDITIONS},
        },
        "response_contract": response_contract(rq_id),
        "visibility": {
            "record_kind": "RESEARCHER_SIDE_CONSTRUCTION_INSTANCE",
            "runner_must_hide": ["construction_gold", "source_artifacts"],
            "runner_materialization_status": "PUBLIC_PACKAGES_BUILT_SEPARATELY",
        },
        "source_artifacts": dict(ctx.sources),
    }


def readiness() -> dict[str, Any]:
    """Construction is complete; reasoning RQs are formally scoreable; execution is not built here."""
    return {
        "construction": "COMPLETE",
        "smoke_allowed": True,
        "formal_reasoning_allowed": True,
        "formal_execution_allowed": False,
        "blockers": [],
    }


def index_file(release: str, project: Project, rq_id: str, instances: list[dict[str, Any]]) -> dict[str, Any]:
    """``RQn/index.json`` (``rq-instance-index-v2``) with each instance's canonical content hash."""
    turns = [i["turns"] for i in instances]
    dist = {k: sum(1 for i in instances if i["difficulty"] == k) for k in ("SHORT", "MEDIUM", "LONG")}
    return {
        "schema_version": INDEX_SCHEMA_VERSION,
        "input_release": release,
        "project_id": project.project_id,
        "rq_id": rq_id,
        "rq_name": RQ_NAMES[rq_id],
        "instance_count": len(instances),
        "difficulty_distribution": dist,
        "turn_statistics": {
            "minimum": min(turns, default=None),
            "maximum": max(turns, default=None),
            "median": statistics.median(turns) if turns else None,
        },
        "instances": [
            {
                "instance_id": i["instance_id"],
                "target_fingerprint": i["target_fingerprint"],
                "target_id": i["target_id"],
                "target_message_id": i["target_message_id"],
                "turns": i["turns"],
                "difficulty": i["difficulty"],
                "file": f"{i['instance_id']}.json",
                "content_sha256": sha256_json(i),
            }
            for i in instances
        ],
    }
