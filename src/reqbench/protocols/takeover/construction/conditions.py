"""History conditions C1 (full history) and C2 (relevant history) of a target (paper B.2; FORMAT.md (e)).

Both are message-id lists over the history pool: the catalog messages strictly before the target
(temporal boundaries use catalog positions, never numeric ids). C2 is always an order-preserving subset
of C1. The released C2 holds only the direct trajectories of affected pre-existing requirements — no
family or context messages are added (FORMAT.md (e) disagreement note); that is what is built here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json
from reqbench.protocols.takeover.annotation.project import Project, id_key
from reqbench.protocols.takeover.annotation.replay import StateGraph
from reqbench.protocols.takeover.construction.targets import Target

CONDITIONS = ("C1", "C2")
HISTORY_MODES = {"C1": "FULL_HISTORY", "C2": "ORACLE_RELEVANT_HISTORY"}
REVIEW_STATUS = {"C1": "DETERMINISTIC", "C2": "DETERMINISTIC_DIRECT_TRAJECTORY_ONLY"}
# RQ1 is scored on the full history only; RQ2/RQ3 under both conditions (FORMAT.md (e) availability).
SUPPORTED_CONDITIONS = {"RQ1": ("C1",), "RQ2": ("C1", "C2"), "RQ3": ("C1", "C2")}
EXECUTION_CONDITIONS = {"RQ4": ("C1", "C2")}
"""RQ4 (delivery, Phase B) runs under both conditions but is not a reasoning RQ of a Phase-A package."""


def public_message(message: dict[str, Any]) -> dict[str, Any]:
    """The agent-visible projection of a catalog message."""
    return {k: message.get(k) for k in ("message_id", "created_ts", "speaker", "text", "milestone")}


def history_pool(project: Project, target: Target) -> list[dict[str, Any]]:
    """Public messages with position < P(target): the boundary STRICTLY_BEFORE_TARGET_MESSAGE."""
    return [public_message(m) for m in project.messages[: target.position]]


def ordered_ids(project: Project, ids: Iterable[Any], before: int) -> list[Any]:
    """De-duplicate by str(id) (first spelling kept), sort by catalog position; all must precede `before`."""
    unique: dict[str, Any] = {}
    for mid in ids:
        if project.position(mid) >= before:
            raise InputError(
                f"history would contain the target or a later message {mid!r}", file=project.project_id
            )
        unique.setdefault(id_key(mid), mid)
    return sorted(unique.values(), key=project.position)


def visible_edge_message_ids(project: Project, edge: dict[str, Any], before: int) -> list[Any]:
    """An edge's source + supporting messages that lie strictly before the target."""
    ids = [edge["source_message_id"], *edge.get("supporting_message_ids", [])]
    return [mid for mid in ids if project.position(mid) < before]


def trajectory_before(project: Project, graph: StateGraph, requirement_id: str, before: int) -> list[dict[str, Any]]:
    """Every edge of the requirement sourced strictly before the target."""
    return [e for e in graph.graph(requirement_id).edges if project.position(e["source_message_id"]) < before]


def trajectory_message_ids(
    project: Project, graph: StateGraph, requirement_id: str, before: int
) -> list[Any]:
    """Visible messages of the requirement's trajectory before the target, in catalog order."""
    edges = trajectory_before(project, graph, requirement_id, before)
    return ordered_ids(
        project, (m for e in edges for m in visible_edge_message_ids(project, e, before)), before
    )


def direct_requirements(target: Target) -> list[str]:
    """Affected requirements that already exist before the request (the paper's A ∩ R(t⁻)), affected order."""
    existing = {rid for rid, _ in target.pre}
    return [rid for rid in target.affected_requirement_ids if rid in existing]


def new_requirements(target: Target) -> list[str]:
    """Affected requirements introduced by the request itself."""
    existing = {rid for rid, _ in target.pre}
    return [rid for rid in target.affected_requirement_ids if rid not in existing]


def c1_history(project: Project, target: Target) -> list[Any]:
    """C1 FULL_HISTORY (paper B.2, FORMAT.md (e)): every pool message id, in catalog order."""
    return [m["message_id"] for m in project.messages[: target.position]]


def c2_history(project: Project, graph: StateGraph, target: Target) -> list[Any]:
    """C2 ORACLE_RELEVANT_HISTORY (paper B.2, FORMAT.md (e)).

    The union, over the direct requirements, of the source and supporting messages of every edge sourced
    before the target (filtered to the pool), de-duplicated by str(id) and in catalog order. The target
    edges' own supporting messages are not added; nor are family/context messages. Empty when no affected
    requirement existed before the request.
    """
    ids = [
        m
        for rid in direct_requirements(target)
        for m in trajectory_message_ids(project, graph, rid, target.position)
    ]
    return ordered_ids(project, ids, target.position)


def condition_histories(project: Project, graph: StateGraph, target: Target) -> dict[str, list[Any]]:
    return {"C1": c1_history(project, target), "C2": c2_history(project, graph, target)}


def condition_available(rq_id: str, condition: str) -> bool:
    """Whether an RQ is scored under a condition (RQ1: C1 only; RQ2, RQ3, RQ4: C1 and C2)."""
    return condition in {**SUPPORTED_CONDITIONS, **EXECUTION_CONDITIONS}[rq_id]


def active_rqs(condition: str, applicable: list[str]) -> list[str]:
    """The reasoning RQs a Phase-A package of this condition serves (C1: RQ1-3, C2: RQ2-3), if applicable."""
    return [rq for rq in applicable if rq in SUPPORTED_CONDITIONS and condition_available(rq, condition)]


def history_fingerprint(message_ids: list[Any]) -> str:
    """Canonical sha256 of a condition's id list (``fingerprints.condition_history``)."""
    return sha256_json(message_ids)
