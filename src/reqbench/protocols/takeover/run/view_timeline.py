"""The takeover row page's requirement timeline (as `core.views` blocks): for the requirements a target
touches, the messages that changed them, the annotated event each message carries and the state after it,
up to the target message, then the state at the target (before -> after the request).

This is researcher-side gold, read from the run's suite (never from anything the agent wrote): the
project is loaded and replayed once per suite (ReqMemBench FORMAT.md (b) replay, (d) snapshots -- the
pre-task state holds edges sourced strictly before the target message, the post-task state also those
sourced at it). A run whose suite moved or no longer loads still shows its row, with a note why the
timeline is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.views import Badge, Block, Cell, Fold, Heading, Inline, Muted, Paragraph, Strong, TableBlock
from reqbench.protocols.takeover.annotation.project import Project
from reqbench.protocols.takeover.annotation.replay import StateGraph
from reqbench.protocols.takeover.construction.targets import Target

_EXCERPT = 220


@dataclass(frozen=True)
class Gold:
    project: Project
    graph: StateGraph
    targets: dict[str, Target]


@lru_cache(maxsize=4)
def load_gold(suite_path: str) -> Gold | str:
    """The replayed project of a takeover suite, or one sentence saying why it cannot be loaded."""
    from reqbench.protocols.takeover.annotation.loading import load_project
    from reqbench.protocols.takeover.annotation.replay import replay
    from reqbench.protocols.takeover.construction.targets import build_targets
    from reqbench.protocols.takeover.suite_file import load_suite

    try:
        suite = load_suite(Path(suite_path))
        project = load_project(Path(suite_path) / suite.project)
        graph = replay(project)
        return Gold(project, graph, {t.target_id: t for t in build_targets(project, graph)})
    except (InputError, OSError) as exc:
        return f"the suite's project cannot be loaded ({exc})"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _excerpt(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _EXCERPT else text[:_EXCERPT - 1] + "…"


def _payload(event: Any) -> tuple[Block, ...]:
    """What the event changes, one line per payload field that is set."""
    return tuple(Paragraph((Strong(name), Muted(_compact(getattr(event, name)))), name="meta")
                 for name in ("value_updates", "value_removals", "scope_updates", "ambiguity", "execution")
                 if getattr(event, name) not in (None, {}, []))


def _state(node: dict[str, Any] | None) -> Cell:
    if node is None:
        return Muted("not yet introduced")
    from reqbench.protocols.takeover.construction.states import semantic_state

    sem = semantic_state(node) or {}
    lines: list[Inline | Block] = [Paragraph((Strong(str(sem.get("lifecycle_status"))),))]
    lines += [Paragraph((f"{k}: {_compact(sem[k])}",)) for k in ("attributes", "scope", "ambiguity", "execution")
              if sem.get(k) not in (None, {}, [])]
    return tuple(lines)


def _requirement(gold: Gold, target: Target, requirement_id: str) -> tuple[Block, ...]:
    project, graph = gold.project, gold.graph
    g = graph.graph(requirement_id)
    events = {e.event_id: e for e in project.requirement(requirement_id).events}
    rows: list[tuple[Cell, ...]] = []
    marked = set()
    for edge, node in zip(g.edges, g.nodes, strict=True):
        position = project.position(edge["source_message_id"])
        if position > target.position:
            break  # after the target: not part of what the agent could know
        message = project.message(edge["source_message_id"])
        who: tuple[Inline, ...] = (Muted(str(message.get("speaker"))),
                                   *((Badge("target"),) if position == target.position else ()))
        if position == target.position:
            marked.add(len(rows))
        rows.append((position + 1, (Paragraph(who), _excerpt(message.get("text", ""))),
                     (Strong(str(edge["event_type"])), Muted(str(edge["event_id"])),
                      *_payload(events[edge["event_id"]])),
                     _state(node)))
    if not rows:
        rows.append((Muted("no event before the target"), "", "", ""))
    title = Paragraph((Strong(requirement_id), Muted(g.title)), name="requirement")
    return title, TableBlock(("#", "message", "event", "state after"), tuple(rows), name="timeline",
                             marked=frozenset(marked))


def _states_at_target(gold: Gold, target: Target) -> TableBlock:
    pre, post = dict(target.pre), dict(target.post)
    rows: list[tuple[Cell, ...]] = []
    for rid in [*target.affected_requirement_ids, *target.preserved_requirement_ids]:
        before = gold.graph.node(pre[rid]) if rid in pre else None
        after = gold.graph.node(post[rid]) if rid in post else None
        change = "changed by the request" if rid in target.affected_requirement_ids else "preserved"
        rows.append(((rid, Paragraph((Muted(change),))), _state(before), _state(after)))
    return TableBlock(("requirement", "before the request", "after the request (gold)"), tuple(rows),
                      name="target-state")


def _unavailable(why: str) -> tuple[Block, ...]:
    return Heading("requirement timeline"), Paragraph((Muted(f"timeline unavailable: {why}"),))


def timeline(suite_path: Path, target_id: str) -> tuple[Block, ...]:
    """The timeline section of one takeover row (the row's task id is the target id)."""
    gold = load_gold(str(suite_path))
    if isinstance(gold, str):
        return _unavailable(gold)
    target = gold.targets.get(target_id)
    if target is None:
        return _unavailable(f"{target_id} is not a selected target of the suite's project")
    request = Paragraph((Muted(f"request · message {target.position + 1} · {target.message.get('speaker')}"),
                         str(target.message.get("text"))), name="request")
    affected = [b for rid in target.affected_requirement_ids for b in _requirement(gold, target, rid)]
    preserved = tuple(b for rid in target.preserved_requirement_ids for b in _requirement(gold, target, rid))
    parts: list[Block] = [Heading("requirement timeline"), request,
                          *(affected or [Paragraph((Muted("the request changes no requirement"),))])]
    if preserved:
        parts.append(Fold((f"requirements the request leaves unchanged ({len(target.preserved_requirement_ids)})",),
                          preserved))
    parts += [Heading("state at the target", level=4), _states_at_target(gold, target)]
    return tuple(parts)
