"""Deterministic replay of each requirement atom's events into a state graph (paper A.1; FORMAT.md (b), (c)).

One node and one edge per event, nothing suppressed; events in annotation order. The output is the
released ``requirement_state_graph.json`` byte for byte (``pretty_json(graph.to_json())``).

Deliberate difference from the released code (DESIGN §4, paper A.1): implementation evidence
(claim / failure / verification) after REMOVE is replayed — it changes only ``execution``; every other
event after REMOVE is rejected by validation rule E18.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.annotation.models import EXECUTION_TYPES, SCOPE_DIMENSIONS, EventType
from reqbench.protocols.takeover.annotation.project import Event, Project, Requirement


class ReplayError(InputError):
    """A state-dependent rule broken during replay (rule E19)."""

    code = "E19"


@dataclass
class _State:
    """The replay state of one atom between events (FORMAT.md (b).4)."""

    attributes: dict[str, Any] = field(default_factory=dict)
    scope: dict[str, Any] = field(default_factory=lambda: dict.fromkeys(SCOPE_DIMENSIONS))
    lifecycle: str | None = None
    open: dict[str, dict[str, Any]] = field(default_factory=dict)
    execution: dict[str, Any] | None = None
    baseline_complete: bool = False
    attr_source: dict[str, str] = field(default_factory=dict)
    removal_source: dict[str, str] = field(default_factory=dict)
    scope_source: dict[str, str] = field(default_factory=dict)
    lifecycle_source: str | None = None
    execution_source: str | None = None

    def supporting(self, order: dict[str, int]) -> list[str]:
        """Events that directly establish the snapshot; resolved ambiguities drop out (FORMAT.md (b).7)."""
        ids = {
            *self.attr_source.values(),
            *self.removal_source.values(),
            *self.scope_source.values(),
            *self.open,
            self.lifecycle_source,
            self.execution_source,
        }
        ids.discard(None)
        return sorted((i for i in ids if i is not None), key=order.__getitem__)


def _apply_values(state: _State, ev: Event) -> None:
    """Removals first, then updates, then scope (A.1: keys in value_removals are deleted before updates)."""
    for key in ev.value_removals or []:
        if key not in state.attributes and (state.baseline_complete or key in state.removal_source):
            raise ReplayError(
                f"removes attribute {key!r}, which is not present "
                f"({'already removed' if key in state.removal_source else 'never set'})",
                item=ev.event_id,
            )
        state.attributes.pop(key, None)
        state.attr_source.pop(key, None)
        state.removal_source[key] = ev.event_id
    for key, value in (ev.value_updates or {}).items():
        state.attributes[key] = copy.deepcopy(value)
        state.attr_source[key] = ev.event_id
        state.removal_source.pop(key, None)
    for dim in SCOPE_DIMENSIONS:
        value = (ev.scope_updates or {}).get(dim)
        if value is not None:  # a null dimension means "unchanged"
            state.scope[dim] = copy.deepcopy(value)
            state.scope_source[dim] = ev.event_id


def _close_ambiguities(state: _State, ev: Event) -> None:
    for amb_id in ev.resolves_ambiguity_event_ids or []:
        if amb_id not in state.open:
            raise ReplayError(f"resolves {amb_id}, which is not open", item=ev.event_id)
        del state.open[amb_id]


_LIFECYCLE_OF = {EventType.DEFER: "DEFERRED", EventType.RESUME: "ACTIVE", EventType.REMOVE: "REMOVED"}


def apply_event(state: _State, ev: Event, has_nodes: bool) -> None:
    """One transition (FORMAT.md (b).6, paper Table 6)."""
    et = EventType(ev.event_type)
    if state.lifecycle == "REMOVED" and et not in EXECUTION_TYPES:
        raise ReplayError(f"{et} after REMOVE", item=ev.event_id)
    if et in (EventType.INTRODUCE, EventType.MODIFY):
        _apply_values(state, ev)
        if et is EventType.INTRODUCE:
            state.lifecycle, state.lifecycle_source, state.baseline_complete = "ACTIVE", ev.event_id, True
            if has_nodes:  # an observed baseline existed: its implementation evidence is cleared
                state.execution, state.execution_source = None, None
        else:  # a new semantic version: implementation evidence no longer applies
            state.execution, state.execution_source = None, None
        _close_ambiguities(state, ev)
    elif et in _LIFECYCLE_OF:
        state.lifecycle, state.lifecycle_source = _LIFECYCLE_OF[et], ev.event_id
        _close_ambiguities(state, ev)
    elif et is EventType.AMBIGUOUS:
        amb = ev.ambiguity or {}
        state.open[ev.event_id] = {
            "status": "OPEN",
            "dimension": amb.get("dimension"),
            "description": amb.get("description"),
            "source_event_id": ev.event_id,
        }
    else:
        exe = ev.execution or {}
        state.execution = {
            "status": exe.get("status"),
            "observed_behavior": exe.get("observed_behavior"),
            "source_event_id": ev.event_id,
        }
        state.execution_source = ev.event_id


@dataclass
class RequirementGraph:
    """The state graph of one atom: nodes[i] is the state after edges[i]."""

    requirement_id: str
    title: str
    family_id: str | None
    initialization_mode: str
    has_explicit_introduce: bool
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "graph_id": f"{self.requirement_id}_GRAPH",
            "requirement_id": self.requirement_id,
            "title": self.title,
            "family_id": self.family_id,
            "initialization_mode": self.initialization_mode,
            "has_explicit_introduce": self.has_explicit_introduce,
            "nodes": self.nodes,
            "edges": self.edges,
        }


@dataclass
class StateGraph:
    """All atoms' graphs in annotation order, with lookups by state and event id."""

    project_id: str
    project_title: Any
    graphs: list[RequirementGraph]
    _nodes: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict, repr=False)
    _edges: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for g in self.graphs:
            for n in g.nodes:
                self._nodes[n["state_id"]] = (g.requirement_id, n)
            for e in g.edges:
                self._edges[e["event_id"]] = (g.requirement_id, e)

    def to_json(self) -> dict[str, Any]:
        return {
            "project_id": self.project_id,
            "project_title": self.project_title,
            "requirement_graphs": [g.to_json() for g in self.graphs],
        }

    def graph(self, requirement_id: str) -> RequirementGraph:
        for g in self.graphs:
            if g.requirement_id == requirement_id:
                return g
        raise KeyError(requirement_id)

    def node(self, state_id: str) -> dict[str, Any]:
        return self._nodes[state_id][1]

    def edge(self, event_id: str) -> dict[str, Any]:
        return self._edges[event_id][1]

    def requirement_of_event(self, event_id: str) -> str:
        return self._edges[event_id][0]


def _snapshot(state: _State, state_id: str, order: dict[str, int]) -> dict[str, Any]:
    return {
        "state_id": state_id,
        "attributes": copy.deepcopy(state.attributes),
        "scope": copy.deepcopy(state.scope),
        "lifecycle_status": state.lifecycle,
        "ambiguity": copy.deepcopy(state.open) or None,
        "execution": copy.deepcopy(state.execution),
        "supporting_event_ids": state.supporting(order),
    }


def initialization_mode(req: Requirement) -> str:
    """NO_EVENTS, EXPLICIT_INTRODUCE (the only INTRODUCE is first) or OBSERVED_HISTORY (FORMAT.md (b).9)."""
    if not req.events:
        return "NO_EVENTS"
    return "EXPLICIT_INTRODUCE" if req.events[0].event_type == EventType.INTRODUCE else "OBSERVED_HISTORY"


def replay_requirement(project: Project, req: Requirement) -> RequirementGraph:
    """Replay one atom. Requirements without events, or without INTRODUCE, are kept."""
    state = _State()
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    order = {ev.event_id: ev.index for ev in req.events}
    for i, ev in enumerate(req.events, start=1):
        apply_event(state, ev, has_nodes=bool(nodes))
        state_id = f"{req.requirement_id}_S{i:03d}"
        edges.append(
            {
                "from_state_id": nodes[-1]["state_id"] if nodes else None,
                "to_state_id": state_id,
                "event_id": ev.event_id,
                "event_type": ev.event_type,
                "source_message_id": ev.source_message_id,
                "supporting_message_ids": list(ev.supporting_message_ids),
                "value_removals": list(ev.value_removals) if ev.value_removals is not None else None,
            }
        )
        nodes.append(_snapshot(state, state_id, order))
    return RequirementGraph(
        req.requirement_id,
        req.title,
        req.family_id,
        initialization_mode(req),
        any(ev.event_type == EventType.INTRODUCE for ev in req.events),
        nodes,
        edges,
    )


def replay(project: Project) -> StateGraph:
    """The project's state graph: one graph per requirement, in annotation order."""
    return StateGraph(
        project.project_id,
        project.annotation_title,
        [replay_requirement(project, req) for req in project.requirements],
    )
