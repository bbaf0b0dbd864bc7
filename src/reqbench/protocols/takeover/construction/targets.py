"""Targets and their pre/post snapshots (paper A.1 "One takeover target ..."; FORMAT.md (d)).

A target is one client message m at position b. Its pre-task snapshot is, per requirement graph, the
state after the last edge sourced strictly before b; the post-task snapshot also includes edges sourced
at b (the last one wins). Requirements with no such edge are omitted, so an atom introduced at m appears
only after the request, and a removed atom stays listed with lifecycle REMOVED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reqbench.protocols.takeover.annotation.project import Project, id_key
from reqbench.protocols.takeover.annotation.replay import StateGraph

Snapshot = list[tuple[str, str]]  # (requirement_id, state_id) in graph order


@dataclass(frozen=True)
class Target:
    """One selected target with its gold snapshots (state ids; expand them through the graph)."""

    target_id: str
    row: dict[str, Any]  # the selected-target row as given (selection metadata is copied into gold)
    message: dict[str, Any]  # the catalog message of the request
    position: int  # b = P(m); also the number of history messages
    task_event_ids: list[str]
    affected_requirement_ids: list[str]
    preserved_requirement_ids: list[str]
    pre: Snapshot
    post: Snapshot

    @property
    def message_id(self) -> Any:
        return self.message["message_id"]

    def pre_state_id(self, requirement_id: str) -> str | None:
        return dict(self.pre).get(requirement_id)

    def post_state_id(self, requirement_id: str) -> str | None:
        return dict(self.post).get(requirement_id)


def snapshot(project: Project, graph: StateGraph, position: int, *, inclusive: bool) -> Snapshot:
    """Per graph, the target state of the last edge with source position < b (<= b when inclusive);
    the walk stops at the first edge after b (FORMAT.md (d) snapshot)."""
    rows: Snapshot = []
    for g in graph.graphs:
        last: str | None = None
        for edge in g.edges:
            pos = project.position(edge["source_message_id"])
            if pos > position:
                break
            if pos < position or (inclusive and pos == position):
                last = edge["to_state_id"]
        if last is not None:
            rows.append((g.requirement_id, last))
    return rows


def task_events(project: Project, graph: StateGraph, message_id: Any) -> list[tuple[str, str]]:
    """(requirement_id, event_id) of every edge sourced at the message, by (graph index, edge index)."""
    key = id_key(message_id)
    return [
        (g.requirement_id, e["event_id"])
        for g in graph.graphs
        for e in g.edges
        if id_key(e["source_message_id"]) == key
    ]


def build_target(project: Project, graph: StateGraph, row: dict[str, Any]) -> Target:
    """The target of one selected row: task events, affected/preserved requirements, snapshots."""
    message = project.message(row["message_id"])
    b = project.position(row["message_id"])
    events = task_events(project, graph, message["message_id"])
    affected = list(dict.fromkeys(rid for rid, _ in events))
    pre = snapshot(project, graph, b, inclusive=False)
    return Target(
        target_id=str(row["target_id"]),
        row=row,
        message=message,
        position=b,
        task_event_ids=[eid for _, eid in events],
        affected_requirement_ids=affected,
        preserved_requirement_ids=[rid for rid, _ in pre if rid not in affected],
        pre=pre,
        post=snapshot(project, graph, b, inclusive=True),
    )


def build_targets(project: Project, graph: StateGraph) -> list[Target]:
    """All selected targets, in selected order."""
    return [build_target(project, graph, row) for row in project.selected_targets]
