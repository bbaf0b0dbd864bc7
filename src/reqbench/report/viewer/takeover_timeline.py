"""The takeover row page's requirement timeline: for the requirements a target touches, the messages
that changed them, the annotated event each message carries and the state after it, up to the target
message, then the state at the target (before → after the request).

This is researcher-side gold, read from the run's suite (never from anything the agent wrote): the
project is loaded and replayed once per suite (ReqMemBench FORMAT.md (b) replay, (d) snapshots — the
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
from reqbench.report.viewer.render import details, esc, table

_EXCERPT = 220


@dataclass(frozen=True)
class Gold:
    project: Any  # takeover.project.Project
    graph: Any  # takeover.replay.StateGraph
    targets: dict[str, Any]  # target_id -> takeover.targets.Target


@lru_cache(maxsize=4)
def load_gold(suite_path: str) -> Gold | str:
    """The replayed project of a takeover suite, or one sentence saying why it cannot be loaded."""
    from reqbench.protocols.takeover.delivery.config import load_suite
    from reqbench.protocols.takeover.loading import load_project
    from reqbench.protocols.takeover.replay import replay
    from reqbench.protocols.takeover.targets import build_targets

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


def _payload(event: Any) -> str:
    """What the event changes, one line per payload field that is set."""
    parts = []
    for name in ("value_updates", "value_removals", "scope_updates", "ambiguity", "execution"):
        value = getattr(event, name)
        if value not in (None, {}, []):
            parts.append(f"<div class='meta'><b>{esc(name)}</b> {esc(_compact(value))}</div>")
    return "".join(parts)


def _state(node: dict[str, Any] | None) -> str:
    if node is None:
        return "<span class='meta'>not yet introduced</span>"
    from reqbench.protocols.takeover.states import semantic_state

    sem = semantic_state(node) or {}
    lines = [f"<b>{esc(sem.get('lifecycle_status'))}</b>"]
    lines += [f"{esc(k)}: {esc(_compact(sem[k]))}" for k in ("attributes", "scope", "ambiguity", "execution")
              if sem.get(k) not in (None, {}, [])]
    return "<br>".join(lines)


def _requirement(gold: Gold, target: Any, requirement_id: str) -> str:
    project, graph = gold.project, gold.graph
    g = graph.graph(requirement_id)
    events = {e.event_id: e for e in project.requirement(requirement_id).events}
    rows = []
    for edge, node in zip(g.edges, g.nodes, strict=True):
        position = project.position(edge["source_message_id"])
        if position > target.position:
            break  # after the target: not part of what the agent could know
        message = project.message(edge["source_message_id"])
        at_target = position == target.position
        mark = " <span class='target'>target</span>" if at_target else ""
        rows.append(f"<tr class='{'at-target' if at_target else ''}'>"
                     f"<td class='num'>{position + 1}</td>"
                     f"<td><span class='meta'>{esc(message.get('speaker'))}{mark}</span><br>"
                     f"{esc(_excerpt(message.get('text', '')))}</td>"
                     f"<td><b>{esc(edge['event_type'])}</b> <span class='meta'>{esc(edge['event_id'])}</span>"
                     f"{_payload(events[edge['event_id']])}</td><td>{_state(node)}</td></tr>")
    head = "<tr><th>#</th><th>message</th><th>event</th><th>state after</th></tr>"
    title = f"<h4>{esc(requirement_id)} <span class='meta'>{esc(g.title)}</span></h4>"
    body = "".join(rows) or "<tr><td colspan='4' class='meta'>no event before the target</td></tr>"
    return f"{title}<table class='timeline'>{head}{body}</table>"


def _states_at_target(gold: Gold, target: Any) -> str:
    pre, post = dict(target.pre), dict(target.post)
    rows = []
    for rid in [*target.affected_requirement_ids, *target.preserved_requirement_ids]:
        before = gold.graph.node(pre[rid]) if rid in pre else None
        after = gold.graph.node(post[rid]) if rid in post else None
        change = "changed by the request" if rid in target.affected_requirement_ids else "preserved"
        rows.append([f"{esc(rid)}<div class='meta'>{change}</div>", _state(before), _state(after)])
    return table(["requirement", "before the request", "after the request (gold)"], rows, cls="target-state")


def timeline_html(suite_path: str, target_id: str) -> str:
    """The timeline section of one takeover row (the row's task id is the target id)."""
    gold = load_gold(suite_path)
    if isinstance(gold, str):
        return f"<h3>requirement timeline</h3><p class='meta'>timeline unavailable: {esc(gold)}</p>"
    target = gold.targets.get(target_id)
    if target is None:
        return (f"<h3>requirement timeline</h3><p class='meta'>timeline unavailable: {esc(target_id)} is not "
                "a selected target of the suite's project</p>")
    request = (f"<p class='request'><span class='meta'>request · message {target.position + 1} · "
               f"{esc(target.message.get('speaker'))}</span><br>{esc(target.message.get('text'))}</p>")
    affected = "".join(_requirement(gold, target, rid) for rid in target.affected_requirement_ids)
    preserved = "".join(_requirement(gold, target, rid) for rid in target.preserved_requirement_ids)
    parts = ["<h3>requirement timeline</h3>", request,
             affected or "<p class='meta'>the request changes no requirement</p>"]
    if preserved:
        parts.append(details(f"requirements the request leaves unchanged "
                             f"({len(target.preserved_requirement_ids)})", preserved))
    parts.append("<h4>state at the target</h4>" + _states_at_target(gold, target))
    return "".join(parts)
