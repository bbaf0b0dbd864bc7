"""Validation rules for the selected targets (FORMAT.md (d)), one function per rule.

A target is one client message that sources at least one event; its declared turn counts, events and
affected requirements must agree with the catalog and the annotation, because gold, histories and
packages are all derived from that message's position.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from reqbench.protocols.takeover.annotation.problems import Problem
from reqbench.protocols.takeover.annotation.project import Project, id_key


def _targets(project: Project) -> Iterator[tuple[str, dict[str, Any]]]:
    for row in project.selected_targets:
        yield str(row.get("target_id")), row


def _known(project: Project, row: dict[str, Any]) -> bool:
    return id_key(row.get("message_id")) in project.positions


def events_at_message(project: Project, message_id: Any) -> list[tuple[str, str]]:
    """(requirement_id, event_id) of every event sourced at `message_id`, in graph order."""
    key = id_key(message_id)
    return [
        (req.requirement_id, ev.event_id)
        for req in project.requirements
        for ev in req.events
        if id_key(ev.source_message_id) == key
    ]


def rule_unique_target_ids(project: Project) -> Iterable[Problem]:
    """T01: target ids are unique."""
    for tid, n in Counter(tid for tid, _ in _targets(project)).items():
        if n > 1:
            yield Problem("T01", f"duplicate target_id (occurs {n} times)", target=tid)


def rule_target_message_known(project: Project) -> Iterable[Problem]:
    """T02: the target message exists in the catalog."""
    for tid, row in _targets(project):
        if not _known(project, row):
            yield Problem(
                "T02", f"target message {row.get('message_id')!r} is not in the catalog", target=tid
            )


def rule_target_is_client_message(project: Project) -> Iterable[Problem]:
    """T03: a target is a client message (the current request)."""
    for tid, row in _targets(project):
        if _known(project, row) and project.message(row["message_id"])["speaker"] != "client":
            yield Problem("T03", f"target message {row['message_id']!r} is not a client message", target=tid)


def rule_target_turn_counts(project: Project) -> Iterable[Problem]:
    """T04: conversation_turn_index = P(m)+1 and history_turn_count = P(m) where given."""
    for tid, row in _targets(project):
        if not _known(project, row):
            continue
        pos = project.position(row["message_id"])
        for name, expected in (("conversation_turn_index", pos + 1), ("history_turn_count", pos)):
            if row.get(name) is not None and row[name] != expected:
                yield Problem(
                    "T04", f"{name} is {row[name]}, the catalog position gives {expected}", target=tid
                )


def rule_target_has_events(project: Project) -> Iterable[Problem]:
    """T05: the target message sources at least one event."""
    for tid, row in _targets(project):
        if _known(project, row) and not events_at_message(project, row["message_id"]):
            yield Problem("T05", f"no event is sourced at target message {row['message_id']!r}", target=tid)


def rule_target_events_agree(project: Project) -> Iterable[Problem]:
    """T06: declared event_ids / affected_requirement_ids equal the events sourced at the message."""
    for tid, row in _targets(project):
        if not _known(project, row):
            continue
        actual = events_at_message(project, row["message_id"])
        if row.get("event_ids") is not None and set(row["event_ids"]) != {e for _, e in actual}:
            yield Problem("T06", "event_ids differ from the events sourced at the target message", target=tid)
        declared = row.get("affected_requirement_ids")
        if declared is not None and set(declared) != {r for r, _ in actual}:
            yield Problem(
                "T06",
                "affected_requirement_ids differ from the requirements of the target's events",
                target=tid,
            )


TARGET_RULES: list[Callable[[Project], Iterable[Problem]]] = [
    rule_unique_target_ids,
    rule_target_message_known,
    rule_target_is_client_message,
    rule_target_turn_counts,
    rule_target_has_events,
    rule_target_events_agree,
]
