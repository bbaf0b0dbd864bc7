"""Expanded and semantic requirement states, and the before/after delta (FORMAT.md (f.1), (f.4)).

The *expanded* state is a graph node plus its requirement's title and family; the *semantic* state is
what is scored: the five dimensions with internal provenance (event ids) removed and the open-ambiguity
dict turned into an array ordered by ambiguity key.
"""

from __future__ import annotations

import copy
from typing import Any

from reqbench.protocols.takeover.annotation.models import STATE_DIMENSIONS
from reqbench.protocols.takeover.annotation.replay import StateGraph

_PROVENANCE_KEYS = {"source_event_id", "ambiguity_event_id"}


def expand_state(graph: StateGraph, requirement_id: str, state_id: str) -> dict[str, Any]:
    """Node + requirement title/family (researcher-side; carries ids)."""
    g, node = graph.graph(requirement_id), graph.node(state_id)
    return {
        "requirement_id": requirement_id,
        "requirement_title": g.title,
        "family_id": g.family_id,
        "state_id": state_id,
        **{d: copy.deepcopy(node[d]) for d in STATE_DIMENSIONS},
        "supporting_event_ids": list(node["supporting_event_ids"]),
    }


def semantic_state(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """The five scored dimensions without provenance; ambiguity as an array sorted by key."""
    if state is None:
        return None
    ambiguity = state.get("ambiguity")
    if isinstance(ambiguity, dict):
        ambiguity = [
            {k: copy.deepcopy(v) for k, v in rec.items() if k not in _PROVENANCE_KEYS}
            for _, rec in sorted(ambiguity.items(), key=lambda kv: str(kv[0]))
        ]
    execution = state.get("execution")
    if isinstance(execution, dict):
        execution = {k: copy.deepcopy(v) for k, v in execution.items() if k != "source_event_id"}
    return {
        "attributes": copy.deepcopy(state.get("attributes")),
        "scope": copy.deepcopy(state.get("scope")),
        "lifecycle_status": state.get("lifecycle_status"),
        "ambiguity": ambiguity,
        "execution": execution,
    }


def state_delta(before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, Any]:
    """INTRODUCED / REMOVED_FROM_SNAPSHOT / MODIFIED / UNCHANGED with changed dimensions and a recursive
    path diff: dict keys are walked in sorted order, any other difference is reported at its own path;
    keys missing after are also listed in removed_paths (FORMAT.md (f.4))."""
    if before is None:
        return {
            "change_type": "INTRODUCED",
            "changed_fields": ["existence"],
            "changed_paths": ["existence"],
            "removed_paths": [],
        }
    if after is None:
        return {
            "change_type": "REMOVED_FROM_SNAPSHOT",
            "changed_fields": ["existence"],
            "changed_paths": ["existence"],
            "removed_paths": ["existence"],
        }
    old_s, new_s = semantic_state(before) or {}, semantic_state(after) or {}
    fields = [d for d in STATE_DIMENSIONS if old_s.get(d) != new_s.get(d)]
    changed: list[str] = []
    removed: list[str] = []

    def visit(path: str, old: Any, new: Any) -> None:
        if old == new:
            return
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(set(old) | set(new)):
                child = f"{path}.{key}" if path else str(key)
                if key not in new:
                    changed.append(child)
                    removed.append(child)
                elif key not in old:
                    changed.append(child)
                else:
                    visit(child, old[key], new[key])
            return
        changed.append(path)

    for d in fields:
        visit(d, old_s.get(d), new_s.get(d))
    return {
        "change_type": "MODIFIED" if fields else "UNCHANGED",
        "changed_fields": fields,
        "changed_paths": changed,
        "removed_paths": removed,
    }
